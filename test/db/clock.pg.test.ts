import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClock } from "../../src/db/clock.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { expectDatabaseTime } from "../support/database-time.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

// PostgreSQL only: its clock is read over the network, and the database can be gone (SQLite's clock is this
// machine's). The rest of the clock's cases run on both engines in clock.test.ts.

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

describe("the database's clock", () => {
  it("keeps its last reading, and runs on, when the database cannot be read", async () => {
    const other = await testDatabase();
    const gone = openDatabase(other.url);
    const failures: unknown[] = [];
    const clock = await databaseClock(gone, (error) => failures.push(error));
    await gone.destroy();
    await other.drop();
    const before = clock.now().getTime();
    await clock.calibrate();
    expect(failures).toHaveLength(1);
    // Kept on purpose: that the clock runs on by itself over 20 ms of real time is what is asserted.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(before + 15);
    await expectDatabaseTime(db, clock);
  });
});
