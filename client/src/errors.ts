import type { components } from "./api-types.js";

/** The service's Error body (docs/api-guide.md, Errors): `success: false`, a sentence, and a machine-readable reason where there is one. */
export type ErrorBody = components["schemas"]["ErrorBody"];
/** The 402 body: the charge and the balance that did not cover it. */
export type InsufficientFundsBody = components["schemas"]["InsufficientFunds"];
/** The closed set of machine-readable reasons (`error_code`). */
export type ErrorCode = NonNullable<ErrorBody["error_code"]>;

/** What every error of a request carries, so that a caller can retry it safely and quote it. */
interface RequestContext {
  /** The purchase's idempotency key (the caller's, or the one the client made): retry with it, never charge twice. */
  idempotencyKey?: string | null;
  /** The request's id (`X-Request-Id`, sent by the client and logged by the service): quote it when asking. */
  requestId?: string | null;
}

/**
 * Every error the client throws about a request: `PartnerApiError` (the service answered a refusal),
 * `PartnerConnectionError` (no answer: refused, DNS, reset, a redirect), `PartnerTimeoutError` (no answer in time),
 * `IdempotencyKeyReuseError` (refused before sending). Each carries the request's idempotency key and id.
 */
export class PartnerClientError extends Error {
  override readonly name: string = "PartnerClientError";
  /** The purchase's idempotency key (the caller's or the one the client made), else null: a retry with it never charges twice. */
  readonly idempotencyKey: string | null;
  /** The request's id in the service's logs (`X-Request-Id`): quote it when asking about a request. */
  readonly requestId: string | null;

  constructor(message: string, context: RequestContext, options?: { cause?: unknown }) {
    super(message, options);
    this.idempotencyKey = context.idempotencyKey ?? null;
    this.requestId = context.requestId ?? null;
  }
}

/**
 * No answer: the connection was refused or reset, the name did not resolve, TLS failed, or the service answered a
 * redirect (never followed: the key and the body would go elsewhere; `code` is `redirect`). A purchase may or may
 * not have been placed: retry it with `idempotencyKey`. `cause` is the fetch's own error.
 */
export class PartnerConnectionError extends PartnerClientError {
  override readonly name = "PartnerConnectionError";
  /** The system's code (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, …), `redirect`, or null when there is none. */
  readonly code: string | null;
  constructor(code: string | null, context: RequestContext, cause: unknown) {
    const detail = code === "redirect" ? "the service answered a redirect, which the client never follows: check baseUrl" : (code ?? String(cause));
    super(`No answer from the service (${detail})`, context, { cause });
    this.code = code;
  }
}

/** No answer within `timeoutMs` (after the retries): a purchase may or may not have been placed; retry it with `idempotencyKey`. */
export class PartnerTimeoutError extends PartnerClientError {
  override readonly name = "PartnerTimeoutError";
  constructor(
    readonly timeoutMs: number,
    context: RequestContext,
    cause: unknown,
  ) {
    super(`No answer from the service within ${timeoutMs} ms`, context, { cause });
  }
}

/**
 * A purchase's idempotency key this client has already sent with other identifying fields: the service would place
 * a second order and charge again (the contract's idempotency rule 3). Refused before any request; use a new key.
 */
export class IdempotencyKeyReuseError extends PartnerClientError {
  override readonly name = "IdempotencyKeyReuseError";
  constructor(idempotencyKey: string) {
    super(
      `Idempotency key "${idempotencyKey}" was already sent with other fields: the service would place and charge a second order; use a new key`,
      { idempotencyKey },
    );
  }
}

/**
 * A refusal from the API (any non-2xx answer): its status, its sentence (`error`), its reason (`error_code`), the
 * field a validation error names, and the extra fields of the status (`required_usdt`/`balance_usdt` on 402,
 * `retry_after` on 429). A purchase's 502 is a `PurchaseFailedError`.
 */
export class PartnerApiError extends PartnerClientError {
  override readonly name: string = "PartnerApiError";
  /** The HTTP status. */
  readonly status: number;
  /** The service's sentence saying why. */
  readonly error: string;
  /** The machine-readable reason, when the service gives one. */
  readonly errorCode: ErrorCode | null;
  /** A validation error's field (the body's `field`), when the service names one. */
  readonly field: string | null;
  /** The answer is a replay of an earlier request with the same idempotency key (`Idempotent-Replayed: true`). */
  readonly replayed: boolean;
  /** 402: what the order would have charged, in USDT. */
  readonly requiredUsdt: number | null;
  /** 402: the balance that did not cover it, in USDT. */
  readonly balanceUsdt: number | null;
  /** 429: seconds until a retry is allowed (the body's `retry_after`, else the `Retry-After` header). */
  readonly retryAfter: number | null;
  /** A failed order's id (502 after the charge, refunded), else null. */
  readonly orderId: number | null;
  /** The whole body as answered (an ErrorBody, an InsufficientFundsBody, or a failed order). */
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers, context: RequestContext = {}) {
    const fields = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    const message = typeof fields.error === "string" ? fields.error : `HTTP ${status}`;
    // The service's id wins: it is the one it logged (the client's own when the service took it).
    super(`${message} (HTTP ${status})`, { ...context, requestId: headers.get("x-request-id") ?? context.requestId });
    this.status = status;
    this.error = message;
    this.errorCode = typeof fields.error_code === "string" ? (fields.error_code as ErrorCode) : null;
    this.field = typeof fields.field === "string" ? fields.field : null;
    this.replayed = headers.get("idempotent-replayed") === "true";
    this.requiredUsdt = typeof fields.required_usdt === "number" ? fields.required_usdt : null;
    this.balanceUsdt = typeof fields.balance_usdt === "number" ? fields.balance_usdt : null;
    const header = Number(headers.get("retry-after"));
    this.retryAfter =
      typeof fields.retry_after === "number" ? fields.retry_after : Number.isFinite(header) && headers.has("retry-after") ? header : null;
    this.orderId = typeof fields.order_id === "number" ? fields.order_id : null;
    this.body = body;
  }

  /** The 402 body, typed, when this is one. */
  insufficientFunds(): InsufficientFundsBody | null {
    return this.status === 402 ? (this.body as InsufficientFundsBody) : null;
  }
}

/** Any order a purchase answers (the client's `Order`). */
export type FailedOrder =
  | components["schemas"]["PurchaseResponse"]
  | components["schemas"]["StoreOrderResponse"]
  | components["schemas"]["GameOrderResponse"]
  | components["schemas"]["GiftcardOrderResponse"]
  | components["schemas"]["GiftOrder"];

/**
 * A purchase's 502: the order failed at the provider after the charge and was refunded. It is the order's outcome,
 * never retried (a retry with the same key would answer the same failed order). `order` is the failed order: the
 * answer's body, or (Premium, whose 502 is an Error body) read back from the service; null only when it could not be.
 */
export class PurchaseFailedError extends PartnerApiError {
  override readonly name = "PurchaseFailedError";
  /** The failed, refunded order. */
  readonly order: FailedOrder | null;
  override readonly orderId: number | null;

  constructor(status: number, body: unknown, headers: Headers, context: RequestContext, order: FailedOrder | null) {
    super(status, body, headers, context);
    this.order = order;
    const fromBody = (body as { order_id?: unknown } | null)?.order_id;
    this.orderId = order?.order_id ?? (typeof fromBody === "number" ? fromBody : null);
  }
}

/** Why a webhook delivery was refused by `verifyWebhook`. */
export type WebhookRefusal = "missing_signature" | "malformed_signature" | "stale" | "forged" | "malformed_body";

/** A webhook delivery that is not the service's: a wrong or missing signature, a timestamp outside the tolerance, or a body that is not an event. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookRefusal,
    message: string,
  ) {
    super(message);
  }
}
