import { sql } from "kysely";
import { expect } from "vitest";
import type { DatabaseClock } from "../../src/db/clock.js";
import { type Db, isPostgres } from "../../src/db/database.js";

/** The database's own clock now (SQLite's is this machine's), in ms. */
async function databaseMs(db: Db): Promise<number> {
  if (!isPostgres(db)) return Date.now();
  const { rows } = await sql<{ ms: number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`.execute(db);
  return rows[0]!.ms;
}

/** The database's reading falls between two of the clock's, give or take its error and a millisecond's rounding. */
export async function expectDatabaseTime(db: Db, clock: DatabaseClock) {
  const before = clock.now().getTime();
  const there = await databaseMs(db);
  const after = clock.now().getTime();
  expect(there).toBeGreaterThanOrEqual(before - clock.errorMs - 1);
  expect(there).toBeLessThanOrEqual(after + clock.errorMs + 1);
}
