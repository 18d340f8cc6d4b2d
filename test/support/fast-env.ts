import { allProvidersAt } from "../../src/simulator/settings.js";

/**
 * The settings a test's service runs on, written once: every provider at the simulator, no rate limit in the way,
 * a provider call bounded at `upstreamTimeoutMs` and an unanswered order checked half a second after that bound,
 * the reconciler every 200 ms, TON's rate read afresh. A test overrides what it is about after spreading these.
 */
export function fastEnv(simulatorUrl: string, upstreamTimeoutMs = 1000): Record<string, string> {
  return {
    UPSTREAM: "external",
    ...allProvidersAt(simulatorUrl),
    RATE_LIMIT_PER_MINUTE: "100000",
    UPSTREAM_TIMEOUT_MS: String(upstreamTimeoutMs),
    RECONCILE_AFTER_MS: String(upstreamTimeoutMs + 500),
    RECONCILE_INTERVAL_MS: "200",
    TON_RATE_CACHE_SECONDS: "0",
  };
}
