import type { ChildProcess } from "node:child_process";
import { Client, request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { withAdmin } from "../support/admin-core.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { startSimulator } from "../../src/simulator/server.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";
import { fastEnv } from "../support/fast-env.js";

// The graceful stop of the real service process (SIGTERM), on SQLite (test/e2e/shutdown.pg.test.ts: two instances on PostgreSQL). The simulator runs at a quarter of
// its delays: a slow_ delivery takes 1 s, a store top-up 5 s, a gift card about 6 s.

let simulator: Awaited<ReturnType<typeof startSimulator>>;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let database: TestDatabase | undefined;
let db: Db | undefined;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  simulator = await startSimulator(0, { timeScale: 0.25 });
  emulator = await startEmulator();
});
afterEach(async () => {
  for (const instance of running.splice(0)) await kill(instance.proc);
  await db?.destroy();
  db = undefined;
  await database?.drop();
  database = undefined;
  await setFault("store", "ok");
});
afterAll(async () => {
  await simulator?.app.close();
  await emulator?.app.close();
});

async function setFault(provider: string, mode: string) {
  await http("POST", `${simulator.url}/control/faults`, undefined, { provider, mode });
}

/** A migrated database with `users` keys of 200 USDT each. */
async function books(users: number) {
  database = await testDatabase();
  db = openDatabase(database.url);
  await migrateToLatest(db);
  const keys: string[] = [];
  await withAdmin({ DATABASE_URL: database.url, ...database.env }, async (admin) => {
    for (let i = 0; i < users; i++) {
      keys.push((await admin.issueKey(String(8_100_000 + i))).key);
      await admin.credit(String(8_100_000 + i), fromUsdt(200), "test");
    }
  });
  return { db, keys, telegramIds: keys.map((_, i) => 8_100_000 + i) };
}

function envFor(database: TestDatabase, extra: Record<string, string> = {}) {
  return {
    DATABASE_URL: database.url,
    ...database.env,
    ...fastEnv(simulator.url, 20_000),
    // Leases are long here (30 s), so an order left leased by a stop would show.
    RECONCILE_AFTER_MS: "30000",
    LOG_LEVEL: "info",
    ...extra,
  };
}

async function start(env: Record<string, string>, port?: number) {
  const instance = await startServiceProcess(env, port ?? (await freePort()), true);
  running.push(instance);
  return instance;
}

/** When and how the process ended. */
function exit(proc: ChildProcess) {
  return new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) resolve({ code: proc.exitCode, signal: proc.signalCode, at: Date.now() });
    else proc.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
}

const logged = (instance: ServiceProcess, msg: string) =>
  instance.output
    .join("")
    .split("\n")
    .filter((line) => line.includes(msg))
    .map((line) => JSON.parse(line) as Record<string, any>);

/** A purchase as a partner sends it: its whole answer, or the error that ended it (a reset, a hang-up). */
async function buy(base: string, key: string, path: string, body: unknown) {
  try {
    const response = await request(`${base}${path}`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.statusCode, body: (await response.body.json()) as any };
  } catch (error) {
    return { error: String((error as { code?: string }).code ?? error) };
  }
}

/** The orders still `processing`, with when they come due. */
const processing = (db: Db) => db.selectFrom("orders").select(["id", "check_after", "product_type"]).where("status", "=", "processing").execute();

async function allSettled(db: Db, timeoutMs = 20_000) {
  await eventually(async () => ((await processing(db)).length ? undefined : true), timeoutMs);
}

describe("SIGTERM", () => {
  it("under load answers every request already taken, refuses new connections, finishes bot updates under way and exits 0 within the bound, leaving no order leased", async () => {
    const { db, keys, telegramIds } = await books(4);
    const env = envFor(database!, {
      SHUTDOWN_GRACE_MS: "8000",
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.url,
      TELEGRAM_API_EMULATOR: "true",
    });
    const service = await start(env);
    await eventually(async () => (logged(service, '"msg":"bot polling"').length ? true : undefined));
    // Kept-alive connections that sit idle must not hold the stop open (Fastify keeps them 72 s by default).
    for (const key of keys) expect((await http("GET", `${service.base}/v1/balance`, key)).status).toBe(200);

    // A bot user's purchase, slow at the provider, is under way when the signal comes.
    const buyer = new EmulatedChat(emulator.url, { id: telegramIds[0], first_name: "Buyer", language_code: "en" });
    await buyer.say("/stars");
    await buyer.reply("@slow_botbuyer", (t) => t.includes("How many stars"));
    await buyer.tap("50");
    await buyer.next((t) => t.includes("Confirm?"));

    // The load: slow deliveries, quick ones, and top-ups and gift cards that finish later at the provider.
    const purchases = keys.flatMap((key, u) =>
      [
        ...[0, 1, 2].map((i) => ["/v1/stars", { username: `slow_user${u}x${i}`, stars: 50, idempotency_key: `slow-${u}-${i}` }] as const),
        ...[0, 1].map((i) => ["/v1/stars", { username: `alice`, stars: 50, idempotency_key: `fast-${u}-${i}` }] as const),
        ["/v1/store", { login: `pending_u${u}`, amount_usd: 5, idempotency_key: `store-${u}` }] as const,
        ["/v1/giftcards/psn-us/order", { card_id: "psn-us-10", quantity: 1, idempotency_key: `card-${u}` }] as const,
      ].map(([path, body]) => ({ key, path, body })),
    );
    const answers = Promise.all(purchases.map(({ key, path, body }) => buy(service.base, key, path, body)));
    await buyer.tap("Confirm");
    // Every purchase has been taken (its order exists), and the slow ones are still at the provider.
    await eventually(async () => {
      const { n } = await db
        .selectFrom("orders")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow();
      return Number(n) === purchases.length + 1 ? true : undefined;
    });
    const exited = exit(service.proc);
    const signalled = Date.now();
    service.proc.kill("SIGTERM");

    // New connections are refused at once, while the work under way goes on.
    await eventually(async () => {
      const client = new Client(service.base);
      try {
        await request(`${service.base}/v1/health`, { dispatcher: client });
        return undefined;
      } catch (error) {
        return (error as { code?: string }).code === "ECONNREFUSED" ? true : undefined;
      } finally {
        await client.destroy();
      }
    }, 2_000);
    expect(service.proc.exitCode).toBeNull();

    // Every request taken got its whole answer: no reset, no hang-up.
    const results = await answers;
    expect(results.filter((r) => "error" in r)).toEqual([]);
    expect(results.filter((r) => !(r.status! >= 200 && r.status! < 300))).toEqual([]);
    expect(results.filter((r) => r.body?.username?.startsWith("slow_")).every((r) => r.body.status === "completed")).toBe(true);
    // The bot's update under way finished too: the buyer was told.
    expect((await buyer.next((t) => t.includes("Done!"))).text).toContain("Done!");

    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(8_000);
    const [stopped] = logged(service, '"msg":"stopped: everything under way finished"');
    expect(stopped).toMatchObject({ finished: true, cut: null, released: { orders: [], webhookEvents: [] } });
    expect(stopped.underWay.requests).toBeGreaterThan(0);
    expect(logged(service, '"msg":"stopping: ')).toHaveLength(1);

    // No order is left leased: what is still at the provider comes due within a recheck or two (200 ms
    // doubling), nowhere near the 30 s lease a stop that held its claims would leave.
    const open = await processing(db);
    expect(open.length).toBeGreaterThan(0);
    for (const order of open) expect(Date.parse(order.check_after!) - at).toBeLessThan(5_000);

    // A restarted instance settles them all, and the books are whole.
    await start(env, Number(new URL(service.base).port));
    await allSettled(db);
    await assertBooks(db);
    // The buyer's purchase was handled once: one order, one "Done!".
    const bought = (await buyer.messages()).filter((m) => m.from_bot && m.text.includes("Done!"));
    expect(bought).toHaveLength(1);
  }, 60_000);

  it("past the bound, cuts what cannot finish, hands its leases back at once and exits 1; a restart settles each order right", async () => {
    const { db, keys } = await books(1);
    const [key] = keys;
    // Calls hang past the 1.5 s bound (5 s timeout); an order is "never received" only 8 s after it was placed.
    const env = envFor(database!, { SHUTDOWN_GRACE_MS: "1500", UPSTREAM_TIMEOUT_MS: "5000", RECONCILE_AFTER_MS: "8000" });
    const service = await start(env);

    // A: a store top-up the provider has taken; then the store stops answering, so the reconciler's check of A hangs.
    const a = await buy(service.base, key, "/v1/store", { login: "pending_cut", amount_usd: 5 });
    expect(a.body.status).toBe("processing");
    await setFault("store", "timeout");
    // The reconciler claimed A: its check_after moved a lease (8 s) ahead.
    await eventually(async () => {
      const row = await db.selectFrom("orders").select("check_after").where("id", "=", a.body.order_id).executeTakeFirstOrThrow();
      return Date.parse(row.check_after!) > Date.now() + 5_000 ? true : undefined;
    });
    // B: a gift card order the provider never takes; C: a gift the provider takes but never answers.
    await setFault("giftcards", "drop_next");
    await setFault("gifts", "hang_after_accept");
    const b = buy(service.base, key, "/v1/giftcards/psn-us/order", { card_id: "psn-us-10", quantity: 1 });
    const c = buy(service.base, key, "/v1/gifts", { recipient: "@alice", gift_id: "5170145012310081615" });
    await eventually(async () => ((await processing(db)).length === 3 ? true : undefined));

    const exited = exit(service.proc);
    const signalled = Date.now();
    service.proc.kill("SIGTERM");
    const { code, at } = await exited;
    expect(code).toBe(1);
    // After the bound, and not much later.
    expect(at - signalled).toBeGreaterThanOrEqual(1_500);
    expect(at - signalled).toBeLessThan(6_000);
    const [stopped] = logged(service, "stopped past the 1500 ms bound");
    expect(stopped.cut).toMatchObject({ providerCalls: 2, reconcilerChecks: 1 });
    const ids = [a.body.order_id, (await b).body?.order_id, (await c).body?.order_id];
    expect(stopped.released.orders).toEqual([...ids].sort((x, y) => x - y));
    // The cut requests were still answered: their orders, as processing.
    for (const cut of [await b, await c]) expect(cut).toMatchObject({ status: expect.any(Number), body: { status: "processing" } });
    expect([(await b).status, (await c).status]).toEqual([202, 201]);

    // Each order is due now for whichever instance comes next, not when its lease would lapse.
    const open = await processing(db);
    expect(open.map((o) => o.id).sort()).toEqual([...ids].sort());
    for (const order of open) expect(order.check_after! <= new Date().toISOString()).toBe(true);

    // Restarted, the store answering again: A completes, B (never taken) is refunded, C (taken) completes.
    await setFault("store", "ok");
    await start(env, Number(new URL(service.base).port));
    await allSettled(db);
    const rows = await db.selectFrom("orders").selectAll().where("id", "in", ids).execute();
    const byId = Object.fromEntries(rows.map((r) => [Number(r.id), r]));
    expect(ids.map((id) => ({ status: byId[id].status, refunded: Boolean(byId[id].refunded) }))).toEqual([
      { status: "completed", refunded: false },
      { status: "failed", refunded: true },
      { status: "completed", refunded: false },
    ]);
    // Handed back at once, yet B was refunded only once older than RECONCILE_AFTER_MS: a call sent before the
    // cut could have been registered late by the provider until then.
    const refundedB = byId[ids[1]];
    expect(Date.parse(refundedB.completed_at!) - Date.parse(refundedB.created_at)).toBeGreaterThanOrEqual(8_000);
    await assertBooks(db);
  }, 60_000);

  it("a second signal during the grace exits at once", async () => {
    const { keys } = await books(1);
    const service = await start(envFor(database!, { SHUTDOWN_GRACE_MS: "20000" }));
    await setFault("gifts", "hang_after_accept");
    const hanging = buy(service.base, keys[0], "/v1/gifts", { recipient: "@alice", gift_id: "5170145012310081615" });
    await eventually(async () => ((await processing(db!)).length ? true : undefined));
    const exited = exit(service.proc);
    service.proc.kill("SIGTERM");
    // The first signal is taken (the stop has begun and waits on the hanging call): seen, not slept for.
    await eventually(async () => (logged(service, '"msg":"stopping: ').length ? true : undefined));
    expect(service.proc.exitCode).toBeNull();
    const second = Date.now();
    service.proc.kill("SIGTERM");
    const { code, at } = await exited;
    expect(code).toBe(128 + 15);
    expect(at - second).toBeLessThan(1_000);
    expect(service.output.join("")).toContain("second signal: exiting at once");
    await hanging;
  }, 30_000);
});
