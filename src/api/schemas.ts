import { z } from "zod";
import { PREMIUM_MONTHS, STARS_MAX, STARS_MIN } from "../core/pricing.js";

// Request and response shapes of the contract (shared/spec/partner-purchase-api.md). The routes validate
// with them and /openapi.json is generated from them, so the document cannot drift from the code.

const dateTime = z.iso.datetime();

/** "x is required" when absent, "x must be ..." when present with the wrong type. */
const expect = (name: string, what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${what}`),
});

export const usernameField = z
  .string(expect("username", "a string"))
  .regex(/^@?[A-Za-z0-9_]{3,32}$/, "username must be 3 to 32 letters, digits or underscores, optionally after a leading @");

export const idempotencyKeyField = z
  .string(expect("idempotency_key", "a string"))
  .min(1, "idempotency_key must not be empty")
  .max(128, "idempotency_key must be at most 128 characters")
  .nullish()
  .describe("Strongly recommended: a repeat with the same key and the same identifying fields returns the earlier order without a second charge");

export const starsBody = z.object({
  username: usernameField,
  stars: z
    .number(expect("stars", "a whole number"))
    .int("stars must be a whole number")
    .min(STARS_MIN, `stars must be at least ${STARS_MIN}`)
    .max(STARS_MAX, `stars must be at most ${STARS_MAX}`),
  idempotency_key: idempotencyKeyField,
});

export const premiumBody = z.object({
  username: usernameField,
  months: z.literal(PREMIUM_MONTHS, expect("months", `one of ${PREMIUM_MONTHS.join(", ")}`)),
  idempotency_key: idempotencyKeyField,
});

const digits = (name: string) =>
  z.union([z.string().regex(/^\d{1,9}$/, `${name} must be a whole number`), z.number().int().min(0).max(999_999_999)]).optional();

export const searchBody = z.object({
  product_type: z.enum(["stars", "premium", "ads"], expect("product_type", "one of stars, premium, ads")),
  query: z.string(expect("query", "a string")).trim().min(1, "query must not be empty").max(64, "query must be at most 64 characters"),
  quantity: digits("quantity"),
  months: digits("months"),
  amount: digits("amount"),
});

export const orderIdParams = z.object({
  order_id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "order_id must be a whole number of at least 1")
    .transform(Number),
});

export const ordersQuery = z.object({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "limit must be a whole number from 1 to 100")
    .transform(Number)
    .refine((n) => n >= 1 && n <= 100, "limit must be a whole number from 1 to 100")
    .default(20),
});

export const errorBody = z
  .object({
    success: z.literal(false),
    error: z.string(),
    retry_after: z.number().int().nullable().optional().describe("Only on 429: seconds until a retry is allowed"),
  })
  .meta({ id: "ErrorBody" });

export const insufficientFundsBody = z
  .object({ success: z.literal(false), error: z.string(), required_usdt: z.number(), balance_usdt: z.number() })
  .meta({ id: "InsufficientFunds" });

export const orderStatus = z.enum(["processing", "completed", "failed"]);

export const purchaseResponse = z
  .object({
    success: z.boolean(),
    order_id: z.number().int(),
    idempotency_key: z.string().nullable(),
    product_type: z.enum(["stars", "premium"]),
    username: z.string(),
    amount: z.number().int(),
    stars: z.number().int().nullable(),
    months: z.number().int().nullable(),
    usdt_charged: z.number(),
    status: orderStatus,
    transaction_id: z.string().nullable(),
    error: z.string().nullable(),
    balance_remaining_usdt: z.number(),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  })
  .meta({ id: "PurchaseResponse" });

export const sandboxResponse = purchaseResponse.extend({ test: z.literal(true) }).meta({ id: "SandboxPurchaseResponse" });

export const orderSummary = z
  .object({
    order_id: z.number().int(),
    product_type: z.string(),
    username: z.string(),
    amount: z.number(),
    store_login: z.string().nullable(),
    store_amount_usd: z.number().nullable(),
    usdt_charged: z.number(),
    status: orderStatus,
    transaction_id: z.string().nullable(),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  })
  .meta({ id: "OrderSummary" });

export const ordersResponse = z.object({ success: z.literal(true), count: z.number().int(), orders: z.array(orderSummary) });

export const balanceResponse = z.object({
  success: z.literal(true),
  balance_usdt: z.number(),
  currency: z.literal("USDT"),
  unlimited: z.literal(true).optional().describe("Only for an owner key"),
});

const premiumPrices = z.record(z.string(), z.number());

export const pricingResponse = z.object({
  success: z.literal(true),
  stars: z.object({ min: z.number().int(), max: z.number().int(), usdt_per_star: z.number() }),
  premium: z.object({ months: z.array(z.number().int()), usdt: premiumPrices }),
  payment_method: z.string(),
});

export const ratesResponse = z.object({
  success: z.literal(true),
  base_currency: z.string(),
  rates: z.object({ ton_usd: z.number().nullable(), uzs_per_usd: z.number() }),
  stars: z.object({
    min: z.number().int(),
    max: z.number().int(),
    usdt_per_star: z.number(),
    ton_per_star: z.number().nullable(),
    uzs_per_star: z.number().int(),
  }),
  premium: z.object({
    months: z.array(z.number().int()),
    usdt: premiumPrices,
    ton: premiumPrices.nullable(),
    uzs: premiumPrices,
  }),
  payment_method: z.string(),
  updated_at: dateTime,
});

export const searchResponse = z.object({
  success: z.literal(true),
  found: z.object({
    myself: z.boolean(),
    name: z.string(),
    photo: z.string(),
    recipient: z.string(),
    premium: z.boolean().nullable(),
  }),
});

export const healthResponse = z.object({
  success: z.boolean(),
  delivery_provider: z.string(),
  delivery_ready: z.boolean(),
  gateway_ready: z.boolean(),
  store_ready: z.boolean(),
  game_ready: z.boolean(),
  giftcard_ready: z.boolean(),
  db_ready: z.boolean(),
  api_configured: z.boolean(),
  version: z.string(),
});

/** The error statuses every keyed endpoint can answer. */
export const keyedErrors = { 401: errorBody, 403: errorBody, 429: errorBody } as const;
