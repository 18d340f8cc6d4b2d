import type { Executor } from "./database.js";

// Until the merge: the storage branch's db/quotes.ts holds the same `purgeQuotes`, and this file goes.
/** Deletes unused quotes that expired before `before`; returns how many. */
export async function purgeQuotes(exec: Executor, before: string): Promise<number> {
  const result = await exec.deleteFrom("quotes").where("order_id", "is", null).where("expires_at", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
