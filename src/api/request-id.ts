import { AsyncResource } from "node:async_hooks";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance, FastifyRequest } from "fastify";
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

/** Where each request's context is held while Fastify reads its body (stream events run outside it). */
const contexts = new WeakMap<FastifyRequest, AsyncResource>();

/**
 * Runs every request under its id (src/observability/context.ts), so that the provider calls and the
 * warnings it causes carry it, and answers it in `X-Request-Id` on every answer (errors and 404s too).
 * Register first, before any other hook.
 */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook("onRequest", (request, _reply, done) => {
    withRequestId(request.id, () => {
      const context = new AsyncResource("partner-api-request");
      contexts.set(request, context);
      context.runInAsyncScope(done);
    });
  });
  // The body is read in the socket's own context: the request's is entered again before validation.
  app.addHook("preValidation", (request, _reply, done) => {
    const context = contexts.get(request);
    if (context) context.runInAsyncScope(done);
    else done();
  });
  app.addHook("onSend", async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
}
