import type { Db } from "../db/database.js";
import { countHit } from "../db/request-counts.js";
import type { Clock } from "./ports.js";

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  hits: number;
  /** Until the window ends. */
  ttlMs: number;
}

/**
 * Requests per key in fixed windows aligned to the clock, counted in the database so that every instance
 * on it counts together: one upsert per request. Rows of windows long gone are purged by a job (jobs/purges.ts).
 */
export function createRequestCounter(options: { db: Db; clock: Clock }) {
  const { db, clock } = options;
  return {
    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const now = clock.now().getTime();
      const start = Math.floor(now / windowMs) * windowMs;
      const hits = await countHit(db, key, start);
      return { hits, ttlMs: start + windowMs - now };
    },
  };
}

export type RequestCounter = ReturnType<typeof createRequestCounter>;
