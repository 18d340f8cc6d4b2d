import type { Executor } from "./database.js";
import type { StarBookTable } from "./schema.js";

// The bot's Star book: what came in and went out, one row per Telegram transaction and kind, so a payment or a
// refund seen twice (an update repeated, a reconciliation after it) is recorded once.

export type StarEntry = Omit<StarBookTable, "id">;

/** Records an entry unless one of its kind and transaction (or order) is there; true when this call recorded it. */
export async function recordStars(exec: Executor, entry: StarEntry): Promise<boolean> {
  const result = await exec
    .insertInto("star_book")
    .values(entry)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}
