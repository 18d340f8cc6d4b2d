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

// The whole suite runs once per engine, as Kysely's own suite loops over its dialects. Without PostgreSQL the
// SQLite half still runs and the skip is said plainly; in CI an unreachable PostgreSQL fails the run.
export default defineConfig(async () => {
  const postgres = await reachable(POSTGRES);
  if (!postgres) {
    if (process.env.CI) throw new Error(`PostgreSQL is not reachable at ${POSTGRES}: CI runs the suite on both engines`);
    console.warn(`\n⚠ PostgreSQL is not reachable at ${POSTGRES}: the PostgreSQL half of the suite is SKIPPED, only SQLite runs.\n`);
  }
  process.env.TEST_POSTGRES_REACHABLE = postgres ? "1" : "0";
  // Files named *.pg.test.ts (several instances on one database) exist for PostgreSQL only; *.once.test.ts
  // (the compiled build, the same on either engine) run once, in the SQLite half.
  const engine = (name: "sqlite" | "postgres") => ({
    extends: true as const,
    test: { name, env: { TEST_ENGINE: name }, exclude: [name === "sqlite" ? "test/**/*.pg.test.ts" : "test/**/*.once.test.ts"] },
  });
  return {
    test: {
      include: ["test/**/*.test.ts"],
      globalSetup: ["test/global-setup.ts"],
      // Each file boots its own service, database and simulator; files run in parallel processes.
      testTimeout: 30_000,
      hookTimeout: 30_000,
      projects: postgres ? [engine("sqlite"), engine("postgres")] : [engine("sqlite")],
    },
  };
});
