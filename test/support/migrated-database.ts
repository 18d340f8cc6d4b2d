import { afterAll, beforeAll } from "vitest";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { type TestDatabase, testDatabase } from "./databases.js";

/**
 * For a test file of storage functions: a new database on this run's engine (a copy of the run's migrated template), migrated and opened (`poolMax`
 * connections on PostgreSQL) before the file's tests and handed to `opened`, then closed and dropped after them.
 */
export function useMigratedDatabase(poolMax: number, opened: (db: Db) => void): void {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await testDatabase({ migrated: true });
    db = openDatabase(database.url, { poolMax });
    await migrateToLatest(db);
    opened(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });
}
