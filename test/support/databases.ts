import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Which engine this test process runs on: each vitest project sets it (see vitest.config.ts). */
export const TEST_ENGINE: "sqlite" | "postgres" = process.env.TEST_ENGINE === "postgres" ? "postgres" : "sqlite";

/** The server the PostgreSQL half uses; each test database is made on it and dropped after. */
const POSTGRES_SERVER_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Databases of one run share a prefix, so the run's teardown can drop any a crashed file left behind. */
export const runPrefix = (runId: string) => `ptest_${runId}_`;

export interface TestDatabase {
  /** DATABASE_URL for the service: a SQLite file path or a postgres:// URL. */
  url: string;
  /** Settings the engine needs besides the URL (PostgreSQL needs a shared codes key). */
  env: Record<string, string>;
  /** A folder of the test's own, for files beside the database. */
  dir: string;
  drop(): Promise<void>;
}

/** Runs `run` on a connection to the test server's database, or to `database` on that server. */
export async function onServer<T>(run: (client: pg.Client) => Promise<T>, database?: string): Promise<T> {
  const url = new URL(POSTGRES_SERVER_URL);
  if (database) url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on this run's engine: a SQLite file in a temporary folder, or a PostgreSQL database. */
export async function testDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "partner-test-"));
  if (TEST_ENGINE === "sqlite") {
    return { url: join(dir, "partner.db"), env: {}, dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `${runPrefix(process.env.TEST_RUN_ID ?? "adhoc")}${randomBytes(6).toString("hex")}`;
  await onServer((client) => client.query(`create database ${name}`));
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    env: { CODES_KEY: randomBytes(32).toString("base64") },
    dir,
    async drop() {
      await onServer((client) => client.query(`drop database if exists ${name} with (force)`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
