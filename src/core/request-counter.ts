import type { Db } from "../db/database.js";
import { countHit, keyHolderCounted } from "../db/request-counts.js";
import type { ReadWithKey } from "./model/account.js";
import { isDatabaseUnavailable, unavailable } from "./model/errors.js";
import type { Clock } from "./model/clock.js";

/** The bucket an API key's requests count in: its account's (the Mini App's sessions have one of their own). */
export const KEY_BUCKET_PREFIX = "account:";

export interface WindowCount {
  /** Requests counted in the current window, this one included. */
  hits: number;
  /** Until the window ends. */
  ttlMs: number;
}

/** The fixed window `now` falls in, aligned to the clock, and how long until the window in force ends. */
function windowAt(now: number, windowMs: number) {
  const start = Math.floor(now / windowMs) * windowMs;
  // The window counted in may be a newer one (an instance a few ms ahead at the minute's edge): its end is told.
  return { start, ttlMs: (inForce: number) => Math.max(0, Math.max(start, inForce) + windowMs - now) };
}

/**
 * A count that could not be made fails closed: no count, no answer (503), never a key past its limit. A database
 * fault keeps its own reason; the cause of any other failure goes with the refusal, for the log.
 */
const unreachable = (error: unknown) => {
  if (isDatabaseUnavailable(error)) throw error;
  throw unavailable("The request counter cannot be reached: retry later", {}, error);
};

/**
 * Requests per key in fixed windows aligned to the clock, counted in the database so that every instance
 * on it counts together: one upsert per request. Rows of windows long gone are purged by a job (jobs/purges.ts).
 */
export function createRequestCounter(options: { db: Db; clock: Clock }) {
  const { db, clock } = options;
  return {
    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const { start, ttlMs } = windowAt(clock.now().getTime(), windowMs);
      const counted = await countHit(db, key, start).catch(unreachable);
      return { hits: counted.hits, ttlMs: ttlMs(counted.windowStart) };
    },

    /**
     * The live key with this hash (or one in its grace period) and its holder, and (unless the account is blocked) this request counted in the
     * key's bucket (KEY_BUCKET_PREFIX and the account's id), in one round trip: what every keyed request needs first.
     * With `also`, what the request reads first, in the same round trip (an order's status, a sandbox call's endpoint).
     */
    async keyHolder(keyHash: string, windowMs: number, also?: ReadWithKey) {
      const now = clock.now();
      const { start, ttlMs } = windowAt(now.getTime(), windowMs);
      const found = await keyHolderCounted(db, keyHash, KEY_BUCKET_PREFIX, start, now.toISOString(), also).catch(unreachable);
      return found && { counted: found.hits === null ? null : { hits: found.hits, ttlMs: ttlMs(found.windowStart ?? start) }, ...found };
    },
  };
}

export type RequestCounter = ReturnType<typeof createRequestCounter>;
