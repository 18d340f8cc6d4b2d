import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseClock } from "../../src/db/clock.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { expectDatabaseTime } from "../support/database-time.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

// Both engines. A PostgreSQL that cannot be read is clock.pg.test.ts's (SQLite's clock is this machine's: it is
// always there to read).

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
  it("tells the database's time within its round trip, and never runs back", async () => {
    const clock = await databaseClock(db);
    for (let i = 0; i < 5; i++) {
      await expectDatabaseTime(db, clock);
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
});
