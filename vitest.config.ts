import pg from "pg";
import { defineConfig } from "vitest/config";

const POSTGRES = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

// Which engine runs what (the tests mirror src: test/core, db, jobs, api, bot, cli, observability, e2e):
// - SQLite runs every file except *.pg.test.ts.
// - PostgreSQL runs what depends on the engine: everything under test/db/, files named *.both.test.ts (the
//   end-to-end slice, the shared rate-limit counter, codes at rest, the busy database), and *.pg.test.ts
//   (several instances on one database, PostgreSQL only).
// Without PostgreSQL the SQLite project still runs and the skip is said plainly; in CI an unreachable
// PostgreSQL fails the run.
const BOTH = ["test/db/**/*.test.ts", "test/**/*.both.test.ts"];
const POSTGRES_ONLY = "test/**/*.pg.test.ts";

export default defineConfig(async () => {
  const postgres = await reachable(POSTGRES);
  if (!postgres) {
    if (process.env.CI) throw new Error(`PostgreSQL is not reachable at ${POSTGRES}: CI runs the engine-dependent tests on PostgreSQL too`);
    console.warn(`\n⚠ PostgreSQL is not reachable at ${POSTGRES}: the PostgreSQL project is SKIPPED, only SQLite runs.\n`);
  }
  process.env.TEST_POSTGRES_REACHABLE = postgres ? "1" : "0";
  const sqlite = {
    extends: true as const,
    // The partner client's own unit tests (client/test: no service, no database) run here too, once.
    test: { name: "sqlite", env: { TEST_ENGINE: "sqlite" }, include: ["test/**/*.test.ts", "client/test/**/*.test.ts"], exclude: [POSTGRES_ONLY] },
  };
  const postgresProject = { extends: true as const, test: { name: "postgres", env: { TEST_ENGINE: "postgres" }, include: [...BOTH, POSTGRES_ONLY] } };
  return {
    test: {
      // Builds dist/ once per run for the tests that start real processes (see test/support/global-setup.ts).
      globalSetup: ["test/support/global-setup.ts"],
      // Each file boots its own service, database and simulator. The files of a project share one worker and its
      // loaded modules (isolate: false): importing the service anew for every file was a fifth of the run. No test
      // relies on module state of its own (no mocks, no fake timers, no process.env writes).
      isolate: false,
      // The two projects side by side, one worker each (the default on two cores is one worker for both): most of a
      // file's time is waiting on processes, sockets and Telegram's holds, not on the CPU.
      maxWorkers: 2,
      testTimeout: 30_000,
      hookTimeout: 30_000,
      projects: postgres ? [sqlite, postgresProject] : [sqlite],
    },
  };
});
