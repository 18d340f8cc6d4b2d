import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type Driver,
  Kysely,
  type KyselyPlugin,
  PostgresAdapter,
  PostgresDialect,
  sql,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  type Transaction,
  type UnknownRow,
} from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";
import { type Checkpointer, FALLBACK_CHECKPOINT_PAGES, startCheckpointer } from "./checkpointer.js";
import { type DiskFlush, type WalFlusher, walFlusher } from "./wal-flush.js";
import { converted, type DatabaseFault, guardDriver, StatementTimeout } from "./faults.js";

export type Db = Kysely<Database>;
/** Repositories take either the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

export type Engine = "sqlite" | "postgres";

/** `postgres://…` (or `postgresql://…`) is PostgreSQL; anything else is a SQLite file path. */
export function engineOf(url: string): Engine {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export interface DatabaseOptions {
  /** PostgreSQL only: the most connections this process holds. */
  poolMax?: number;
  /**
   * PostgreSQL only: commits do not wait for the WAL to reach disk (`synchronous_commit = off`). Only for
   * data whose last moments may be lost in a database crash: the request counters, never money.
   */
  unsyncedCommits?: boolean;
  /** SQLite only: told of each flush of the WAL to disk (wal-flush.ts), for the metrics. */
  onDiskFlush?: (flush: DiskFlush) => void;
  /**
   * PostgreSQL only: the most a statement may wait for its answer, and a request for a connection (from the pool, or
   * a new one) for its own. Past it the connection is closed, and the statement fails as a fault (faults.ts): a server
   * that hangs (stopped, partitioned, a stalled disk) costs a request this long, not the length of the outage.
   * Unset: no bound on statements, 10 s on connections (tools and tests).
   */
  timeoutMs?: number;
  /** Told of every fault a statement met (faults.ts): the monitor alerts on them. */
  onFault?: (fault: DatabaseFault) => void;
}

export function openDatabase(url: string, options: DatabaseOptions = {}): Db {
  return engineOf(url) === "postgres" ? openPostgres(url, options) : openSqlite(url, options.onDiskFlush, options.onFault);
}

const unbounded = new AsyncLocalStorage<true>();

/**
 * Runs `work` with no bound on its statements' answers: those that wait by design (a migration, a lock another
 * holder keeps for as long as its work takes). Their connection is still bounded, and still fails when lost.
 */
export const withoutStatementBound = <T>(work: () => Promise<T>): Promise<T> => unbounded.run(true, work);

type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * pg's client with a bound on each statement's answer. pg's own query_timeout is not enough: it leaves the
 * connection in the pool with the statement still under way, so the next borrower's statements queue behind it,
 * and a ROLLBACK timed out before it was sent is dropped, leaving its transaction open for the next borrower to
 * commit. Here the connection is closed instead: the server rolls back whatever it held, and the pool drops it.
 */
function boundedClient(boundMs: number) {
  return class BoundedClient extends pg.Client {
    // pg's overloads (promise or callback) in one signature.
    override query(config: unknown, values?: unknown, callback?: unknown): any {
      const query = super.query.bind(this) as (...args: unknown[]) => any;
      if (unbounded.getStore()) return query(config, values, callback);
      const timer = setTimeout(() => {
        const connection = (this as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection;
        connection?.stream?.destroy(new StatementTimeout(boundMs));
      }, boundMs);
      const done = typeof values === "function" ? (values as QueryCallback) : typeof callback === "function" ? (callback as QueryCallback) : null;
      if (done) {
        const finish: QueryCallback = (error, result) => {
          clearTimeout(timer);
          done(error, result);
        };
        return typeof values === "function" ? query(config, finish) : query(config, values, finish);
      }
      const result = query(config, values);
      if (result && typeof result.then === "function") {
        return result.finally(() => clearTimeout(timer));
      }
      clearTimeout(timer);
      return result;
    }
  };
}

/** PostgreSQL through kysely, with every statement's faults made the core's 503 (faults.ts). */
class GuardedPostgresDialect extends PostgresDialect {
  constructor(
    config: ConstructorParameters<typeof PostgresDialect>[0],
    private readonly onFault?: (fault: DatabaseFault) => void,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return guardDriver(super.createDriver(), { onFault: this.onFault });
  }
}

/** A direct read whose faults become the core's 503, as kysely's statements' do. */
function guardedRead(read: DirectRead, onFault?: (fault: DatabaseFault) => void): DirectRead {
  return (text, parameters) => {
    try {
      const rows = read(text, parameters);
      return rows instanceof Promise ? rows.catch((error: unknown) => Promise.reject(converted(error, onFault))) : rows;
    } catch (error) {
      throw converted(error, onFault);
    }
  };
}

/**
 * 64-bit integers (ids, counts, money) arrive as strings from pg (int8, and numeric from sum()) and as BigInt
 * from better-sqlite3. They become numbers here, exactly or not at all: a value JavaScript cannot hold
 * exactly is an error, never a rounding.
 */
function exactInteger(text: string): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new RangeError(`database value ${text} is not an integer JavaScript holds exactly`);
  }
  return value;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

function openPostgres(url: string, options: DatabaseOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    ...(options.unsyncedCommits ? { options: "-c synchronous_commit=off" } : {}),
    ...(options.timeoutMs ? { Client: boundedClient(options.timeoutMs) } : {}),
    // A dead peer is noticed (keepalive, after 10 s idle rather than the system's 2 hours), and a pool that has run
    // out, or a server that accepts a connection but never answers it, says so instead of waiting forever.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: options.timeoutMs ?? 10_000,
    // Per pool, not pg's global parsers, so nothing else in the process is affected.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === INT8_OID || oid === NUMERIC_OID ? exactInteger : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A client losing its connection (a database restart) must not crash the process: idle ones are replaced by
  // the pool, and a checked-out one (a held lock) fails its next query, which its holder handles.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<Database>({ dialect: new GuardedPostgresDialect({ pool }, options.onFault) });
  // Hot reads outside a transaction: one round trip as a named prepared statement (parsed and planned once per
  // connection), straight on the pool.
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `hot_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`));
    return name;
  };
  directReads.set(
    db,
    guardedRead(
      async (text, parameters) => (await pool.query({ name: nameOf(text), text, values: [...parameters] })).rows as UnknownRow[],
      options.onFault,
    ),
  );
  return db;
}

/**
 * SQLite's deferred BEGIN takes the write lock only at the first write, and cannot get it once another
 * connection (the admin CLI, say) has committed since the transaction's first read: it fails with
 * SQLITE_BUSY at once. Every transaction here writes, so each begins IMMEDIATE and waits its turn instead.
 * A connection that wrote is released first, then waits until what it wrote is on disk (`durable`, a group
 * commit: see wal-flush.ts), so the next writer need not wait for this one's disk flush.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly database: SqliteConnection,
    private readonly flusher: WalFlusher | null,
    private readonly onFault?: (fault: DatabaseFault) => void,
  ) {
    super({ database });
  }

  override createDriver(): Driver {
    const driver = guardDriver(super.createDriver(), { onFault: this.onFault, inTransaction: () => this.database.inTransaction() });
    const { database, flusher } = this;
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    if (flusher) {
      const release = driver.releaseConnection.bind(driver);
      driver.releaseConnection = async (connection) => {
        const wrote = database.takeWrote();
        await release(connection);
        if (wrote) await flusher.durable();
      };
      const destroy = driver.destroy.bind(driver);
      driver.destroy = async () => {
        await flusher.close();
        await destroy();
      };
    }
    return driver;
  }
}

/** The flag columns: booleans on PostgreSQL, 0/1 integers on SQLite (which has no boolean type). */
const FLAG_COLUMNS = ["blocked", "refunded", "test_event", "succeeded", "firing", "low_balance_notice", "is_premium"];

/** Prepared statements kept per SQL text: kysely asks for one per query, and preparing is most of a read's cost. */
const STATEMENT_CACHE = 500;

/** Prepared statements of one connection, kept per SQL text (an LRU of STATEMENT_CACHE). */
function statementCache(sqlite: SQLite.Database) {
  const prepared = new Map<string, SQLite.Statement>();
  return (text: string) => {
    let statement = prepared.get(text);
    if (statement) {
      prepared.delete(text);
    } else {
      statement = sqlite.prepare(text);
      if (prepared.size >= STATEMENT_CACHE) prepared.delete(prepared.keys().next().value!);
    }
    prepared.set(text, statement);
    return statement;
  };
}

const bind = (parameters: ReadonlyArray<unknown>) => parameters.map((p) => (typeof p === "boolean" ? Number(p) : p));

/** The main connection as kysely's driver sees it, whether it wrote since last asked (what to flush), and whether a transaction is open. */
type SqliteConnection = SqliteDatabase & { takeWrote(): boolean; inTransaction(): boolean };

/**
 * better-sqlite3 for kysely, with two changes: statements are prepared once per SQL text, and the flags go in as
 * 1/0, since better-sqlite3 binds no booleans …
 */
function sqliteDriver(sqlite: SQLite.Database, reader: SQLite.Database | null): SqliteConnection {
  const statementFor = statementCache(sqlite);
  let wrote = false;
  return {
    close: () => {
      reader?.close();
      sqlite.close();
    },
    inTransaction: () => sqlite.inTransaction,
    takeWrote() {
      const answer = wrote;
      wrote = false;
      return answer;
    },
    prepare(text) {
      const statement = statementFor(text);
      // BEGIN, COMMIT and ROLLBACK count as read-only; the statements between them are what wrote.
      if (!statement.readonly) wrote = true;
      return {
        reader: statement.reader,
        all: (parameters) => statement.all(bind(parameters)),
        run: (parameters) => statement.run(bind(parameters)),
        iterate: (parameters) => statement.iterate(bind(parameters)),
      };
    },
  };
}

/**
 * … and rows come out as they do from PostgreSQL: integers (read as BigInt, so none is rounded on the way)
 * become exact numbers or an error, and flags become booleans.
 */
function asOnPostgres(rows: UnknownRow[]): UnknownRow[] {
  for (const row of rows) {
    for (const column in row) if (typeof row[column] === "bigint") row[column] = exactInteger(String(row[column]));
    for (const column of FLAG_COLUMNS) if (typeof row[column] === "number") row[column] = row[column] === 1;
  }
  return rows;
}

const rowsAsOnPostgres: KyselyPlugin = {
  transformQuery: (args) => args.node,
  async transformResult({ result }): Promise<QueryResult<UnknownRow>> {
    asOnPostgres(result.rows as UnknownRow[]);
    return result;
  },
};

/**
 * A row as PostgreSQL's row_to_json writes it, for a statement that reads it together with something else: one
 * column for pg to parse instead of one per field (pg describes and parses every column on every execution).
 * Integers arrive as JSON numbers, so one beyond 2^53 (which a double cannot hold exactly) is an error, as in
 * every other read.
 */
export function rowFromJson<R>(text: string): R {
  const row = JSON.parse(text) as Record<string, unknown>;
  for (const column in row) exact(row[column], column);
  return row as R;
}

/** A value of the reader's: an integer beyond 2^53 (which a double cannot hold exactly) is an error, never a rounding. */
function exact(value: unknown, column: string): unknown {
  if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(`database value ${value} in ${column} is not an integer JavaScript holds exactly`);
  }
  return value;
}

const flag = (value: unknown) => (typeof value === "number" ? value === 1 : value);

/**
 * The reader's rows as asOnPostgres makes them, without a BigInt per integer (integers come as doubles, checked by
 * `exact`; flags become booleans). A statement's rows are read as arrays and made into objects by a function
 * generated once for its columns: objects of one fixed shape cost half of what better-sqlite3's own do (measured
 * on the order page's 23 columns).
 */
function rowMaker(columns: string[]): (values: unknown[]) => UnknownRow {
  const fields = columns.map((name, i) => {
    const key = JSON.stringify(name);
    return `${key}: ${FLAG_COLUMNS.includes(name) ? `flag(v[${i}])` : `exact(v[${i}], ${key})`}`;
  });
  return new Function("flag", "exact", `return (v) => ({ ${fields.join(", ")} });`)(flag, exact) as (values: unknown[]) => UnknownRow;
}

/** Direct reads on SQLite's reader connection: each statement prepared once, its rows made by its own rowMaker. */
function sqliteReader(reader: SQLite.Database): DirectRead {
  const statementFor = statementCache(reader);
  const makers = new WeakMap<SQLite.Statement, (values: unknown[]) => UnknownRow>();
  return (text, parameters) => {
    const statement = statementFor(text);
    let make = makers.get(statement);
    if (!make) {
      make = rowMaker(
        statement
          .raw(true)
          .columns()
          .map((column) => column.name),
      );
      makers.set(statement, make);
    }
    return (statement.all(bind(parameters)) as unknown[][]).map(make);
  };
}

/** Runs a read's SQL outside kysely's driver: SQLite's reader connection (see openSqlite), PostgreSQL's pool. */
export type DirectRead = (text: string, parameters: ReadonlyArray<unknown>) => UnknownRow[] | Promise<UnknownRow[]>;
const directReads = new WeakMap<Executor, DirectRead>();

/** The database's direct reader, for a hot read outside any transaction (none in a transaction). */
export const directReader = (exec: Executor): DirectRead | undefined => directReads.get(exec);

/**
 * PostgreSQL only: runs a statement of its own (a read or a write) outside any transaction as a named prepared
 * statement on the pool, in one round trip (PostgreSQL's direct reader is just that); undefined on SQLite and in a
 * transaction.
 */
export const namedStatement = (exec: Executor): DirectRead | undefined => (isPostgres(exec) ? directReads.get(exec) : undefined);

/**
 * Runs a compiled statement whose text never changes (its values are parameters): outside a transaction on
 * PostgreSQL as a named prepared statement, parsed and planned once per connection; otherwise as kysely would.
 */
export async function runStatement<R>(exec: Executor, query: CompiledQuery<R>): Promise<R[]> {
  const named = namedStatement(exec);
  return named ? ((await named(query.sql, query.parameters)) as R[]) : (await exec.executeQuery(query)).rows;
}

/** Opens the SQLite file (creating its folder), in WAL mode so the admin CLI can write while the service runs. */
/**
 * The database's files are the owner's alone: a folder the service makes is 0700, the database 0600 (made so
 * before SQLite opens it, or tightened when an older start left it wider); SQLite gives its -wal and -shm files the
 * database's mode.
 */
function ownerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, "", { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") throw error;
    }
  }
}

const backgroundCheckpoints = new WeakMap<Db, (onFailure: (message: string) => void) => Checkpointer>();

/**
 * SQLite on disk: its checkpoints from now on run in a worker thread, off the event loop (checkpointer.ts), until the
 * returned checkpointer is closed (before the database); `onFailure` hears why one could not. Null on PostgreSQL.
 */
export const checkpointInBackground = (db: Db, onFailure: (message: string) => void): Checkpointer | null =>
  backgroundCheckpoints.get(db)?.(onFailure) ?? null;

function openSqlite(path: string, onDiskFlush?: (flush: DiskFlush) => void, onFault?: (fault: DatabaseFault) => void): Db {
  if (path !== ":memory:") ownerOnly(path);
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  // Commits do not wait for the disk in SQLite; the writer waits after, off the event loop, sharing one flush with
  // the writers of the same moment (wal-flush.ts). FULL would hold the event loop for every commit's disk flush.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  sqlite.defaultSafeIntegers(true);
  const onDisk = path !== ":memory:";
  // A first read makes the WAL file, which the flusher holds.
  if (onDisk) sqlite.prepare("select count(*) from sqlite_master").get();
  // Hot reads (the key's account on every request) go to a read-only connection of their own, synchronously: they
  // never queue behind a transaction on the main connection, nor see into one (WAL: committed data only).
  const reader = onDisk ? new SQLite(path, { readonly: true, fileMustExist: true }) : null;
  const dialect = new ImmediateSqliteDialect(sqliteDriver(sqlite, reader), onDisk ? walFlusher(path, onDiskFlush) : null, onFault);
  const db = new Kysely<Database>({ dialect, plugins: [rowsAsOnPostgres] });
  if (onDisk) {
    backgroundCheckpoints.set(db, (onFailure) => {
      const checkpointer = startCheckpointer(path, onFailure);
      sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
      return checkpointer;
    });
  }
  if (reader) {
    reader.pragma("busy_timeout = 5000");
    directReads.set(db, guardedRead(sqliteReader(reader), onFault));
  }
  return db;
}

/** Whether the database answers (the health probe): `select 1`, false on any error. */
export function ping(db: Executor): Promise<boolean> {
  return sql`select 1`.execute(db).then(
    () => true,
    () => false,
  );
}

/**
 * Where request counts shared by every instance live: on PostgreSQL (several instances may share it) a small
 * pool of its own whose commits need not wait for the disk; none on SQLite, whose one instance counts in memory.
 */
export const openCounterDatabase = (url: string, bounds: Pick<DatabaseOptions, "timeoutMs" | "onFault"> = {}): Db | undefined =>
  engineOf(url) === "postgres" ? openDatabase(url, { poolMax: 4, unsyncedCommits: true, ...bounds }) : undefined;
