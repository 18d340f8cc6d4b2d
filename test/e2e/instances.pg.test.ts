import { sql } from "kysely";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminForTest } from "../support/admin-core.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrations } from "../../migrations/index.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { startSimulator } from "../../src/simulator/server.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";
import { fastEnv } from "../support/fast-env.js";

// Two real service processes on one PostgreSQL database (this file runs in the PostgreSQL half only).

const RATE_LIMIT = 40;
const KEYS = 16;

let database: TestDatabase;
let simulator: Awaited<ReturnType<typeof startSimulator>>;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let db: Db;
let env: Record<string, string>;
const ports: number[] = [];
const instances: ServiceProcess[] = [];

beforeAll(async () => {
  database = await testDatabase();
  simulator = await startSimulator(0, { timeScale: 0.01 });
  emulator = await startEmulator();
  env = {
    DATABASE_URL: database.url,
    ...database.env,
    DATABASE_POOL_MAX: "8",
    ...fastEnv(simulator.url, 2000),
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    LOG_LEVEL: "info",
    BOT_TOKEN: TEST_BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.url,
    TELEGRAM_API_EMULATOR: "true",
  };
  ports.push(await freePort(), await freePort());
  db = openDatabase(database.url);
});

afterAll(async () => {
  for (const instance of instances) await kill(instance.proc);
  await db?.destroy();
  await simulator?.app.close();
  await emulator?.app.close();
  await database?.drop();
});

const polling = (instance: ServiceProcess) => instance.output.join("").includes('"msg":"bot polling"');

/** Sends one request to `first`, and again to `second` should the first instance be gone. */
let failedOver = 0;
async function send(first: ServiceProcess, second: ServiceProcess, method: "GET" | "POST", path: string, key: string, body?: unknown) {
  try {
    return await http(method, `${first.base}${path}`, key, body);
  } catch {
    failedOver += 1;
    return http(method, `${second.base}${path}`, key, body);
  }
}

async function setFault(provider: string, mode: string) {
  await http("POST", `${simulator.url}/control/faults`, undefined, { provider, mode });
}

describe("two instances on one PostgreSQL database", () => {
  it("migrate once when both start at the same moment, and only one of them polls the bot", async () => {
    const [a, b] = await Promise.all(ports.map((port) => startServiceProcess(env, port, true)));
    instances.push(a, b);
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations));
    await eventually(async () => (polling(a) || polling(b) ? true : undefined));
    // The other stands by and never polls beside it: seen once it has contended again (it retries every 2 s)
    // after the first took the role, instead of sleeping a fixed time.
    const { rows } = await sql<{ now: Date }>`select now() as now`.execute(db);
    await eventually(async () => {
      const retried = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and query like 'select pg_try_advisory_lock%' and query_start > ${rows[0].now}`.execute(db);
      return retried.rows[0].n > 0 ? true : undefined;
    });
    expect([polling(a), polling(b)].filter(Boolean)).toHaveLength(1);
    expect((await http("GET", `${emulator.url}/emulator/conflicts`)).body.conflicts).toBe(0);
  });

  it("keep every guarantee under concurrent load from many keys, upstream failures and one instance killed mid-run", async () => {
    const admin = await adminForTest({ DATABASE_URL: database.url, ...database.env });
    const users = [];
    for (let i = 0; i < KEYS; i++) {
      const telegramId = String(7_100_000 + i);
      const { key } = await admin.issueKey(telegramId);
      await admin.credit(telegramId, fromUsdt(300), "test");
      users.push({ key, telegramId });
    }
    // An owner key spends the wallet within a daily limit of 20 USDT: at most six orders of 3 USDT.
    const owner = await admin.issueKey("7199999");
    await admin.makeOwner("7199999", { dailyLimitMicro: fromUsdt(20), orderLimitMicro: fromUsdt(5) }, "test");
    await admin.setWallet(fromUsdt(1000), "test");

    // The rate limit counts across both instances: of 60 requests split between them, exactly 40 pass. Its
    // windows are aligned to the minute: a burst that straddled one is sent again with a fresh key (instead of
    // waiting for the next minute).
    let burst: number[] = [];
    for (let attempt = 0; ; attempt++) {
      const limited = await admin.issueKey(String(7_199_990 + attempt));
      const minute = Math.floor(Date.now() / 60_000);
      burst = await Promise.all(
        Array.from({ length: 60 }, (_, i) => http("GET", `${instances[i % 2].base}/v1/balance`, limited.key).then((r) => r.status)),
      );
      if (Math.floor(Date.now() / 60_000) === minute) break;
    }
    expect(burst.filter((s) => s === 200)).toHaveLength(RATE_LIMIT);
    expect(burst.filter((s) => s === 429)).toHaveLength(60 - RATE_LIMIT);

    // The load: every purchase carries an idempotency key and is sent to both instances at once.
    const [a, b] = instances;
    const victim = polling(a) ? a : b;
    const survivor = victim === a ? b : a;
    const answers: Array<{ key: string; idem: string; status: number; orderId?: number }> = [];
    const both = async (key: string, path: string, body: Record<string, unknown>) => {
      const results = await Promise.all([send(a, b, "POST", path, key, body), send(b, a, "POST", path, key, body)]);
      for (const r of results) answers.push({ key, idem: String(body.idempotency_key), status: r.status, orderId: r.body.order_id });
    };
    const load = users.flatMap(({ key }, u) => [
      both(key, "/v1/stars", { username: `alice`, stars: 100, idempotency_key: `s1-${u}` }),
      both(key, "/v1/stars", { username: `fail_bob`, stars: 100, idempotency_key: `s2-${u}` }),
      both(key, "/v1/store", { login: u % 2 ? `pending_p${u}` : `pendingfail_p${u}`, amount_usd: 5, idempotency_key: `st-${u}` }),
      both(key, "/v1/giftcards/psn-us/order", { card_id: "psn-us-10", quantity: 1, idempotency_key: `gc-${u}` }),
      both(key, "/v1/stars", { username: `carol`, stars: 200, idempotency_key: `s3-${u}` }),
    ]);
    const ownerOrders = Array.from({ length: 10 }, (_, i) =>
      send(instances[i % 2], instances[(i + 1) % 2], "POST", "/v1/stars", owner.key, { username: "dave", stars: 200, idempotency_key: `o-${i}` }),
    );
    // Mid-run (once the first answers are back): the delivery gateway goes down for a moment, and the polling
    // instance is killed.
    await eventually(async () => (answers.length >= 8 ? true : undefined));
    await setFault("gateway", "down");
    await kill(victim.proc);
    await setFault("gateway", "ok");
    await Promise.all([...load, ...ownerOrders]);
    // The kill landed mid-run: some requests found the instance gone and were sent to the other.
    expect(failedOver).toBeGreaterThan(0);

    // The survivor takes over the bot within seconds: a new user is answered.
    const newcomer = new EmulatedChat(emulator.url, { id: 7_200_001, first_name: "Newcomer", language_code: "en" });
    const welcome = await newcomer.reply("/start", (t) => t.includes("sj_"));
    expect(welcome.text).toContain("sj_");
    expect(polling(survivor)).toBe(true);

    // The killed instance comes back on its port (requests that died with it were sent to the other, above).
    const restarted = await startServiceProcess(env, Number(new URL(victim.base).port), true);
    instances[instances.indexOf(victim)] = restarted;

    // Every order reaches a final state without a client polling.
    await eventually(async () => {
      const open = await db.selectFrom("orders").select("id").where("status", "=", "processing").execute();
      return open.length ? undefined : true;
    }, 40_000);
    await assertBooks(db);

    // One order per idempotency key, and every answer that came named it.
    const orders = await db.selectFrom("orders").select(["id", "account_id", "idempotency_key", "product_type", "status", "charge_micro"]).execute();
    const keys = orders.map((o) => `${o.account_id}/${o.idempotency_key}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const answer of answers.filter((x) => x.orderId !== undefined && x.orderId > 0)) {
      const order = orders.find((o) => o.id === answer.orderId);
      expect(order?.idempotency_key).toBe(answer.idem);
    }
    expect(answers.filter((x) => x.status >= 500 && x.status !== 502 && x.status !== 503)).toEqual([]);

    // The owner's daily limit held across both instances.
    const ownerAccount = await admin.resolveTarget("7199999");
    const ownerSpent = orders.filter((o) => o.account_id === ownerAccount.id && o.status !== "failed").reduce((sum, o) => sum + o.charge_micro, 0);
    expect(ownerSpent).toBeLessThanOrEqual(fromUsdt(20));
    expect(ownerSpent).toBeGreaterThan(0);

    // Each background outcome was told once at most, by whichever instance settled it; none twice.
    const told = new Map<number, number>();
    for (const { telegramId } of users) {
      const messages = await new EmulatedChat(emulator.url, { id: Number(telegramId), first_name: "U" }).messages();
      for (const m of messages.filter((x) => x.from_bot && /^(✅ Completed|❌ Failed and refunded): #\d+ /.test(x.text))) {
        const id = Number(/#(\d+) /.exec(m.text)![1]);
        told.set(id, (told.get(id) ?? 0) + 1);
      }
    }
    expect([...told.values()].filter((n) => n > 1)).toEqual([]);
    const background = orders.filter((o) => o.product_type === "store" || o.product_type === "giftcard");
    expect(told.size).toBeGreaterThanOrEqual(background.length - 2);
    expect((await http("GET", `${emulator.url}/emulator/conflicts`)).body.conflicts).toBe(0);
  }, 120_000);

  it("in webhook mode, run two updates of one chat one after the other even when they reach different instances", async () => {
    for (const instance of instances.splice(0)) await kill(instance.proc);
    const secret = "webhook-secret-for-the-test";
    const webhookEnv = { ...env, BOT_WEBHOOK_URL: "https://bot.example.invalid/telegram/webhook", BOT_WEBHOOK_SECRET: secret };
    instances.push(...(await Promise.all(ports.map((port) => startServiceProcess(webhookEnv, port, true)))));
    let updateId = 1_000;
    const start = (user: number, instance: ServiceProcess) =>
      request(`${instance.base}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": secret },
        body: JSON.stringify({
          update_id: updateId++,
          message: {
            message_id: updateId,
            date: Math.floor(Date.now() / 1000),
            chat: { id: user, type: "private", first_name: "Twice" },
            from: { id: user, is_bot: false, first_name: "Twice", language_code: "en" },
            text: "/start",
            entities: [{ type: "bot_command", offset: 0, length: 6 }],
          },
        }),
      }).then((r) => r.statusCode);
    // A new user's /start, sent twice at once, to each instance: one registers and shows the key, the other
    // (run after it) finds the account and shows the menu. Side by side, both would try to register.
    const users = Array.from({ length: 6 }, (_, i) => 7_300_000 + i);
    const statuses = await Promise.all(users.flatMap((user) => instances.map((instance) => start(user, instance))));
    expect(statuses.every((s) => s === 200)).toBe(true);
    for (const user of users) {
      const chat = new EmulatedChat(emulator.url, { id: user, first_name: "Twice" });
      const messages = await eventually(async () => {
        const all = (await chat.messages()).filter((m) => m.from_bot);
        return all.some((m) => m.text.startsWith("Welcome back")) ? all : undefined;
      });
      expect(messages.filter((m) => /sj_[A-Za-z0-9_-]{43}/.test(m.text))).toHaveLength(1);
      expect(messages.filter((m) => m.text.startsWith("Welcome back"))).toHaveLength(1);
    }
    const accounts = await db.selectFrom("accounts").select("telegram_id").where("telegram_id", "in", users.map(String)).execute();
    expect(accounts).toHaveLength(users.length);
    for (const instance of instances) expect(instance.output.join("")).not.toContain("bot update failed");
  }, 60_000);
});
