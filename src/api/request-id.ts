import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";
import { newRequestId, saneRequestId, withRequestId } from "../observability/context.js";
import { requestLogger } from "../observability/log.js";

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * Fastify options: the request id is the client's `X-Request-Id` when it is sane (1 to 64 of
 * `A-Z a-z 0-9 . _ : -`, not key-shaped), else a new UUID; a header that is not sane is never logged.
 */
export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId: (raw: IncomingMessage) => saneRequestId(raw.headers[REQUEST_ID_HEADER]) ?? newRequestId(),
  childLoggerFactory: requestLogger,
};

/**
 * Runs every request under its id (src/observability/context.ts), so that the provider calls and the
 * warnings it causes carry it, and answers it in `X-Request-Id` on every answer (errors and 404s too).
 * Register first, before any other hook.
 */
export function registerRequestId(app: FastifyInstance): void {
  // Fastify reads the body under an AsyncResource of its own, made here: the context survives it.
  app.addHook("onRequest", (request, _reply, done) => withRequestId(request.id, done));
  app.addHook("onSend", (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done(null, payload);
  });
}
