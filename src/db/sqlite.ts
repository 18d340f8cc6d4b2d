import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type Driver,
  type KyselyConfig,
  type KyselyPlugin,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
  type UnknownRow,
} from "kysely";
import { type Checkpointer, FALLBACK_CHECKPOINT_PAGES, startCheckpointer } from "./checkpointer.js";
import { type DirectRead, guardedRead } from "./direct-read.js";
import { loadSqliteDriver } from "./native.js";
import { exact, exactInteger } from "./exact.js";
import { type DatabaseFault, guardDriver } from "./faults.js";
import { type DiskFlush, type WalFlusher, walFlusher } from "./wal-flush.js";

// SQLite's half of database.ts: the file and its pragmas, transactions that begin IMMEDIATE, the group commit,
// rows as PostgreSQL gives them, the reader connection for hot reads, and the background checkpointer.

export interface SqliteOptions {
  /** SQLite only: told of each flush of the WAL to disk (wal-flush.ts), for the metrics. */
  onDiskFlush?: (flush: DiskFlush) => void;
  /** Told of every fault a statement met (faults.ts): the monitor alerts on them. */
  onFault?: (fault: DatabaseFault) => void;
}

/** What an open SQLite database carries beside kysely's (database.ts's Db); neither in memory. */
export interface SqliteExtras {
  engine: "sqlite";
  /** Hot reads on the read-only connection, synchronously, committed data only. */
  directRead?: DirectRead;
  /** Moves the checkpoints to a worker thread (checkpointer.ts) until the checkpointer returned is closed. */
  checkpointInBackground?: (onFailure: (message: string) => void) => Checkpointer;
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

/** What `make` gives for each SQL text, kept per text (an LRU of STATEMENT_CACHE). */
function perStatement<T>(make: (text: string) => T): (text: string) => T {
  const kept = new Map<string, T>();
  return (text: string) => {
    let entry = kept.get(text);
    if (entry) {
      kept.delete(text);
    } else {
      entry = make(text);
      if (kept.size >= STATEMENT_CACHE) kept.delete(kept.keys().next().value!);
    }
    kept.set(text, entry);
    return entry;
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
  const statementFor = perStatement((text) => sqlite.prepare(text));
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

/** Direct reads on SQLite's reader connection: each statement prepared once, with the rowMaker for its columns. */
function sqliteReader(reader: SQLite.Database): DirectRead {
  const statementFor = perStatement((text) => {
    const statement = reader.prepare(text).raw(true);
    return { statement, make: rowMaker(statement.columns().map((column) => column.name)) };
  });
  return (text, parameters) => {
    const { statement, make } = statementFor(text);
    return (statement.all(bind(parameters)) as unknown[][]).map(make);
  };
}

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

/**
 * The SQLite file at `path` (its folder made), or `:memory:`: kysely's configuration for it, and its extras. In WAL
 * mode, so the admin CLI can write while the service runs.
 */
export function openSqlite(path: string, options: SqliteOptions): { config: KyselyConfig; extras: SqliteExtras } {
  // Another Node's native module is one line naming both, not a loader's stack.
  loadSqliteDriver();
  const onDisk = path !== ":memory:";
  if (onDisk) ownerOnly(path);
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  // Commits do not wait for the disk in SQLite; the writer waits after, off the event loop, sharing one flush with
  // the writers of the same moment (wal-flush.ts). FULL would hold the event loop for every commit's disk flush.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  sqlite.defaultSafeIntegers(true);
  // A first read makes the WAL file, which the flusher holds.
  if (onDisk) sqlite.prepare("select count(*) from sqlite_master").get();
  // Hot reads (the key's account on every request) go to a read-only connection of their own, synchronously: they
  // never queue behind a transaction on the main connection, nor see into one (WAL: committed data only).
  const reader = onDisk ? new SQLite(path, { readonly: true, fileMustExist: true }) : null;
  const dialect = new ImmediateSqliteDialect(sqliteDriver(sqlite, reader), onDisk ? walFlusher(path, options.onDiskFlush) : null, options.onFault);
  const extras: SqliteExtras = { engine: "sqlite" };
  if (reader) {
    reader.pragma("busy_timeout = 5000");
    extras.directRead = guardedRead(sqliteReader(reader), options.onFault);
    extras.checkpointInBackground = (onFailure) => {
      const checkpointer = startCheckpointer(path, onFailure);
      sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
      return checkpointer;
    };
  }
  return { config: { dialect, plugins: [rowsAsOnPostgres] }, extras };
}
