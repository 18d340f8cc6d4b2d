import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { eventually, type Harness, startHarness } from "../support/harness.js";

// Runs on both engines: how a busy database shows itself (SQLite's busy wait, PostgreSQL's lock queue) is the engine's.

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
    // Another connection holds the write lock for longer than the service waits (SQLite's busy_timeout is 5 s),
    // as a long admin job might; on PostgreSQL the orders table is locked. It is held until the service is
    // seen to have waited (nothing sleeps a fixed time): on SQLite until a reconciler pass failed on the lock,
    // on PostgreSQL until the reconciler's claim queues behind it.
    const other = openDatabase(h.databaseUrl);
    const held = other.transaction().execute(async (trx) => {
      if (h.engine === "postgres") {
        await sql`lock table orders in exclusive mode`.execute(trx);
        await eventually(async () => {
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(h.service.db);
          return rows[0].n > 0 ? true : undefined;
        }, 20_000);
      } else {
        await trx.updateTable("accounts").set({ username: null }).where("id", "=", -1).execute();
        await eventually(async () => (h.logs.join("").includes("reconciler pass failed") ? true : undefined), 20_000);
      }
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
