import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
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

/** The URL of the database `name` on the test server. */
export function postgresDatabaseUrl(name: string): string {
  const url = new URL(POSTGRES_SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `run` on a connection to the test server's database, or to `database` on that server. */
export async function onServer<T>(run: (client: pg.Client) => Promise<T>, database?: string): Promise<T> {
  const client = new pg.Client({ connectionString: database ? postgresDatabaseUrl(database) : POSTGRES_SERVER_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * The run's migrated databases, made once by the global setup (test/support/global-setup.ts): a SQLite file, and a
 * PostgreSQL database of the run's own. `migrated` databases are copies of them.
 */
export const TEMPLATE_SQLITE_ENV = "TEST_TEMPLATE_SQLITE";
export const TEMPLATE_POSTGRES_ENV = "TEST_TEMPLATE_POSTGRES";

/**
 * A new database on this run's engine: a SQLite file in a temporary folder, or a PostgreSQL database; empty, or with
 * `migrated` a copy of the run's migrated template (the schema up to date: a service opened on it migrates nothing),
 * when the global setup made one. Migrating an empty database took a second or more a harness on PostgreSQL; every
 * start from an empty one is still run where it is the subject (test/db, the real processes of test/e2e).
 */
export async function testDatabase({ migrated = false }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), "partner-test-"));
  if (TEST_ENGINE === "sqlite") {
    const url = join(dir, "partner.db");
    const template = migrated ? process.env[TEMPLATE_SQLITE_ENV] : undefined;
    // The template was closed after its migration: one file, its WAL folded in.
    if (template) copyFileSync(template, url);
    return { url, env: {}, dir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `${runPrefix(process.env.TEST_RUN_ID ?? "adhoc")}${randomBytes(6).toString("hex")}`;
  const template = migrated ? process.env[TEMPLATE_POSTGRES_ENV] : undefined;
  await onServer((client) => client.query(`create database ${name}${template ? ` template ${template}` : ""}`));
  return {
    url: postgresDatabaseUrl(name),
    env: { CODES_KEY: randomBytes(32).toString("base64") },
    dir,
    async drop() {
      await onServer((client) => client.query(`drop database if exists ${name} with (force)`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
