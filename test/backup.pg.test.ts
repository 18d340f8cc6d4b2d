import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/database.js";
import { migrateToLatest } from "../src/db/migrate.js";
import { backupCli } from "./backup-cli.js";
import { type TestDatabase, testDatabase } from "./databases.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await testDatabase();
  const db = openDatabase(database.url);
  await migrateToLatest(db);
  await db.destroy();
});
afterAll(async () => database.drop());

// PostgreSQL only: the backup command points to pg_dump.

/** A refusal is one line on stderr saying why, exit code 1, nothing on stdout and no stack trace. */
function expectRefusal(result: { code: number; stdout: string; stderr: string }, reason: string) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^backup refused: /)]);
  expect(result.stderr).toContain(reason);
}

describe("npm run admin -- backup on PostgreSQL", () => {
  it("refuses and points to pg_dump, with or without CODES_KEY set, writing nothing", async () => {
    const target = join(database.dir, "partner.db");
    const settings: Array<Record<string, string>> = [
      { DATABASE_URL: database.url, ...database.env },
      { DATABASE_URL: database.url, CODES_KEY: "" },
    ];
    for (const env of settings) {
      expectRefusal(await backupCli(env, target), "DATABASE_URL is PostgreSQL: back it up with pg_dump -Fc (restore with pg_restore)");
    }
    expect(readdirSync(database.dir)).toEqual([]);
  });
});
