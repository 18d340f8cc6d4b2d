import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { type TestDatabase, testDatabase } from "./databases.js";

const exec = promisify(execFile);

/** `npm run admin -- backup …` as an operator runs it, with the given settings (DATABASE_URL, CODES_KEY). */
export async function backupCli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ["--import", "tsx", "src/cli/admin.ts", "backup", ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
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
  const database = await testDatabase();
  const db = openDatabase(database.url);
  await migrateToLatest(db);
  await db.destroy();
  return database;
}
