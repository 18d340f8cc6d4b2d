import type { components } from "./api-types.js";

/** The service's Error body (docs/api-guide.md, Errors): `success: false`, a sentence, and a machine-readable reason where there is one. */
export type ErrorBody = components["schemas"]["ErrorBody"];
/** The 402 body: the charge and the balance that did not cover it. */
export type InsufficientFundsBody = components["schemas"]["InsufficientFunds"];
/** The closed set of machine-readable reasons (`error_code`). */
export type ErrorCode = NonNullable<ErrorBody["error_code"]>;

/**
 * A refusal from the API (any non-2xx answer): its status, its sentence (`error`), its reason (`error_code`) and the
 * extra fields of the status (`required_usdt`/`balance_usdt` on 402, `retry_after` on 429). A purchase that failed
 * at the provider after the charge (502) answers the order itself, refunded: it is in `body`, with its `orderId`.
 */
export class PartnerApiError extends Error {
  override readonly name = "PartnerApiError";
  /** The HTTP status. */
  readonly status: number;
  /** The service's sentence saying why. */
  readonly error: string;
  /** The machine-readable reason, when the service gives one. */
  readonly errorCode: ErrorCode | null;
  /** 402: what the order would have charged, in USDT. */
  readonly requiredUsdt: number | null;
  /** 402: the balance that did not cover it, in USDT. */
  readonly balanceUsdt: number | null;
  /** 429: seconds until a retry is allowed (the body's `retry_after`, else the `Retry-After` header). */
  readonly retryAfter: number | null;
  /** A failed order's id (502 after the charge, refunded), else null. */
  readonly orderId: number | null;
  /** The request's id in the service's logs (`X-Request-Id`): quote it when asking about a request. */
  readonly requestId: string | null;
  /** The whole body as answered (an ErrorBody, an InsufficientFundsBody, or a failed order). */
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers) {
    const fields = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
    const message = typeof fields.error === "string" ? fields.error : `HTTP ${status}`;
    super(`${message} (HTTP ${status})`);
    this.status = status;
    this.error = message;
    this.errorCode = typeof fields.error_code === "string" ? (fields.error_code as ErrorCode) : null;
    this.requiredUsdt = typeof fields.required_usdt === "number" ? fields.required_usdt : null;
    this.balanceUsdt = typeof fields.balance_usdt === "number" ? fields.balance_usdt : null;
    const header = Number(headers.get("retry-after"));
    this.retryAfter =
      typeof fields.retry_after === "number" ? fields.retry_after : Number.isFinite(header) && headers.has("retry-after") ? header : null;
    this.orderId = typeof fields.order_id === "number" ? fields.order_id : null;
    this.requestId = headers.get("x-request-id");
    this.body = body;
  }

  /** The 402 body, typed, when this is one. */
  insufficientFunds(): InsufficientFundsBody | null {
    return this.status === 402 ? (this.body as InsufficientFundsBody) : null;
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
