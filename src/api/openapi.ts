// Loose shapes of the parts of an OpenAPI 3.1 document touched here.
interface Header {
  description: string;
  schema: { type: string };
}
interface Response {
  description?: string;
  headers?: Record<string, Header>;
  content?: unknown;
}
interface Operation {
  security?: unknown[];
  requestBody?: unknown;
  responses?: Record<string, Response>;
}
interface Document {
  info?: object;
  servers?: Array<{ url: string; description: string }>;
  paths?: Record<string, Partial<Record<"get" | "post", Operation>> | undefined>;
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
const RETRY_AFTER: Header = { description: "Seconds until a retry is allowed", schema: { type: "integer" } };

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
    for (const method of ["get", "post"] as const) {
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
          responses[status].headers = { ...RATE_LIMIT_HEADERS, ...responses[status].headers };
        }
      }
      if (operation.requestBody) {
        responses[413] = errorResponse(413);
        responses[415] = errorResponse(415);
      }
      responses[500] = errorResponse(500);
      operation.responses = responses;
    }
  }
  const schemas = doc.components?.schemas ?? {};
  for (;;) {
    const text = JSON.stringify({ paths: doc.paths, schemas });
    const unused = Object.keys(schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`));
    if (!unused.length) break;
    for (const name of unused) delete schemas[name];
  }
  return doc;
}
