import type { FastifyInstance } from "fastify";

/**
 * The IETF draft's rate-limit headers (draft-ietf-httpapi-ratelimit-headers: RateLimit-Limit, -Remaining,
 * -Reset and RateLimit-Policy) beside @fastify/rate-limit's `x-ratelimit-*`, which stay exactly as they are.
 * The plugin's own `enableDraftSpec` would rename its headers instead of adding these, so they are copied from
 * its values as the answer leaves: the same numbers on every keyed answer and 429, whichever store counted.
 */
export function addDraftRateLimitHeaders(app: FastifyInstance, windowSeconds: number) {
  app.addHook("onSend", (_request, reply, payload, done) => {
    const limit = reply.getHeader("x-ratelimit-limit");
    if (limit !== undefined) {
      reply.header("ratelimit-limit", limit);
      reply.header("ratelimit-remaining", reply.getHeader("x-ratelimit-remaining"));
      reply.header("ratelimit-reset", reply.getHeader("x-ratelimit-reset"));
      reply.header("ratelimit-policy", `${limit};w=${windowSeconds}`);
    }
    done(null, payload);
  });
}
