import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { type Driver, type KyselyConfig, PostgresDialect, type UnknownRow } from "kysely";
import type Pg from "pg";
import { type DirectRead, guardedRead } from "./direct-read.js";
import { exactInteger } from "./exact.js";
import { type DatabaseFault, guardDriver, StatementTimeout } from "./faults.js";

// PostgreSQL's half of database.ts: the pool, the bound on each statement's answer, exact integers, and named
// prepared statements for hot reads.

/** pg, required when a PostgreSQL database is opened: a process on SQLite (an admin command) never loads it. */
const loadPg = (): typeof Pg => createRequire(import.meta.url)("pg");

export interface PostgresOptions {
  /** PostgreSQL only: the most connections this process holds. */
  poolMax?: number;
  /**
   * PostgreSQL only: commits do not wait for the WAL to reach disk (`synchronous_commit = off`). Only for
   * data whose last moments may be lost in a database crash: the request counters, never money.
   */
  unsyncedCommits?: boolean;
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

/** What an open PostgreSQL database carries beside kysely's (database.ts's Db). */
export interface PostgresExtras {
  engine: "postgres";
  /**
   * Runs a statement of its own (a read or a write) outside any transaction as a named prepared statement on the
   * pool (parsed and planned once per connection), in one round trip: also the direct reader for hot reads.
   */
  namedStatement: DirectRead;
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
function boundedClient(pg: typeof Pg, boundMs: number) {
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

// 64-bit integers (ids, counts, money) arrive as strings from pg (int8, and numeric from sum()): exact numbers here.
const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** PostgreSQL at `url`: kysely's configuration for it, and its extras. */
export function openPostgres(url: string, options: PostgresOptions): { config: KyselyConfig; extras: PostgresExtras } {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolMax ?? 10,
    ...(options.unsyncedCommits ? { options: "-c synchronous_commit=off" } : {}),
    ...(options.timeoutMs ? { Client: boundedClient(pg, options.timeoutMs) } : {}),
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
  // Hot reads outside a transaction: one round trip as a named prepared statement (parsed and planned once per
  // connection), straight on the pool.
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `hot_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`));
    return name;
  };
  const namedStatement = guardedRead(
    async (text, parameters) => (await pool.query({ name: nameOf(text), text, values: [...parameters] })).rows as UnknownRow[],
    options.onFault,
  );
  return { config: { dialect: new GuardedPostgresDialect({ pool }, options.onFault) }, extras: { engine: "postgres", namedStatement } };
}
