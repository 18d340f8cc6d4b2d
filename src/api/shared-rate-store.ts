import type { FastifyRequest } from "fastify";
import type { RequestCounter, WindowCount } from "../core/request-counter.js";
import { rateLimitKey } from "./caller.js";

type Incremented = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A @fastify/rate-limit store over the core's shared counter, so the limit holds across every instance, and the
 * key generator that goes with it. It fails closed, as the counter does: an instance that cannot count answers 503
 * rather than let a key past its limit (the counter lives in the database every request needs anyway).
 *
 * A request whose key's read already counted it (request.counted, in the same round trip) is not counted again:
 * the generator hands the store a one-off name standing for that count, which the store answers at once.
 */
export function sharedRateLimit(counter: RequestCounter) {
  const counted = new Map<string, WindowCount>();
  let next = 0;
  class SharedRateStore {
    incr(key: string, done: Incremented, timeWindow: number) {
      const hit = counted.get(key);
      if (hit) {
        counted.delete(key);
        return done(null, { current: hit.hits, ttl: hit.ttlMs });
      }
      counter.hit(key, timeWindow).then(
        ({ hits, ttlMs }) => done(null, { current: hits, ttl: ttlMs }),
        (error: Error) => done(error),
      );
    }
    child() {
      return new SharedRateStore();
    }
  }
  return {
    store: SharedRateStore,
    // The store's incr follows the generator's call at once (nothing between them can fail), so each name is taken.
    keyGenerator(request: FastifyRequest): string {
      if (!request.counted) return rateLimitKey(request);
      const name = `counted:${++next}`;
      counted.set(name, request.counted);
      return name;
    },
  };
}
