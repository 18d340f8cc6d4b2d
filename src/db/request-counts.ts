import { sql } from "kysely";
import type { Executor } from "./database.js";

/**
 * Counts one request of `key` in the window starting at `windowStart` (ms since the epoch); returns the hits of
 * that window, this one included. One upsert per request.
 */
export async function countHit(exec: Executor, key: string, windowStart: number): Promise<number> {
  const row = await exec
    .insertInto("rate_limits")
    .values({ key, window_start: windowStart, hits: 1 })
    .onConflict((oc) =>
      // Only a newer window starts the count afresh: an instance whose clock lags counts into the current one.
      oc.column("key").doUpdateSet({
        hits: sql<number>`case when excluded.window_start > rate_limits.window_start then 1 else rate_limits.hits + 1 end`,
        window_start: sql<number>`case when excluded.window_start > rate_limits.window_start then excluded.window_start else rate_limits.window_start end`,
      }),
    )
    .returning("hits")
    .executeTakeFirstOrThrow();
  return row.hits;
}

/** Deletes the counts of windows that started before `before` (ms since the epoch); returns how many. */
export async function purgeRequestCounts(exec: Executor, before: number): Promise<number> {
  const result = await exec.deleteFrom("rate_limits").where("window_start", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
