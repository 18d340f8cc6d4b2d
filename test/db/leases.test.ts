import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/db/database.js";
import { claimDueOrders, createClaims, releaseOrders } from "../../src/db/leases.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

let database: TestDatabase;
let db: Db;
let accountId: number;

const past = "2020-01-01T00:00:00.000Z";
const now = "2026-01-01T00:00:00.000Z";
const until = (n: number) => `2026-01-01T00:00:0${n}.000Z`;

async function dueOrders(count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const row = await db
      .insertInto("orders")
      .values({
        account_id: accountId,
        funding_account_id: accountId,
        product_type: "stars",
        status: "processing",
        request_hash: "h",
        recipient: "alice",
        // A valid stars order: the claim returns domain orders, whose details are checked.
        details: JSON.stringify({ stars: 50, usdt_per_star_micro: 15_000 }),
        charge_micro: 1,
        upstream_ref: `ref-${Math.random()}`,
        check_after: past,
        created_at: past,
        updated_at: past,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  return ids;
}

beforeAll(async () => {
  database = await testDatabase();
  db = openDatabase(database.url, { poolMax: 6 });
  await migrateToLatest(db);
  accountId = (await db.insertInto("accounts").values({ kind: "standard", created_at: past }).returning("id").executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await db.destroy();
  await database.drop();
});

describe("the lease primitive", () => {
  it("claims each due row once among claimers at once, and nothing when none is due", async () => {
    const ids = await dueOrders(12);
    const a = createClaims();
    const b = createClaims();
    const [first, second] = await Promise.all([
      claimDueOrders(db, a, { now, until: until(1), limit: 8 }),
      claimDueOrders(db, b, { now, until: until(2), limit: 8 }),
    ]);
    const claimed = [...first, ...second].map((row) => row.id);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(a.size + b.size).toBe(claimed.length);
    const rest = await claimDueOrders(db, createClaims(), { now, until: until(3), limit: 20 });
    expect([...claimed, ...rest.map((row) => row.id)].sort((x, y) => x - y)).toEqual(ids);
    expect(await claimDueOrders(db, createClaims(), { now, until: until(4), limit: 20 })).toEqual([]);
  });

  it("hands back only the rows whose lease it still holds", async () => {
    await db.updateTable("orders").set({ status: "completed" }).execute();
    const [mine, taken] = await dueOrders(2);
    const claims = createClaims();
    expect((await claimDueOrders(db, claims, { now, until: until(5), limit: 5 })).map((row) => row.id)).toEqual([mine, taken]);
    // Another instance took `taken` after this lease lapsed: its lease stands.
    await db
      .updateTable("orders")
      .set({ check_after: until(9) })
      .where("id", "=", taken)
      .execute();
    expect(await releaseOrders(db, claims, now)).toEqual([mine]);
    expect(claims.size).toBe(0);
    const rows = await db.selectFrom("orders").select(["id", "check_after"]).where("id", "in", [mine, taken]).orderBy("id").execute();
    expect(rows).toEqual([
      { id: mine, check_after: now },
      { id: taken, check_after: until(9) },
    ]);
  });
});
