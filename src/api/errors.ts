import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import type { z } from "zod";
import { DomainError, type ErrorCode, type ErrorDetails, reasonIn } from "../core/model/errors.js";
import { toUsdt } from "../core/model/money.js";
import type { ErrorBodyCode, errorBody, insufficientFundsBody } from "../wire/common.js";

/** The contract's error bodies, as the wire's schemas have them. */
type ErrorBody = z.output<typeof errorBody>;
type InsufficientFundsBody = z.output<typeof insufficientFundsBody>;

/** The contract's Error body: the message, its error_code, and the field or the wait when there are. */
function errorBodyOf(message: string, code: ErrorBodyCode, extra: { retryAfter?: number | null; field?: string } = {}): ErrorBody {
  // Every 429 says when to come back, in the body (and in Retry-After).
  const wait = extra.retryAfter === undefined ? {} : { retry_after: extra.retryAfter };
  return { success: false, error: message, ...wait, error_code: code, ...(extra.field ? { field: extra.field } : {}) };
}

/**
 * How one core error leaves over HTTP: its status and the headers it adds, and its body: the Error body with the
 * error_code it has when its details carry no reason, or a body of its own.
 */
type Refusal<C extends ErrorCode> = { status: number; headers?: (details: ErrorDetails<C>) => Record<string, string> } & (
  | { code: ErrorBodyCode; body?: undefined }
  | { code?: undefined; body: (message: string, details: ErrorDetails<C>) => ErrorBody | InsufficientFundsBody }
);

/**
 * The one place a core error becomes an HTTP answer: one row per error code (a new code without a row does not
 * compile). A row without a body answers the contract's Error body, with the error's reason as error_code, or the
 * row's own code when it has none: every error answer carries one (decision 0032).
 */
const REFUSALS: { [C in ErrorCode]: Refusal<C> } = {
  invalid_input: { status: 400, code: "invalid_input" },
  unauthorized: { status: 401, code: "unauthorized" },
  insufficient_funds: {
    status: 402,
    body: (message, details) => ({
      success: false,
      error: message,
      error_code: "insufficient_funds",
      required_usdt: toUsdt(details.requiredMicro),
      balance_usdt: toUsdt(details.balanceMicro),
    }),
  },
  key_blocked: { status: 403, code: "key_blocked" },
  forbidden: { status: 403, code: "forbidden" },
  not_found: { status: 404, code: "not_found" },
  rate_limited: {
    status: 429,
    body: (message, details) => errorBodyOf(message, "rate_limited", { retryAfter: details.retryAfterSeconds }),
    headers: (details) => ({ "retry-after": String(details.retryAfterSeconds) }),
  },
  // The contract's own word for a failed delivery.
  upstream_failed: { status: 502, code: "provider_error" },
  unavailable: { status: 503, code: "unavailable" },
};

/** Fastify's own refusals (bad JSON, content type, size, and any other 4xx) by status; any other 4xx is bad input. */
const CLIENT_ERROR_CODES: Record<number, ErrorBodyCode> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  413: "body_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

const contexts: Record<string, string> = { body: "body", querystring: "query", params: "path" };

type Issue = NonNullable<FastifyError["validation"]>[number];

/** The field an issue is about, dotted (`items.0.name`); an unknown field is named itself. None: the whole body. */
function fieldOf(issue: Issue): string | undefined {
  const path = issue.instancePath.split("/").filter(Boolean);
  const keys = issue.keyword === "unrecognized_keys" ? (issue.params as { keys?: string[] }).keys : undefined;
  if (keys?.[0]) path.push(keys[0]);
  return path.length ? path.join(".") : undefined;
}

function validationMessage(error: FastifyError): string {
  const where = contexts[error.validationContext ?? "body"] ?? "request";
  return (error.validation ?? [])
    .map((issue) => {
      const field = fieldOf(issue);
      if (field) return issue.message ?? `${field} is invalid`;
      return where === "body" ? "the request body must be a JSON object" : `${where}: ${issue.message}`;
    })
    .join("; ");
}

/** A refusal in the words of the caller's own language (the Mini App's user), or null for the API's English. */
export type Localize = (request: FastifyRequest, error: DomainError) => string | null;

/** A core error's row of REFUSALS: its status, body and headers, the details read as that code's. */
function answerOf<C extends ErrorCode>(code: C, details: ErrorDetails<C>, message: string) {
  const refusal: Refusal<C> = REFUSALS[code];
  const body = refusal.body ? refusal.body(message, details) : errorBodyOf(message, reasonIn(details) ?? refusal.code);
  return { status: refusal.status, headers: refusal.headers?.(details) ?? {}, body };
}

/** A core error as its row of REFUSALS has it; headers already set on the answer (a Retry-After) are kept. */
function sendDomainError(reply: FastifyReply, error: DomainError, message = error.message) {
  const answer = answerOf(error.code, error.details, message);
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!reply.hasHeader(name)) reply.header(name, value);
  }
  return reply.code(answer.status).send(answer.body);
}

/**
 * A request that failed validation: invalid input naming the field of the first problem, with the reason the route
 * names for a field, if it does.
 */
function sendValidationError(request: FastifyRequest, reply: FastifyReply, error: FastifyError) {
  // Routes whose contract has machine-readable reasons name them per field (store: login, amount_usd).
  const codes = request.routeOptions.config?.fieldErrorCodes ?? {};
  const fields = (error.validation ?? []).map(fieldOf);
  const coded = fields.find((field) => field && codes[field]);
  const field = coded ?? fields.find(Boolean);
  const code = coded ? codes[coded]! : "invalid_input";
  return reply.code(REFUSALS.invalid_input.status).send(errorBodyOf(validationMessage(error), code, { field }));
}

/**
 * Every error leaves as the contract's Error body: core errors by their code, request validation as 400,
 * Fastify's own client errors (bad JSON, wrong content type, body too large) with their 4xx status, and
 * anything else as a logged 500 that says nothing of the internals.
 */
export const errorHandler = (localize: Localize | null) => (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
  if (error instanceof DomainError) {
    // A refusal carrying the engine's own error (a database fault): the caller reads the reason, the log the cause.
    if (error.cause !== undefined) request.log.error({ err: error.cause, reason: reasonIn(error.details) }, error.message);
    return sendDomainError(reply, error, localize?.(request, error) ?? error.message);
  }
  if (hasZodFastifySchemaValidationErrors(error)) return sendValidationError(request, reply, error);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Every 429 says when to come back, whichever path refused it.
    const retryAfter = status === 429 ? Number(reply.getHeader("retry-after")) || null : undefined;
    return reply.code(status).send(errorBodyOf(clientErrorMessage(error), CLIENT_ERROR_CODES[status] ?? "invalid_input", { retryAfter }));
  }
  request.log.error({ err: error }, "unhandled error");
  return reply.code(500).send(errorBodyOf("Internal error: the request was not completed", "internal_error"));
};

/** Any path no route has. */
export const notFoundHandler = (request: FastifyRequest, reply: FastifyReply) =>
  reply.code(REFUSALS.not_found.status).send(errorBodyOf(`No such endpoint: ${request.method} ${request.url.split("?")[0]}`, "not_found"));

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
