import { sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Clock } from "./ports.js";

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  hits: number;
  /** Until the window ends. */
  ttlMs: number;
}

/**
 * Requests per key in fixed windows aligned to the clock, counted in the database so that every instance
 * on it counts together: one upsert per request. Rows of windows long gone are purged now and then.
 */
export function createRequestCounter(db: Db, clock: Clock) {
  let purgedAt = 0;
  return {
    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const now = clock.now().getTime();
      const start = Math.floor(now / windowMs) * windowMs;
      const row = await db
        .insertInto("rate_limits")
        .values({ key, window_start: start, hits: 1 })
        .onConflict((oc) =>
          // Only a newer window starts the count afresh: an instance whose clock lags counts into the current one.
          oc.column("key").doUpdateSet({
            hits: sql<number>`case when excluded.window_start > rate_limits.window_start then 1 else rate_limits.hits + 1 end`,
            window_start: sql<number>`case when excluded.window_start > rate_limits.window_start then excluded.window_start else rate_limits.window_start end`,
          }),
        )
        .returning("hits")
        .executeTakeFirstOrThrow();
      if (now - purgedAt > windowMs) {
        purgedAt = now;
        await db.deleteFrom("rate_limits").where("window_start", "<", start).execute();
      }
      return { hits: Number(row.hits), ttlMs: start + windowMs - now };
    },
  };
}

export type RequestCounter = ReturnType<typeof createRequestCounter>;
