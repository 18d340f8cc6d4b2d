import { randomUUID } from "node:crypto";
import { z } from "zod";
import {
  IDEMPOTENCY_KEY_MAX,
  IDEMPOTENCY_KEY_RULE,
  idempotencyKeyOf,
  NO_CONTROL_CHARACTERS,
  QUOTE_ID_PATTERN,
  QUOTE_ID_RULE,
  USERNAME_PATTERN,
  USERNAME_RULE,
} from "../core/formats.js";
import { hasMicroPrecision, MAX_USDT } from "../core/model/money.js";
import type { OrderBase } from "../core/model/order.js";
import type { Order, OrderOfType, ProductType } from "../core/model/products.js";
import type { Priced } from "../core/purchase.js";
import { REASONS } from "../core/model/reasons.js";

// The shared part of the contract (docs/partner-contract.md): fields every purchase takes, the
// order envelope every product's answer sits in, the error bodies, and the sandbox order. The API validates
// with these schemas and /openapi.json is generated from them, so the document cannot drift from the code.
// Field order here is the order of the JSON on the wire.

export const dateTime = z.iso.datetime();

/** "x is required" when absent, "x must be ..." when present with the wrong type. */
export const expect = (name: string, what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${what}`),
});

export const usernameOf = (name: string) => z.string(expect(name, "a string")).regex(USERNAME_PATTERN, `${name} must be ${USERNAME_RULE}`);
export const usernameField = usernameOf("username");

const idempotencyKeyField = z
  .string(expect("idempotency_key", "a string"))
  .min(1, "idempotency_key must not be empty")
  .max(IDEMPOTENCY_KEY_MAX, `idempotency_key must be at most ${IDEMPOTENCY_KEY_MAX} characters`)
  .regex(NO_CONTROL_CHARACTERS, "idempotency_key must not contain control characters")
  .refine((key) => idempotencyKeyOf(key) !== null, `idempotency_key must be ${IDEMPOTENCY_KEY_RULE}`)
  .nullish()
  .describe("Strongly recommended: a repeat with the same key and the same identifying fields returns the earlier order without a second charge");

/** The confirmed-price guard: an addition to the contract that a client may ignore. */
const maxUsdtField = z
  .number(expect("max_usdt", "a number"))
  .positive("max_usdt must be more than 0")
  .max(MAX_USDT, `max_usdt must be at most ${MAX_USDT}`)
  .refine(hasMicroPrecision, "max_usdt must have at most 6 decimals")
  .optional()
  .describe(
    "Optional: the most this order may charge, in USDT (the amount the buyer saw). When the charge would be higher, nothing is charged and the answer is 400 with error_code price_changed",
  );

/** A binding quote to buy at: an addition to the contract that a client may ignore. */
const quoteIdField = z
  .string(expect("quote_id", "a string"))
  .regex(QUOTE_ID_PATTERN, `quote_id must be ${QUOTE_ID_RULE}`)
  .nullish()
  .describe(
    "Optional: a binding quote from POST /v1/quotes for exactly this purchase. The order is charged exactly its charge_usdt, or refused with 400 and error_code quote_not_found, quote_expired, quote_used or quote_mismatch (nothing charged)",
  );

/** What every purchase body carries beside its product fields. */
const purchaseExtras = { idempotency_key: idempotencyKeyField, max_usdt: maxUsdtField, quote_id: quoteIdField };

/** Letters and digits only, lower case: `idempotencyKey` and `idempotency_key` read the same. */
const bare = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Edits (insert, delete, replace) from a to b: `max_usd` is one from `max_usdt`. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The known field an unknown one was most likely meant as, if one is close enough. */
function meant(unknown: string, known: string[]): string | undefined {
  const ranked = known.map((name) => ({ name, edits: distance(bare(unknown), bare(name)) })).sort((a, b) => a.edits - b.edits);
  const best = ranked[0];
  return best && best.edits <= Math.min(2, Math.floor(bare(best.name).length / 3)) ? best.name : undefined;
}

/** A body of exactly these fields: an unknown one is refused, named, with the field it was likely meant as. */
export function closedBody<S extends z.ZodRawShape>(fields: S) {
  const known = Object.keys(fields);
  return z.strictObject(fields, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return undefined;
      return issue.keys
        .map((key) => {
          const guess = meant(key, known);
          return `${key} is not a field of this request${guess ? ` (did you mean ${guess}?)` : ""}`;
        })
        .join("; ");
    },
  });
}

/**
 * A purchase body: its product's fields and the extras, and nothing else. An unknown field is refused (400 naming
 * it), never ignored: a misspelt idempotency_key or max_usdt would otherwise buy without the guard it was meant to be
 * (decision 0032).
 */
export const purchaseBody = <S extends z.ZodRawShape>(shape: S) => closedBody({ ...shape, ...purchaseExtras });

export const orderIdParams = z.object({
  order_id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "order_id must be a whole number of at least 1")
    .transform(Number),
});

/** A page size: 1 to 100, 20 when left out. */
export const limitField = z
  .string()
  .regex(/^\d{1,3}$/, "limit must be a whole number from 1 to 100")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, "limit must be a whole number from 1 to 100")
  .default(20);

// ---- Errors ----------------------------------------------------------------------------------------

/**
 * The error_code of an error answer without a reason of the contract's (REASONS): one per kind of refusal, stable,
 * so a program can switch on it (decision 0032). A failed delivery is the contract's own `provider_error`.
 */
export const GENERAL_ERROR_CODES = [
  "invalid_input",
  "unauthorized",
  "key_blocked",
  "forbidden",
  "not_found",
  "rate_limited",
  "unavailable",
  "body_too_large",
  "unsupported_media_type",
  "internal_error",
] as const;
export type ErrorBodyCode = (typeof REASONS)[number] | (typeof GENERAL_ERROR_CODES)[number];

export const errorBody = z
  .object({
    success: z.literal(false),
    error: z.string(),
    retry_after: z.number().int().nullable().optional().describe("Only on 429: seconds until a retry is allowed"),
    error_code: z
      .enum([...REASONS, ...GENERAL_ERROR_CODES])
      .describe(
        "Machine-readable, on every error: the contract's reason where it has one (store orders, gifts, order lookups), this service's (max_usdt, quotes), else the kind of refusal (invalid_input, unauthorized, …)",
      ),
    field: z
      .string()
      .optional()
      .describe(
        "Only on invalid input: the field (its path, dotted, in a nested body) the first problem is in; absent when the body as a whole is wrong",
      ),
  })
  .meta({ id: "ErrorBody" });

export const insufficientFundsBody = z
  .object({
    success: z.literal(false),
    error: z.string(),
    error_code: z.literal("insufficient_funds"),
    required_usdt: z.number(),
    balance_usdt: z.number(),
  })
  .meta({ id: "InsufficientFunds" });

/** The error statuses every keyed endpoint can answer. */
export const keyedErrors = { 401: errorBody, 403: errorBody, 429: errorBody } as const;

/** The error statuses of a purchase (its 200 and 502 are the product's own). */
export const purchaseErrors = { 400: errorBody, 402: insufficientFundsBody, 503: errorBody, ...keyedErrors } as const;

// ---- The order envelope ------------------------------------------------------------------------------

export const orderStatus = z.enum(["processing", "completed", "failed"]);
export const reason = z.enum(REASONS);

/**
 * Every product's order answer but the gift's: success, order_id, idempotency_key and product_type first,
 * the product's own fields, then created_at and completed_at.
 */
export function orderEnvelope<T extends z.ZodType, F extends z.ZodRawShape>(productType: T, fields: F) {
  return z.object({
    success: z.boolean(),
    order_id: z.number().int(),
    idempotency_key: z.string().nullable(),
    product_type: productType,
    ...fields,
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  });
}

/**
 * The envelope's first fields after `success` (the product's own rule), as orderEnvelope has them. Each view writes
 * `success` first, then spreads these: a literal that begins with a spread makes every later key slow in V8.
 */
export const envelopeHead = <T extends ProductType>(order: OrderOfType<T>) => ({
  order_id: order.id,
  idempotency_key: order.idempotencyKey,
  product_type: order.productType as T,
});

/** The envelope's last fields. */
export const envelopeTail = (order: OrderBase) => ({ created_at: order.createdAt, completed_at: order.completedAt });

/** `refunded` only on failed, `poll` only on processing, as the contract has them for asynchronous orders. */
export const asyncFlags = (order: Order) => ({
  ...(order.status === "failed" ? { refunded: order.refunded } : {}),
  ...(order.status === "processing" ? { poll: true } : {}),
});

/** HTTP status of an asynchronous order's creation: replay 200, processing 202, failed (refunded) 502, done 200. */
export function asyncOrderStatus(order: Order, replay: boolean): 200 | 202 | 502 {
  if (replay) return 200;
  return order.status === "processing" ? 202 : order.status === "failed" ? 502 : 200;
}

// ---- The sandbox -------------------------------------------------------------------------------------

/**
 * The one sandbox order: what a real order of the same request would be once completed, never stored
 * (order_id 0, a `test_` transaction id, created and completed now). Each product's sandbox view shows it
 * with the product's own view, so a sandbox answer has the real answer's shape by construction.
 */
export function sandboxOrder<T extends ProductType>(
  productType: T,
  price: Priced<OrderOfType<T>["details"]>,
  context: { idempotencyKey: string | null; now: Date },
): OrderOfType<T> {
  const at = context.now.toISOString();
  const order: OrderBase & { productType: T; details: OrderOfType<T>["details"] } = {
    id: 0,
    accountId: 0,
    fundingAccountId: 0,
    productType,
    status: "completed",
    idempotencyKey: context.idempotencyKey,
    recipient: price.recipient,
    chargeMicro: price.chargeMicro,
    upstreamRef: "",
    transactionId: `test_${randomUUID()}`,
    providerOrderId: null,
    providerStatus: null,
    error: null,
    reason: null,
    refunded: false,
    checkAfter: null,
    backend: null,
    recipientId: null,
    held: null,
    checkAttempts: 0,
    createdAt: at,
    completedAt: at,
    details: price.details,
  };
  // The union member of T: TypeScript cannot narrow a generic union by itself.
  return order as unknown as OrderOfType<T>;
}
