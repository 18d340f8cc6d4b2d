import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupCli, expectRefusal, migratedDatabase } from "../support/backup-cli.js";
import type { TestDatabase } from "../support/databases.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => database.drop());

// PostgreSQL only: the backup command points to pg_dump.

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
