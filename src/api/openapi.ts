import { KEY_EXPIRES_HEADER } from "./plugins/auth.js";
import { eventSchema, type WebhookEventType } from "../wire/events.js";

// Loose shapes of the parts of an OpenAPI 3.1 document touched here.
interface Header {
  description: string;
  required?: boolean;
  schema: { type: string; enum?: string[] };
}
interface Response {
  description?: string;
  headers?: Record<string, Header>;
  content?: unknown;
}
interface Operation {
  /** The mark of a purchase route (src/api/requests.ts REPLAYS), taken off here. */
  "x-idempotent-replayed"?: boolean;
  security?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, Response>;
}
interface Document {
  info?: object;
  webhooks?: Record<string, { post: object }>;
  servers?: Array<{ url: string; description: string }>;
  paths?: Record<string, Partial<Record<"get" | "post" | "delete", Operation>> | undefined>;
  components?: { schemas?: Record<string, unknown> };
}

const ERROR = { $ref: "#/components/schemas/ErrorBody" };

/** What each status means across the API (the contract's Errors table), for responses the routes leave undescribed. */
const MEANINGS: Record<string, string> = {
  200: "Success, or the idempotent replay of an earlier request",
  201: "Sent",
  202: "Accepted and processing: poll the order's status endpoint",
  400: "Validation error (or a refusal with an error_code); nothing charged",
  401: "API key missing or wrong",
  402: "Insufficient balance or funds; nothing charged",
  403: "API key blocked",
  404: "Not found",
  413: "The request body is larger than the service accepts",
  415: "The body is not plain JSON (another Content-Type, or a Content-Encoding)",
  429: "Rate limit exceeded: retry after `retry_after` seconds",
  500: "Internal error: the request was not completed",
  502: "Provider or delivery failure; the balance is refunded",
  503: "Service or product unavailable; retry later",
};

/**
 * The per-key rate limit's headers, on every keyed answer: @fastify/rate-limit's names, and the same values
 * under the IETF draft's names (draft-ietf-httpapi-ratelimit-headers) with the policy.
 */
const RATE_LIMIT_HEADERS: Record<string, Header> = {
  "x-ratelimit-limit": { description: "Requests allowed per minute for this key", schema: { type: "integer" } },
  "x-ratelimit-remaining": { description: "Requests left in the current minute", schema: { type: "integer" } },
  "x-ratelimit-reset": { description: "Seconds until the current minute's window ends", schema: { type: "integer" } },
  "ratelimit-limit": { description: "RateLimit-Limit (IETF draft): the same as x-ratelimit-limit", schema: { type: "integer" } },
  "ratelimit-remaining": { description: "RateLimit-Remaining (IETF draft): the same as x-ratelimit-remaining", schema: { type: "integer" } },
  "ratelimit-reset": { description: "RateLimit-Reset (IETF draft): the same as x-ratelimit-reset, in seconds", schema: { type: "integer" } },
  "ratelimit-policy": {
    description: "RateLimit-Policy (IETF draft): the quota and its window in seconds, e.g. `60;w=60`",
    schema: { type: "string" },
  },
};
/** On every answer, errors and 404s included: the client's own id when it sent a sane one, else ours. */
const REQUEST_ID: Header = {
  description:
    "The id this request is logged under: the request's own `X-Request-Id` header when it is 1 to 64 of `A-Z a-z 0-9 . _ : -`, else one the service made (a UUID). Quote it when asking about a request.",
  schema: { type: "string" },
};
/** On every answer about a purchase's order (2xx, 502): whether it is a replay of an earlier request. */
const IDEMPOTENT_REPLAYED: Header = {
  description:
    "`true`: this is the order an earlier request with the same idempotency_key and the same identifying fields placed, answered again and not charged again. `false`: this request placed the order. The same key with other identifying fields places a new order (contract, idempotency rule 3), answered `false`.",
  required: true,
  schema: { type: "string", enum: ["true", "false"] },
};
/** Sent only while the request's key is a replaced one in its grace period (decision 0033). */
const KEY_EXPIRES: Header = {
  description:
    "Only when the request's key was replaced by a newer one and answers during its grace period: when it stops (ISO 8601 UTC); switch to the new key before then",
  schema: { type: "string" },
};
const RETRY_AFTER: Header = { description: "Seconds until a retry is allowed", schema: { type: "integer" } };

const EVENT_HEADERS = [
  ["X-Webhook-Signature", "t=<unix seconds>,v1=<hex HMAC-SHA256 of `<t>.<raw body>`> (a second v1 during a secret rotation's overlap)"],
  ["X-Webhook-Id", "The event id, as in the body"],
  ["X-Webhook-Type", "The event type, as in the body"],
  ["X-Webhook-Attempt", "1 for the first attempt, then 2, 3, …"],
].map(([name, description]) => ({ name, in: "header", required: true, description, schema: { type: "string" } }));

/** The events POSTed to a key's endpoint (see POST /v1/webhook): OpenAPI 3.1's `webhooks`. */
const webhookEvent = (summary: string, type: WebhookEventType) => ({
  post: {
    summary,
    operationId: `on${type.replace(/(^|\.)([a-z])/g, (_m, _dot, c: string) => c.toUpperCase())}`,
    tags: ["Webhooks"],
    security: [],
    parameters: EVENT_HEADERS,
    requestBody: { required: true, content: { "application/json": { schema: eventSchema(type) } } },
    responses: {
      "200": { description: "Any 2xx: received. Anything else, or no answer within the timeout, is retried with backoff for about a day" },
      "400": { description: "Not accepted (for example a signature that does not verify): retried like any failure" },
    },
  },
});

const WEBHOOKS = {
  "order.completed": webhookEvent("An order completed", "order.completed"),
  "order.failed": webhookEvent("An order failed and was refunded", "order.failed"),
  "balance.changed": webhookEvent("An administrator credited or debited the balance", "balance.changed"),
  ping: webhookEvent("A test event sent on demand (POST /v1/webhook/ping)", "ping"),
};

const errorResponse = (status: number, headers?: Record<string, Header>): Response => ({
  description: MEANINGS[status],
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema: ERROR } },
});

/**
 * Finishes the document generated from the route schemas: the server, a description for every response,
 * the statuses every route can answer (413, 415, 429 with its headers, 500), and no unused components (the
 * zod provider emits an `…Input` twin of every named schema, which nothing refers to).
 */
export function finishDocument(doc: Document): Document {
  doc.servers = [{ url: "/", description: "This service: paths are relative to the address it is reached at" }];
  doc.info = { ...doc.info, license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" } };
  for (const path of Object.values(doc.paths ?? {})) {
    for (const method of ["get", "post", "delete"] as const) {
      const operation = path?.[method];
      if (!operation) continue;
      const responses = operation.responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        if (!response.description || response.description === "Default Response") response.description = MEANINGS[status] ?? "Answer";
      }
      const keyed = !(Array.isArray(operation.security) && operation.security.length === 0);
      if (keyed) {
        responses[429] = errorResponse(429, { ...RATE_LIMIT_HEADERS, "retry-after": RETRY_AFTER });
        for (const status of Object.keys(responses).filter((s) => s.startsWith("2"))) {
          responses[status].headers = { ...RATE_LIMIT_HEADERS, [KEY_EXPIRES_HEADER]: KEY_EXPIRES, ...responses[status].headers };
        }
      }
      if (operation["x-idempotent-replayed"]) {
        delete operation["x-idempotent-replayed"];
        for (const status of Object.keys(responses).filter((s) => s.startsWith("2") || s === "502")) {
          responses[status].headers = { ...responses[status].headers, "idempotent-replayed": IDEMPOTENT_REPLAYED };
        }
      }
      if (operation.requestBody) {
        responses[413] = errorResponse(413);
        responses[415] = errorResponse(415);
      }
      responses[500] = errorResponse(500);
      for (const response of Object.values(responses)) response.headers = { "x-request-id": REQUEST_ID, ...response.headers };
      operation.responses = responses;
    }
  }
  doc.webhooks = WEBHOOKS;
  const schemas = doc.components?.schemas ?? {};
  for (;;) {
    const text = JSON.stringify({ paths: doc.paths, webhooks: doc.webhooks, schemas });
    const unused = Object.keys(schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`));
    if (!unused.length) break;
    for (const name of unused) delete schemas[name];
  }
  // By name: the order modules happen to load in says nothing, and must not churn the document.
  if (doc.components) doc.components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : 1)));
  return doc;
}
