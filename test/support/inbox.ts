import type { Db } from "../../src/db/database.js";
import { eventually } from "./harness.js";

/**
 * Waits until the bot has handled these updates (their inbox rows are done), so whatever they were to do is done:
 * a check that a second tap did nothing can follow at once instead of after a sleep.
 */
export async function handled(db: Db, updateIds: number[], timeoutMs = 10_000): Promise<void> {
  await eventually(async () => {
    const done = await db.selectFrom("bot_inbox").select("update_id").where("update_id", "in", updateIds).where("done_at", "is not", null).execute();
    return done.length === updateIds.length ? true : undefined;
  }, timeoutMs);
}
