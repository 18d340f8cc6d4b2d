import { resolve } from "node:path";
import { type CompiledQuery, Kysely, type KyselyConfig, PostgresAdapter, sql, type Transaction } from "kysely";
import type { Checkpointer } from "./checkpointer.js";
import type { DirectRead } from "./direct-read.js";
import { openPostgres, type PostgresExtras, type PostgresOptions } from "./postgres.js";
import type { Database } from "./schema.js";
import { openSqlite, type SqliteExtras, type SqliteOptions } from "./sqlite.js";

// Either engine behind one face: each half (sqlite.ts, postgres.ts) opens its own, and the database it returns
// carries that engine's extras (SQLite's reader and checkpointer, PostgreSQL's named statements) itself.

/**
 * An open database: kysely's, with its engine's extras beside it. A transaction is kysely's own, without them: what
 * runs outside any transaction (a direct read, a named statement) is never taken for one.
 */
export class Db extends Kysely<Database> {
  constructor(
    config: KyselyConfig,
    readonly extras: SqliteExtras | PostgresExtras,
  ) {
    super(config);
  }
}

/** Repositories take either the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

export type Engine = "sqlite" | "postgres";

/** `postgres://…` (or `postgresql://…`) is PostgreSQL; anything else is a SQLite file path. */
export function engineOf(url: string): Engine {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

/**
 * Where the database is, for the start's log line: SQLite's file (absolute), or PostgreSQL's host and database,
 * never its user or password.
 */
export function databaseWhere(url: string): { engine: "sqlite"; file: string } | { engine: "postgresql"; host: string; database: string } {
  if (engineOf(url) === "sqlite") return { engine: "sqlite", file: url === ":memory:" ? url : resolve(url) };
  const parsed = new URL(url);
  // A socket folder given as `?host=/run/postgresql` stands for the host.
  const host = parsed.host || parsed.searchParams.get("host") || "localhost";
  return { engine: "postgresql", host, database: decodeURIComponent(parsed.pathname.slice(1)) || "(the user's)" };
}

export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export type DatabaseOptions = PostgresOptions & SqliteOptions;

export { withoutStatementBound } from "./postgres.js";

export function openDatabase(url: string, options: DatabaseOptions = {}): Db {
  const { config, extras } = engineOf(url) === "postgres" ? openPostgres(url, options) : openSqlite(url, options);
  return new Db(config, extras);
}

/**
 * Where request counts shared by every instance live: on PostgreSQL (several instances may share it) a small
 * pool of its own whose commits need not wait for the disk; none on SQLite, whose one instance counts in memory.
 */
export const openCounterDatabase = (url: string, bounds: Pick<DatabaseOptions, "timeoutMs" | "onFault"> = {}): Db | undefined =>
  engineOf(url) === "postgres" ? openDatabase(url, { poolMax: 4, unsyncedCommits: true, ...bounds }) : undefined;

/** Whether the database answers (the health probe): `select 1`, false on any error. */
export function ping(db: Executor): Promise<boolean> {
  return sql`select 1`.execute(db).then(
    () => true,
    () => false,
  );
}

/**
 * The database's direct reader, for a hot read outside any transaction (none in a transaction): SQLite's reader
 * connection, PostgreSQL's named statements on the pool.
 */
export function directReader(exec: Executor): DirectRead | undefined {
  if (!(exec instanceof Db)) return undefined;
  return exec.extras.engine === "sqlite" ? exec.extras.directRead : exec.extras.namedStatement;
}

/**
 * PostgreSQL only: runs a statement of its own (a read or a write) outside any transaction as a named prepared
 * statement on the pool, in one round trip (PostgreSQL's direct reader is just that); undefined on SQLite and in a
 * transaction.
 */
export const namedStatement = (exec: Executor): DirectRead | undefined =>
  exec instanceof Db && exec.extras.engine === "postgres" ? exec.extras.namedStatement : undefined;

/**
 * Runs a compiled statement whose text never changes (its values are parameters): outside a transaction on
 * PostgreSQL as a named prepared statement, parsed and planned once per connection; otherwise as kysely would.
 */
export async function runStatement<R>(exec: Executor, query: CompiledQuery<R>): Promise<R[]> {
  const named = namedStatement(exec);
  return named ? ((await named(query.sql, query.parameters)) as R[]) : (await exec.executeQuery(query)).rows;
}

/**
 * SQLite on disk: its checkpoints from now on run in a worker thread, off the event loop (checkpointer.ts), until the
 * returned checkpointer is closed (before the database); `onFailure` hears why one could not. Null on PostgreSQL.
 */
export const checkpointInBackground = (db: Db, onFailure: (message: string) => void): Checkpointer | null =>
  (db.extras.engine === "sqlite" ? db.extras.checkpointInBackground?.(onFailure) : null) ?? null;
