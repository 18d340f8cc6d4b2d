import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { unbalancedAccounts } from "../../src/db/ledger.js";
import { withAdmin } from "../support/admin-core.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { startSimulator } from "../../src/simulator/server.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { fastEnv } from "../support/fast-env.js";
import { freePort, http, startServiceProcess } from "../support/processes.js";
import { eventually } from "../support/harness.js";

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
      ...fastEnv(simulator.url, 3000),
      LOG_LEVEL: "warn",
    };
    return (await startServiceProcess(env, port)).proc;
  }

  async function scenario(fault: "drop_next" | "hang_after_accept") {
    database = await testDatabase({ migrated: true });
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
    // The order is listed once its charge commits, a moment before the call reaches the provider: where the provider
    // takes it, the crash comes once it has (a crash before that is the never-received case, refunded).
    if (fault === "hang_after_accept") {
      const { upstream_ref: ref } = await db.selectFrom("orders").select("upstream_ref").where("id", "=", order.order_id).executeTakeFirstOrThrow();
      await eventually(async () => ((await http("GET", `${simulator.url}/games/orders/${ref}`)).status === 200 ? true : undefined));
    }
    child.kill("SIGKILL");
    await new Promise((resolve) => child!.once("exit", resolve));
    await pending;
    await http("POST", `${simulator.url}/control/faults`, undefined, { provider: "games", mode: "ok" });
    // RECONCILE_AFTER_MS (3.5 s) passes while the service is down: the order's check falls due and the order is
    // older than any call in flight could be. Written as the time having passed, not waited for.
    const now = Date.now();
    await db
      .updateTable("orders")
      .set({ check_after: new Date(now).toISOString(), created_at: new Date(now - 3_500).toISOString() })
      .where("id", "=", order.order_id)
      .execute();

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
