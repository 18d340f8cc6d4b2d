import type { DatabaseConnection, Driver, QueryResult } from "kysely";
import { DomainError, type FaultKind, isDatabaseUnavailable, unavailable } from "../core/model/errors.js";

/**
 * A database that cannot do its part now, as opposed to a statement that is wrong: it does not answer in time, cannot
 * be reached, has no room left, is locked past its wait, or cannot read or write its files. A request meeting one is
 * answered 503 (retry later), never 500; the transaction it was in is rolled back (by the engine, or with the session).
 */
export interface DatabaseFault {
  kind: FaultKind;
  /** The engine's code (SQLITE_FULL, 57P01, ECONNREFUSED, …) or the driver's message. */
  code: string;
  message: string;
  at: Date;
}

/** What a caller is told: the cause stays in the log. */
const MESSAGES: Record<FaultKind, string> = {
  timeout: "The database did not answer in time: retry later",
  unreachable: "The database cannot be reached: retry later",
  full: "The database has no room to store this (its disk is full): retry later",
  busy: "The database is busy: retry later",
  io: "The database cannot read or write its files: retry later",
};

/** A statement not answered within its bound (database.ts): its connection was closed, and whatever it held went with it. */
export class StatementTimeout extends Error {
  readonly code = "STATEMENT_TIMEOUT";
  constructor(boundMs: number) {
    super(`no answer from the database within ${boundMs} ms`);
    this.name = "StatementTimeout";
  }
}

// PostgreSQL: connection exceptions (08…), the server shutting down or starting (57P0x), out of resources (53…),
// a statement cancelled (57014, statement_timeout). Node's socket errors and pg's own words for a lost connection.
const PG_STATES: Array<[RegExp, FaultKind]> = [
  [/^08/, "unreachable"],
  [/^57P0[123]$/, "unreachable"],
  [/^53100$/, "full"],
  [/^53/, "busy"],
  [/^57014$/, "timeout"],
];
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const PG_LOST = /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/** The fault an engine's error stands for, or null for an error of the statement itself (a constraint, a syntax error). */
function faultOf(error: unknown): Omit<DatabaseFault, "at"> | null {
  if (!(error instanceof Error)) return null;
  const code = String((error as { code?: unknown }).code ?? "");
  const fault = (kind: FaultKind) => ({ kind, code: code || error.message, message: error.message });
  if (error instanceof StatementTimeout) return fault("timeout");
  if (code.startsWith("SQLITE_")) {
    if (code === "SQLITE_FULL") return fault("full");
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return fault("busy");
    if (code.startsWith("SQLITE_IOERR") || code === "SQLITE_CANTOPEN" || code === "SQLITE_NOMEM") return fault("io");
    return null;
  }
  for (const [state, kind] of PG_STATES) if (state.test(code)) return fault(kind);
  if (SOCKET_CODES.has(code)) return fault("unreachable");
  if (PG_LOST.test(error.message)) return fault(/timeout/.test(error.message) ? "timeout" : "unreachable");
  return null;
}

/** The core's `unavailable` (503) for a fault, carrying the engine's error as its cause; null for any other error. */
function asUnavailable(error: unknown): DomainError | null {
  if (error instanceof DomainError) return null;
  const fault = faultOf(error);
  return fault ? unavailable(MESSAGES[fault.kind], { reason: "database_unavailable" }, error) : null;
}

/** The error a caller should meet: a fault as the core's 503 (and reported), any other error as it is. */
export function converted(error: unknown, onFault?: (fault: DatabaseFault) => void): unknown {
  const made = asUnavailable(error);
  if (!made) return error;
  onFault?.({ ...faultOf(error)!, at: new Date() });
  return made;
}

export interface GuardOptions {
  /** Told of every fault met (the monitor alerts on them). */
  onFault?: (fault: DatabaseFault) => void;
  /** SQLite: whether the connection is still in a transaction (after SQLITE_FULL or SQLITE_IOERR it may not be). */
  inTransaction?: () => boolean;
}

/**
 * Every statement of kysely's driver, with its faults made the core's 503 (the cause kept) and reported, and a
 * rollback that cannot hide the error that caused it: SQLite rolls back by itself on SQLITE_FULL (kysely's ROLLBACK
 * then failed with "no transaction is active", over the real cause), and a PostgreSQL connection that was lost has
 * nothing left to roll back (the server ends the session's transaction; the pool drops the connection).
 */
export function guardDriver(driver: Driver, options: GuardOptions): Driver {
  const guarded = new WeakSet<DatabaseConnection>();
  const convert = (error: unknown) => converted(error, options.onFault);
  const guard = (connection: DatabaseConnection) => {
    if (guarded.has(connection)) return connection;
    const execute = connection.executeQuery.bind(connection);
    connection.executeQuery = <R>(query: Parameters<typeof execute>[0]): Promise<QueryResult<R>> => {
      try {
        return execute<R>(query).catch((error: unknown) => Promise.reject(convert(error)));
      } catch (error) {
        // better-sqlite3 throws synchronously.
        return Promise.reject(convert(error));
      }
    };
    guarded.add(connection);
    return connection;
  };
  const acquire = driver.acquireConnection.bind(driver);
  driver.acquireConnection = async () => {
    try {
      return guard(await acquire());
    } catch (error) {
      throw convert(error);
    }
  };
  const rollback = driver.rollbackTransaction.bind(driver);
  driver.rollbackTransaction = async (connection) => {
    try {
      await rollback(connection);
    } catch (error) {
      // Nothing is left to roll back: let the error that led here be the one the caller sees.
      if (options.inTransaction && !options.inTransaction()) return;
      if (isDatabaseUnavailable(error)) return;
      throw error;
    }
  };
  return driver;
}

/** What the monitor reads: the faults met since it last looked, and the last of them. */
export function createFaultLog() {
  let count = 0;
  let last: DatabaseFault | null = null;
  return {
    record(fault: DatabaseFault) {
      count += 1;
      last = fault;
    },
    /** The faults since the last call (their number and the last one), and starts counting anew. */
    take(): { count: number; last: DatabaseFault | null } {
      const taken = { count, last };
      count = 0;
      return taken;
    },
  };
}

export type FaultLog = ReturnType<typeof createFaultLog>;
