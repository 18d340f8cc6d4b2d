import { createHmac, timingSafeEqual } from "node:crypto";
import type { webhooks } from "./api-types.js";
import { WebhookVerificationError } from "./errors.js";

/** The signature header: `t=<unix seconds>,v1=<hex>[,v1=<hex>]` (two v1 during a secret rotation's overlap). */
export const SIGNATURE_HEADER = "x-webhook-signature";
/** The tolerance docs/api-guide.md recommends for the signature's timestamp: 5 minutes. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

type EventOf<T extends keyof webhooks> = webhooks[T]["post"] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** Every webhook event the service sends, by its `type` (the OpenAPI document's `webhooks`). */
export type WebhookEvent = { [T in keyof webhooks]: EventOf<T> }[keyof webhooks];
export type WebhookEventType = WebhookEvent["type"];

/** Header values as Node's `IncomingMessage.headers`, a fetch `Headers`, or a plain object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The most a signature's timestamp may differ from now, in seconds (default 300): a finite positive number. */
  toleranceSeconds?: number;
  /** Now, in milliseconds (tests). */
  nowMs?: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(",") : value;
}

/**
 * Checks a webhook delivery and returns its event: the `X-Webhook-Signature` must carry a `v1` that is the
 * HMAC-SHA256 of `<t>.<raw body>` under one of `secrets` (compared in constant time) and a `t` within the tolerance.
 * Pass the raw bytes as received, before any JSON parsing. Give the old and the new secret during a rotation's
 * overlap. Throws a `WebhookVerificationError` (its `reason` says why) for anything else.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, nowMs = Date.now() } = options;
  // NaN, Infinity or a negative would accept a delivery of any age (every comparison with NaN is false).
  if (!Number.isFinite(toleranceSeconds) || toleranceSeconds <= 0)
    throw new TypeError(`verifyWebhook needs a toleranceSeconds that is a finite positive number, not ${toleranceSeconds}`);
  const keys = typeof secrets === "string" ? [secrets] : [...secrets];
  if (keys.length === 0 || keys.some((secret) => !secret)) throw new TypeError("verifyWebhook needs at least one non-empty secret");
  const signature = header(headers, SIGNATURE_HEADER);
  if (!signature) throw new WebhookVerificationError("missing_signature", `No ${SIGNATURE_HEADER} header`);
  const fields = signature.split(",").map((field) => {
    const at = field.indexOf("=");
    return at < 0 ? ["", ""] : [field.slice(0, at).trim(), field.slice(at + 1).trim()];
  });
  const t = fields.find(([name]) => name === "t")?.[1];
  const timestamp = Number(t);
  const candidates = fields.filter(([name, value]) => name === "v1" && /^[0-9a-f]{64}$/.test(value)).map(([, value]) => Buffer.from(value, "hex"));
  if (!t || !Number.isInteger(timestamp) || candidates.length === 0)
    throw new WebhookVerificationError("malformed_signature", `A malformed ${SIGNATURE_HEADER} header`);
  if (Math.abs(nowMs / 1000 - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError("stale", `The signature's timestamp is more than ${toleranceSeconds} s from now: a replay, or a clock off`);
  }
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  // Every pair is compared, so the time taken says nothing about which secret or which v1 came close.
  let matched = false;
  for (const secret of keys) {
    const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
    for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
  }
  if (!matched)
    throw new WebhookVerificationError("forged", "No signature matches a secret given: not sent by the service, or signed under another secret");
  let event: unknown;
  try {
    event = JSON.parse(body.toString("utf8"));
  } catch {
    throw new WebhookVerificationError("malformed_body", "The signed body is not JSON");
  }
  const fieldsOf = event as Partial<Record<string, unknown>> | null;
  if (!fieldsOf || typeof fieldsOf.id !== "string" || typeof fieldsOf.type !== "string" || typeof fieldsOf.data !== "object") {
    throw new WebhookVerificationError("malformed_body", "The signed body is not a webhook event");
  }
  return event as WebhookEvent;
}
