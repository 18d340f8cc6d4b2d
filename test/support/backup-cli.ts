import { expect } from "vitest";
import { runAdmin } from "../../src/cli/admin.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { type TestDatabase, testDatabase } from "./databases.js";

/** `npm run admin -- backup …` as an operator runs it, with the given settings (DATABASE_URL, CODES_KEY): in-process. */
export async function backupCli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runAdmin(["backup", ...args], {
    env,
    out: (line) => stdout.push(`${line}\n`),
    err: (line) => stderr.push(`${line}\n`),
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

/** A refusal is one line on stderr saying why, exit code 1, nothing on stdout and no stack trace. */
export function expectRefusal(result: { code: number; stdout: string; stderr: string }, reason: string) {
  expect(result.code).toBe(1);
  expect(result.stdout).toBe("");
  expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^backup refused: /)]);
  expect(result.stderr).toContain(reason);
}

/** A database of this run's engine at the newest schema, as a service would leave it. */
export async function migratedDatabase(): Promise<TestDatabase> {
  const database = await testDatabase({ migrated: true });
  const db = openDatabase(database.url);
  await migrateToLatest(db);
  await db.destroy();
  return database;
}
