import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { DomainError, type ErrorCode } from "../core/model/errors.js";
import { toUsdt } from "../core/model/money.js";

/** The one place a core error becomes an HTTP status. */
export const httpStatus: Record<ErrorCode, number> = {
  invalid_input: 400,
  unauthorized: 401,
  insufficient_funds: 402,
  key_blocked: 403,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  upstream_failed: 502,
  unavailable: 503,
};

const contexts: Record<string, string> = { body: "body", querystring: "query", params: "path" };

function validationMessage(error: FastifyError): string {
  const where = contexts[error.validationContext ?? "body"] ?? "request";
  return (error.validation ?? [])
    .map((issue) => {
      const path = issue.instancePath.replace(/^\//, "").replaceAll("/", ".");
      if (path) return issue.message ?? `${path} is invalid`;
      return where === "body" ? "the request body must be a JSON object" : `${where}: ${issue.message}`;
    })
    .join("; ");
}

/** A refusal in the words of the caller's own language (the Mini App's user), or null for the API's English. */
export type Localize = (request: FastifyRequest, error: DomainError) => string | null;

export function sendDomainError(reply: FastifyReply, error: DomainError, message = error.message) {
  const status = httpStatus[error.code];
  if (error.code === "insufficient_funds") {
    return reply.code(status).send({
      success: false,
      error: message,
      required_usdt: toUsdt(error.details.requiredMicro ?? 0),
      balance_usdt: toUsdt(error.details.balanceMicro ?? 0),
    });
  }
  const body: Record<string, unknown> = { success: false, error: message };
  if (error.code === "rate_limited") {
    // Every 429 says when to come back, in the body and in Retry-After.
    body.retry_after = error.details.retryAfterSeconds ?? null;
    if (body.retry_after !== null && !reply.hasHeader("retry-after")) reply.header("retry-after", String(body.retry_after));
  }
  if (error.details.reason) body.error_code = error.details.reason;
  return reply.code(status).send(body);
}

/**
 * Every error leaves as the contract's Error body: core errors by their code, request validation as 400,
 * Fastify's own client errors (bad JSON, wrong content type, body too large) with their 4xx status, and
 * anything else as a logged 500 that says nothing of the internals.
 */
export const errorHandler = (localize: Localize | null) => (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
  if (error instanceof DomainError) {
    // A refusal carrying the engine's own error (a database fault): the caller reads the reason, the log the cause.
    if (error.cause !== undefined) request.log.error({ err: error.cause, reason: error.details.reason }, error.message);
    return sendDomainError(reply, error, localize?.(request, error) ?? error.message);
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const body: Record<string, unknown> = { success: false, error: validationMessage(error) };
    // Routes whose contract has machine-readable reasons name them per field (store: login, amount_usd).
    const codes = request.routeOptions.config?.fieldErrorCodes ?? {};
    const field = error.validation?.map((issue) => issue.instancePath.split("/")[1]).find((name) => name && codes[name]);
    if (field) body.error_code = codes[field];
    return reply.code(400).send(body);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const body: Record<string, unknown> = { success: false, error: clientErrorMessage(error) };
    // Every 429 says when to come back, whichever path refused it.
    if (status === 429) body.retry_after = Number(reply.getHeader("retry-after")) || null;
    return reply.code(status).send(body);
  }
  request.log.error({ err: error }, "unhandled error");
  return reply.code(500).send({ success: false, error: "Internal error: the request was not completed" });
};

function clientErrorMessage(error: FastifyError): string {
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return "Content-Type must be application/json";
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return "The request body is too large";
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return "The request body is empty: send a JSON object";
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return "The request body is not valid JSON";
    default:
      return error.message;
  }
}
