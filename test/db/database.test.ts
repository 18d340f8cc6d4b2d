import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { migrations } from "../../migrations/index.js";
import { runMigrate } from "../../src/cli/migrate.js";
import { TEST_ENGINE, type TestDatabase, testDatabase } from "../support/databases.js";

let database: TestDatabase;
let db: Db;
beforeAll(async () => {
  database = await testDatabase();
});
afterAll(async () => {
  await db?.destroy();
  await database.drop();
});

describe(`the database layer on ${TEST_ENGINE}`, () => {
  it("npm run migrate prints what it applied, then that the schema is up to date", async () => {
    // In-process (the compiled program is run once, in test/cli/smoke.test.ts).
    const migrate = async () => {
      const lines: string[] = [];
      await runMigrate({ DATABASE_URL: database.url, ...database.env }, (line) => lines.push(line));
      return lines.join("\n");
    };
    expect(await migrate()).toBe(`applied: ${Object.keys(migrations).join(", ")}`);
    expect(await migrate()).toBe("schema is up to date");
    db = openDatabase(database.url);
    expect(await migrateToLatest(db)).toEqual([]);
  });

  it("reads 64-bit integers exactly, and refuses one JavaScript cannot hold rather than round it", async () => {
    const exact = await sql<{
      n: number;
      total: number;
    }>`select cast(9007199254740991 as bigint) as n, sum(balance_micro) + 1 as total from accounts`.execute(db);
    expect(exact.rows[0]).toEqual({ n: Number.MAX_SAFE_INTEGER, total: 1 });
    expect(typeof exact.rows[0].n).toBe("number");
    await expect(sql`select cast(9007199254740993 as bigint) as n`.execute(db)).rejects.toThrow(/not an integer JavaScript holds exactly/);
  });

  it("stores flags as booleans and reads them back as booleans", async () => {
    const wallet = await db.selectFrom("accounts").select(["id", "blocked"]).where("kind", "=", "wallet").executeTakeFirstOrThrow();
    expect(wallet.blocked).toBe(false);
    await db.updateTable("accounts").set({ blocked: true }).where("id", "=", wallet.id).execute();
    const blocked = await db.selectFrom("accounts").select("blocked").where("blocked", "=", true).execute();
    expect(blocked).toEqual([{ blocked: true }]);
    await db.updateTable("accounts").set({ blocked: false }).where("id", "=", wallet.id).execute();
  });
});
