import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { CompiledQuery, type Driver, Kysely, SqliteDialect, type Transaction } from "kysely";
import type { Database } from "./schema.js";

export type Db = Kysely<Database>;
/** Repositories take either the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * SQLite's deferred BEGIN takes the write lock only at the first write, and cannot get it once another
 * connection (the admin CLI, say) has committed since the transaction's first read: it fails with
 * SQLITE_BUSY at once. Every transaction here writes, so each begins IMMEDIATE and waits its turn instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    return driver;
  }
}

/** Opens the SQLite file (creating its folder), in WAL mode so the admin CLI can write while the service runs. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // SQLite returns BIGINT columns as JS numbers; every money value is a safe integer (see core/money.ts).
  return new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
}
