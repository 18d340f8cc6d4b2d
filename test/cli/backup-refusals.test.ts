import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupCli, expectRefusal, migratedDatabase } from "../support/backup-cli.js";
import type { TestDatabase } from "../support/databases.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await migratedDatabase();
});
afterAll(async () => database.drop());

// SQLite only (the engine the backup command copies): every refusal changes nothing.

describe("npm run admin -- backup refusals on SQLite", () => {
  it("never overwrites, needs an existing folder and an existing database, and changes nothing when it refuses", async () => {
    const folder = join(database.dir, "backups");
    mkdirSync(folder);
    writeFileSync(join(folder, "taken.db"), "an earlier backup");
    writeFileSync(join(folder, "key-taken.db.codes.key"), "an earlier key");
    writeFileSync(join(database.dir, "codes.key"), randomBytes(32).toString("base64"), { mode: 0o600 });
    const env = { DATABASE_URL: database.url };
    const [taken, keyTaken, noFolder, noSource, notOurs, noFile] = await Promise.all([
      backupCli(env, join(folder, "taken.db")),
      backupCli(env, join(folder, "key-taken.db"), "--with-codes-key"),
      backupCli(env, join(database.dir, "missing", "b.db")),
      backupCli({ DATABASE_URL: join(database.dir, "nowhere", "partner.db") }, join(folder, "b.db")),
      backupCli({ DATABASE_URL: join(folder, "taken.db") }, join(folder, "c.db")),
      backupCli(env),
    ]);
    expectRefusal(taken, `${join(folder, "taken.db")} already exists: a backup never overwrites a file`);
    expectRefusal(keyTaken, `${join(folder, "key-taken.db.codes.key")} already exists`);
    expectRefusal(noFolder, `the folder ${join(database.dir, "missing")} does not exist`);
    expectRefusal(noSource, `there is no SQLite database at ${join(database.dir, "nowhere", "partner.db")} (DATABASE_URL)`);
    expectRefusal(notOurs, `${join(folder, "taken.db")} is not a SQLite database`);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(/^backup takes one file name, got none\n\nusage: npm run admin -- <command>/);

    expect(readFileSync(join(folder, "taken.db"), "utf8")).toBe("an earlier backup");
    expect(readFileSync(join(folder, "key-taken.db.codes.key"), "utf8")).toBe("an earlier key");
    expect(readdirSync(folder).sort()).toEqual(["key-taken.db.codes.key", "taken.db"]);
    expect(existsSync(join(database.dir, "missing"))).toBe(false);
    expect(existsSync(join(database.dir, "nowhere"))).toBe(false);
  });

  it("with CODES_KEY set copies no key file and says to keep CODES_KEY; the copy is one file", async () => {
    const target = join(database.dir, "with-env-key.db");
    const result = await backupCli({ DATABASE_URL: database.url, CODES_KEY: randomBytes(32).toString("base64") }, target);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("no sealed gift card codes or webhook secrets in it yet");
    expect(result.stdout).toContain("codes key: CODES_KEY comes from the environment and is not copied: keep it with this backup");
    expect(existsSync(`${target}.codes.key`)).toBe(false);
    expect(existsSync(`${target}-wal`)).toBe(false);
    const copy = new SQLite(target, { readonly: true });
    expect(copy.pragma("journal_mode", { simple: true })).toBe("delete");
    expect(copy.prepare("select count(*) as n from kysely_migration").get()).toEqual({ n: expect.any(Number) });
    copy.close();
  });

  it("keeps the codes key apart from a backup unless asked, and then writes it owner-only beside it", async () => {
    const keyFile = join(database.dir, "codes.key");
    const plain = join(database.dir, "plain.db");
    const result = await backupCli({ DATABASE_URL: database.url }, plain);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`codes key: not copied`);
    expect(result.stdout).toContain(`keep ${keyFile} safe elsewhere, or add --with-codes-key`);
    expect(existsSync(`${plain}.codes.key`)).toBe(false);

    const withKey = join(database.dir, "with-key.db");
    const asked = await backupCli({ DATABASE_URL: database.url }, withKey, "--with-codes-key");
    expect(asked.code).toBe(0);
    expect(asked.stdout).toContain(`codes key: ${keyFile} copied to ${withKey}.codes.key (mode 0600)`);
    expect(statSync(`${withKey}.codes.key`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${withKey}.codes.key`)).toEqual(readFileSync(keyFile));
  });
});
