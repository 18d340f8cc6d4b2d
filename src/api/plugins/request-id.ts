import type { IncomingMessage } from "node:http";
import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { newRequestId, saneRequestId, withRequestId } from "../../observability/context.js";
import { requestLogger } from "../../observability/log.js";

const REQUEST_ID_HEADER = "x-request-id";

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
 * Register first, before any other hook. The hooks every request runs take callbacks, not async functions:
 * under AsyncLocalStorage (the request id) each promise costs, and these need none.
 */
const requestIdPlugin: FastifyPluginCallback = (app, _options, done) => {
  // Fastify reads the body under an AsyncResource of its own, made here: the context survives it.
  app.addHook("onRequest", (request, _reply, next) => withRequestId(request.id, next));
  app.addHook("onSend", (request, reply, payload, next) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    next(null, payload);
  });
  done();
};

export const requestId = fp(requestIdPlugin, { name: "request-id", fastify: "5.x" });
