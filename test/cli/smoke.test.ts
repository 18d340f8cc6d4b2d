import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../../migrations/index.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { runScript as run } from "../support/processes.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await testDatabase();
});
afterAll(async () => database.drop());

// The one process-level smoke test of the CLIs: every command is tested in-process (admin.test.ts,
// backup*.test.ts, test/db/database.test.ts); this checks the compiled programs start, print, and exit with
// the right code. (test/e2e/admin-concurrency.test.ts races CLI processes against the service.)
describe("npm run migrate and npm run admin, compiled", () => {
  it("migrate, then issue a key, answer help, and refuse a bad command with exit code 1", async () => {
    const env = { DATABASE_URL: database.url, ...database.env };
    expect((await run("migrate", env)).stdout.trim()).toBe(`applied: ${Object.keys(migrations).join(", ")}`);
    const key = await run("admin", env, "key", "777001");
    expect(key).toMatchObject({ code: 0, stderr: "" });
    expect(key.stdout.trim()).toMatch(/^sj_[A-Za-z0-9_-]{43}$/);
    const help = await run("admin", env, "help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: npm run admin");
    const refused = await run("admin", env, "credit", "777001", "-5");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("cannot be negative");
    expect(refused.stderr).toContain("usage: npm run admin");
  });
});

describe("npm run admin, at its start", () => {
  it(
    "loads the core alone: no module of the API, the bot or the jobs; not Fastify, grammY, undici, or pg on SQLite",
    { timeout: 60_000 },
    async () => {
      const env = { DATABASE_URL: database.url, ...database.env };
      expect((await run("admin", env, "key", "777002")).code).toBe(0);
      const log = join(mkdtempSync(join(tmpdir(), "modules-")), "loaded.txt");
      // The compiled program as npm runs it, each module it loads written down.
      await promisify(execFile)(process.execPath, ["--import", "./test/support/module-log.mjs", "dist/src/cli/admin.js", "balance", "777002"], {
        env: { ...process.env, ...env, MODULE_LOG: log },
      });
      const loaded = readFileSync(log, "utf8").trim().split("\n");
      expect(loaded).toContain(new URL("../../dist/src/root.js", import.meta.url).href);
      const faces = loaded.filter(
        (url) =>
          /\/node_modules\/(fastify|@fastify|grammy|@grammyjs|undici|pg)\//.test(url) ||
          (/\/dist\/src\/(api|bot)\//.test(url) && !url.endsWith("/dist/src/api/rate-window.js")) ||
          url.endsWith("/dist/src/jobs/index.js"),
      );
      expect(faces).toEqual([]);
    },
  );
});
