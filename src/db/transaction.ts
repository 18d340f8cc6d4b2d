import type { Transaction } from "kysely";
import type { Db } from "./database.js";
import type { Database } from "./schema.js";

/** An open transaction: what repositories are handed to take part in it. */
export type Trx = Transaction<Database>;

/** Runs `work` in one transaction: it commits when `work` resolves and rolls back when it throws. */
export function transaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
