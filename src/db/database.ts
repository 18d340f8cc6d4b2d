import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, type Transaction } from "kysely";
import type { Database } from "./schema.js";

export type Db = Kysely<Database>;
/** Repositories take either the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** Opens the SQLite file (creating its folder), in WAL mode so the admin CLI can write while the service runs. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("foreign_keys = ON");
  // SQLite returns BIGINT columns as JS numbers; every money value is a safe integer (see core/money.ts).
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
}
