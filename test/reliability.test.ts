import { sql } from "kysely";
import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { allProvidersAt } from "../src/config.js";
import { withAdmin } from "./admin-core.js";
import { unbalancedAccounts } from "../src/db/ledger.js";
import { fromUsdt } from "../src/core/money.js";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { startSimulator } from "../src/simulator/server.js";
import { type TestDatabase, testDatabase } from "./databases.js";
import { freePort, http, startServiceProcess } from "./processes.js";
import { eventually, type Harness, startHarness } from "./harness.js";

describe("a crash between the charge and the provider's answer", () => {
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  let database: TestDatabase | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    simulator = await startSimulator(0, { timeScale: 0.02 });
  });
  afterEach(async () => {
    child?.kill("SIGKILL");
    await database?.drop();
  });
  afterAll(async () => simulator.app.close());

  async function startService(database: TestDatabase, port: number): Promise<ChildProcess> {
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      UPSTREAM: "external",
      ...allProvidersAt(simulator.url),
      UPSTREAM_TIMEOUT_MS: "3000",
      RECONCILE_AFTER_MS: "3500",
      RECONCILE_INTERVAL_MS: "200",
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: "100000",
    };
    return (await startServiceProcess(env, port)).proc;
  }

  async function scenario(fault: "drop_next" | "hang_after_accept") {
    database = await testDatabase();
    const db = openDatabase(database.url);
    await migrateToLatest(db);
    const { key } = await withAdmin({ DATABASE_URL: database.url, ...database.env }, async (admin) => {
      const issued = await admin.issueKey("424242");
      await admin.credit("424242", fromUsdt(10), "test");
      return issued;
    });

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = await startService(database, port);
    await http("POST", `${simulator.url}/control/faults`, undefined, { provider: "games", mode: fault });
    // The order call hangs at the provider; the charge is already committed.
    const pending = http("POST", `${base}/v1/games/pubgm/order`, key, { denomination: "325", player_id: "512345678" }).catch(() => null);
    const order = await eventually(async () => {
      const list = await http("GET", `${base}/v1/orders`, key);
      return list.body.orders[0];
    });
    expect(order.status).toBe("processing");
    expect((await http("GET", `${base}/v1/balance`, key)).body.balance_usdt).toBe(4.7605);
    child.kill("SIGKILL");
    await new Promise((resolve) => child!.once("exit", resolve));
    await pending;
    await http("POST", `${simulator.url}/control/faults`, undefined, { provider: "games", mode: "ok" });

    child = await startService(database, port);
    // Nobody polls: the restarted service's reconciler settles the order by asking the provider by our reference.
    const settled = await eventually(async () => {
      const row = await db.selectFrom("orders").selectAll().where("id", "=", order.order_id).executeTakeFirstOrThrow();
      return row.status === "processing" ? undefined : row;
    }, 20_000);
    const entries = await db.selectFrom("ledger_entries").select(["kind", "amount_micro"]).where("order_id", "=", order.order_id).execute();
    expect(await unbalancedAccounts(db)).toEqual([]);
    const balance = (await http("GET", `${base}/v1/balance`, key)).body.balance_usdt;
    const providerSide = await http("GET", `${simulator.url}/games/orders/${settled.upstream_ref}`);
    await db.destroy();
    return { settled, entries, balance, providerSide };
  }

  it("refunds once when the provider never received the order", async () => {
    const { settled, entries, balance, providerSide } = await scenario("drop_next");
    expect(settled).toMatchObject({ status: "failed", refunded: true });
    expect(entries.map((e) => e.kind).sort()).toEqual(["charge", "refund"]);
    expect(balance).toBe(10);
    expect(providerSide.status).toBe(404);
  });

  it("completes without a second delivery or a refund when the provider had taken it", async () => {
    const { settled, entries, balance, providerSide } = await scenario("hang_after_accept");
    expect(settled).toMatchObject({ status: "completed", refunded: false });
    expect(entries.map((e) => e.kind)).toEqual(["charge"]);
    expect(balance).toBe(4.7605);
    expect(providerSide.body.provider_order_id).toBe(Number(settled.provider_order_id));
  });
});

describe("in the running service", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.assertLedgerInvariant());
  afterAll(async () => h.close());

  it("refunds a failure exactly once however many client polls and reconciler passes see it at once", async () => {
    const { key } = await h.newKey(50);
    const placed = await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_race", amount_usd: 10 } });
    expect(placed.status).toBe(202);
    const accountId = (await h.service.core.accounts.authenticate(key)).account.id;
    // Let the provider decide the failure, then race every path that can see it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => h.call("GET", `/v1/store/${placed.body.order_id}`, { key })),
      ...Array.from({ length: 8 }, () => h.service.core.orders.current(accountId, placed.body.order_id)),
      h.service.jobs.reconciler.runOnce(),
    ]);
    for (const result of results.slice(0, 8)) expect((result as { body: { status: string } }).body.status).toBe("failed");
    const refunds = await h.service.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("order_id", "=", placed.body.order_id)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds).toHaveLength(1);
    expect(await h.balance(key)).toBe(50);
  });

  it("drives orders nobody polls to their final state, and tells listeners once each", async () => {
    const heard: Array<{ id: number; status: string }> = [];
    h.service.core.orders.onSettled((order) => heard.push({ id: Number(order.id), status: order.status }));
    const { key } = await h.newKey(100);
    const store = await h.call("POST", "/v1/store", { key, body: { login: "pending_quiet", amount_usd: 10 } });
    const failing = await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_quiet", amount_usd: 10 } });
    const cards = await h.call("POST", "/v1/giftcards/psn-us/order", { key, body: { card_id: "psn-us-10", quantity: 2 } });
    const game = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "999000111" } });
    const ids = [store, failing, cards, game].map((r) => r.body.order_id);
    const rows = await eventually(async () => {
      const found = await h.service.db.selectFrom("orders").select(["id", "status"]).where("id", "in", ids).execute();
      return found.every((r) => r.status !== "processing") ? found : undefined;
    });
    expect(Object.fromEntries(rows.map((r) => [Number(r.id), r.status]))).toEqual({
      [ids[0]]: "completed",
      [ids[1]]: "failed",
      [ids[2]]: "completed",
      [ids[3]]: "failed",
    });
    expect(heard.filter((e) => ids.includes(e.id)).sort((a, b) => a.id - b.id)).toEqual(
      rows.map((r) => ({ id: Number(r.id), status: r.status })).sort((a, b) => a.id - b.id),
    );
    const codes = await h.call("GET", `/v1/giftcards/orders/${ids[2]}`, { key });
    expect(codes.body.codes).toHaveLength(2);
  });
});

describe("a database busy past the service's wait", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it("does not stop the service: the background reconciler logs it and settles the order once the database is free", async () => {
    const { key } = await h.newKey(50);
    const placed = await h.call("POST", "/v1/store", { key, body: { login: "pending_busy", amount_usd: 10 } });
    expect(placed.status).toBe(202);
    // Another process holds the write lock for longer than the service waits (SQLite's busy_timeout is 5 s),
    // as a long admin job might; on PostgreSQL the orders table is locked as long.
    const other = openDatabase(h.databaseUrl);
    const held = other.transaction().execute(async (trx) => {
      if (h.engine === "postgres") await sql`lock table orders in exclusive mode`.execute(trx);
      else await trx.updateTable("accounts").set({ username: null }).where("id", "=", -1).execute();
      await new Promise((resolve) => setTimeout(resolve, 6_500));
    });
    await held;
    await other.destroy();
    // Nobody polls: only the background reconciler can settle it, and it must still be running.
    const settled = await eventually(async () => {
      const row = await h.service.db.selectFrom("orders").select("status").where("id", "=", placed.body.order_id).executeTakeFirstOrThrow();
      return row.status === "completed" ? row : undefined;
    });
    expect(settled.status).toBe("completed");
    expect((await h.call("GET", "/v1/health")).status).toBe(200);
    if (h.engine === "sqlite") expect(h.logs.join("")).toContain("reconciler pass failed");
  }, 30_000);
});
