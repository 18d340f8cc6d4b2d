import type { UnknownRow } from "kysely";
import { converted, type DatabaseFault } from "./faults.js";

/** Runs a read's SQL outside kysely's driver: SQLite's reader connection (sqlite.ts), PostgreSQL's pool (postgres.ts). */
export type DirectRead = (text: string, parameters: ReadonlyArray<unknown>) => UnknownRow[] | Promise<UnknownRow[]>;

/** A direct read whose faults become the core's 503, as kysely's statements' do. */
export function guardedRead(read: DirectRead, onFault?: (fault: DatabaseFault) => void): DirectRead {
  return (text, parameters) => {
    try {
      const rows = read(text, parameters);
      return rows instanceof Promise ? rows.catch((error: unknown) => Promise.reject(converted(error, onFault))) : rows;
    } catch (error) {
      throw converted(error, onFault);
    }
  };
}
