import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseClock, databaseClock } from "../../src/db/clock.js";
import { type Db, isPostgres, openDatabase } from "../../src/db/database.js";
import { TEST_ENGINE, type TestDatabase, testDatabase } from "../support/databases.js";

let database: TestDatabase;
let db: Db;

beforeAll(async () => {
  database = await testDatabase();
  db = openDatabase(database.url);
});

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

/** The database's own clock now (SQLite's is this machine's), in ms. */
async function databaseMs(): Promise<number> {
  if (!isPostgres(db)) return Date.now();
  const { rows } = await sql<{ ms: number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`.execute(db);
  return rows[0]!.ms;
}

/** The database's reading falls between two of the clock's, give or take its error and a millisecond's rounding. */
async function expectDatabaseTime(clock: DatabaseClock) {
  const before = clock.now().getTime();
  const there = await databaseMs();
  const after = clock.now().getTime();
  expect(there).toBeGreaterThanOrEqual(before - clock.errorMs - 1);
  expect(there).toBeLessThanOrEqual(after + clock.errorMs + 1);
}

describe("the database's clock", () => {
  it("tells the database's time within its round trip, and never runs back", async () => {
    const clock = await databaseClock(db);
    for (let i = 0; i < 5; i++) {
      await expectDatabaseTime(clock);
      await clock.calibrate();
    }
    let last = 0;
    for (let i = 0; i < 1000; i++) {
      const now = clock.now().getTime();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    await clock.close();
  });

  // SQLite's clock is this machine's: it is always there to read.
  it.runIf(TEST_ENGINE === "postgres")("keeps its last reading, and runs on, when the database cannot be read", async () => {
    const other = await testDatabase();
    const gone = openDatabase(other.url);
    const failures: unknown[] = [];
    const clock = await databaseClock(gone, (error) => failures.push(error));
    await gone.destroy();
    await other.drop();
    const before = clock.now().getTime();
    await clock.calibrate();
    expect(failures).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(before + 15);
    await expectDatabaseTime(clock);
  });
});
