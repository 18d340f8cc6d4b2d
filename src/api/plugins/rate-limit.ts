import rateLimit from "@fastify/rate-limit";
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { DomainError } from "../../core/model/errors.js";
import type { RequestCounter } from "../../core/request-counter.js";
import { rateLimitKey } from "../caller.js";
import { sharedRateLimit } from "../shared-rate-store.js";
import { RATE_LIMIT_WINDOW_SECONDS } from "../rate-window.js";

interface RateLimitOptions {
  perMinute: number;
  /** The core's shared counter (every instance counts in the database), or none: each instance counts in memory. */
  counter: RequestCounter | null;
}

/**
 * The per-key rate limit (per account for a key or a session, per address without one: src/api/caller.ts), its
 * 429 a core `rate_limited` refusal. Routes added before it, or with `rateLimit: false`, are not limited.
 *
 * Beside @fastify/rate-limit's `x-ratelimit-*`, which stay exactly as they are, the IETF draft's headers
 * (draft-ietf-httpapi-ratelimit-headers: RateLimit-Limit, -Remaining, -Reset and RateLimit-Policy). The plugin's
 * own `enableDraftSpec` would rename its headers instead of adding these, so they are copied from its values as
 * the answer leaves: the same numbers on every keyed answer and 429, whichever store counted.
 */
const rateLimitPlugin: FastifyPluginAsync<RateLimitOptions> = async (app, { perMinute, counter }) => {
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: RATE_LIMIT_WINDOW_SECONDS * 1000,
    ...(counter ? sharedRateLimit(counter) : { keyGenerator: rateLimitKey }),
    errorResponseBuilder: (_request, context) =>
      new DomainError("rate_limited", `Rate limit of ${context.max} requests a minute exceeded: retry in ${context.after}`, {
        retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    const limit = reply.getHeader("x-ratelimit-limit");
    if (limit !== undefined) {
      reply.header("ratelimit-limit", limit);
      reply.header("ratelimit-remaining", reply.getHeader("x-ratelimit-remaining"));
      reply.header("ratelimit-reset", reply.getHeader("x-ratelimit-reset"));
      reply.header("ratelimit-policy", `${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`);
    }
    done(null, payload);
  });
};

export const rateLimits = fp(rateLimitPlugin, { name: "rate-limit", fastify: "5.x", dependencies: ["auth"] });
