import { unavailable } from "../core/errors.js";
import type { RequestCounter } from "../core/request-counter.js";

type Incremented = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * A @fastify/rate-limit store over the core's shared counter, so the limit holds across every instance.
 * It fails closed: an instance that cannot count answers 503 rather than let a key past its limit (the
 * counter lives in the database every request needs anyway).
 */
export function sharedRateStore(counter: RequestCounter) {
  return class SharedRateStore {
    incr(key: string, done: Incremented, timeWindow: number) {
      counter.hit(key, timeWindow).then(
        ({ hits, ttlMs }) => done(null, { current: hits, ttl: ttlMs }),
        () => done(unavailable("The request counter cannot be reached: retry later")),
      );
    }
    child() {
      return new SharedRateStore();
    }
  };
}
