import { z } from "zod";
import {
  GIFT_MESSAGE_MAX,
  GIFTCARD_DEFAULT_QUANTITY,
  GIFTCARD_QUANTITY_MAX,
  IDEMPOTENCY_KEY_MAX,
  NO_CONTROL_CHARACTERS,
  PLAYER_ID_PATTERN,
  PLAYER_ID_RULE,
  PREMIUM_MONTHS,
  QUOTE_ID_PATTERN,
  QUOTE_ID_RULE,
  SERVER_ID_MAX,
  STARS_MAX,
  STARS_MIN,
  USERNAME_PATTERN,
  USERNAME_RULE,
} from "../core/limits.js";
import { MAX_USDT } from "../core/money.js";
import { PRODUCT_TYPES } from "../core/products/index.js";
import { REASONS } from "../core/reasons.js";

// Request and response shapes of the contract (shared/spec/partner-purchase-api.md). The routes validate
// with them and /openapi.json is generated from them, so the document cannot drift from the code.

const dateTime = z.iso.datetime();

/** "x is required" when absent, "x must be ..." when present with the wrong type. */
const expect = (name: string, what: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${what}`),
});

const usernameOf = (name: string) => z.string(expect(name, "a string")).regex(USERNAME_PATTERN, `${name} must be ${USERNAME_RULE}`);
export const usernameField = usernameOf("username");

export const idempotencyKeyField = z
  .string(expect("idempotency_key", "a string"))
  .min(1, "idempotency_key must not be empty")
  .max(IDEMPOTENCY_KEY_MAX, `idempotency_key must be at most ${IDEMPOTENCY_KEY_MAX} characters`)
  .regex(NO_CONTROL_CHARACTERS, "idempotency_key must not contain control characters")
  .nullish()
  .describe("Strongly recommended: a repeat with the same key and the same identifying fields returns the earlier order without a second charge");

/** The confirmed-price guard: an addition to the contract that a client may ignore. */
export const maxUsdtField = z
  .number(expect("max_usdt", "a number"))
  .positive("max_usdt must be more than 0")
  .max(MAX_USDT, `max_usdt must be at most ${MAX_USDT}`)
  .refine((v) => Math.abs(v * 1e6 - Math.round(v * 1e6)) < 1e-6, "max_usdt must have at most 6 decimals")
  .optional()
  .describe(
    "Optional: the most this order may charge, in USDT (the amount the buyer saw). When the charge would be higher, nothing is charged and the answer is 400 with error_code price_changed",
  );

/** A binding quote to buy at: an addition to the contract that a client may ignore. */
export const quoteIdField = z
  .string(expect("quote_id", "a string"))
  .regex(QUOTE_ID_PATTERN, `quote_id must be ${QUOTE_ID_RULE}`)
  .nullish()
  .describe(
    "Optional: a binding quote from POST /v1/quotes for exactly this purchase. The order is charged exactly its charge_usdt, or refused with 400 and error_code quote_not_found, quote_expired, quote_used or quote_mismatch (nothing charged)",
  );

export const starsBody = z.object({
  username: usernameField,
  stars: z
    .number(expect("stars", "a whole number"))
    .int("stars must be a whole number")
    .min(STARS_MIN, `stars must be at least ${STARS_MIN}`)
    .max(STARS_MAX, `stars must be at most ${STARS_MAX}`),
  idempotency_key: idempotencyKeyField,
  max_usdt: maxUsdtField,
  quote_id: quoteIdField,
});

export const premiumBody = z.object({
  username: usernameField,
  months: z.literal(PREMIUM_MONTHS, expect("months", `one of ${PREMIUM_MONTHS.join(", ")}`)),
  idempotency_key: idempotencyKeyField,
  max_usdt: maxUsdtField,
  quote_id: quoteIdField,
});

const digits = (name: string) =>
  z.union([z.string().regex(/^\d{1,9}$/, `${name} must be a whole number`), z.number().int().min(0).max(999_999_999)]).optional();

export const searchBody = z.object({
  product_type: z.enum(["stars", "premium", "ads"], expect("product_type", "one of stars, premium, ads")),
  query: z
    .string(expect("query", "a string"))
    .trim()
    .min(1, "query must not be empty")
    .regex(USERNAME_PATTERN, `query must be a username: ${USERNAME_RULE}`)
    .describe("A username, as the purchase endpoints take it"),
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

const limitField = z
  .string()
  .regex(/^\d{1,3}$/, "limit must be a whole number from 1 to 100")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, "limit must be a whole number from 1 to 100")
  .default(20);

export const ordersQuery = z.object({
  limit: limitField,
  // Additions: a client that sends none of these sees the list exactly as before.
  before: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "before must be an order id: a whole number of at least 1")
    .transform(Number)
    .optional()
    .describe("Optional: only orders with a smaller order_id; pass the last order_id of the page you have to get the next one"),
  product_type: z
    .enum(PRODUCT_TYPES, { error: `product_type must be one of ${PRODUCT_TYPES.join(", ")}` })
    .optional()
    .describe("Optional: only orders of this product"),
  status: z
    .enum(["processing", "completed", "failed"], { error: "status must be one of processing, completed, failed" })
    .optional()
    .describe("Optional: only orders in this status"),
});

const DATE_OR_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * An ISO 8601 date (UTC midnight) or a time with a zone (Z or ±hh:mm), normalized to the stored form (UTC, ms).
 * A time without a zone is refused: it would mean a different instant on every client.
 */
export function isoTime(name: string) {
  const rule = `${name} must be an ISO 8601 date or time with a zone, such as 2026-11-01 or 2026-11-01T00:00:00Z`;
  return z.string({ error: (issue) => (issue.input === undefined ? `${name} is required` : rule) }).transform((text, ctx) => {
    const match = DATE_OR_TIME.exec(text);
    const [, year, month, day, hour = "0", minute = "0", second = "0", , offsetHours = "0", offsetMinutes = "0"] = match ?? [];
    const days = match ? new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate() : 0;
    const valid =
      match &&
      Number(year) >= 1970 &&
      Number(month) >= 1 &&
      Number(month) <= 12 &&
      Number(day) >= 1 &&
      Number(day) <= days &&
      Number(hour) <= 23 &&
      Number(minute) <= 59 &&
      Number(second) <= 59 &&
      Number(offsetHours) <= 14 &&
      Number(offsetMinutes) <= 59;
    const at = valid ? new Date(match[4] === undefined ? `${text}T00:00:00Z` : text) : null;
    if (!at || Number.isNaN(at.getTime()) || at.getUTCFullYear() > 9999) {
      ctx.addIssue({ code: "custom", message: rule });
      return z.NEVER;
    }
    return at.toISOString();
  });
}

/** The statement's cursor: opaque to clients; inside, the id of the last entry of the page they have. */
export const encodeCursor = (entryId: number) => Buffer.from(`e${entryId}`).toString("base64url");

const cursorField = z
  .string()
  .transform((text, ctx) => {
    const inside = /^[A-Za-z0-9_-]{1,24}$/.test(text) ? /^e([1-9]\d{0,14})$/.exec(Buffer.from(text, "base64url").toString("latin1")) : null;
    if (!inside) {
      ctx.addIssue({ code: "custom", message: "before must be a next_before value from an earlier page" });
      return z.NEVER;
    }
    return Number(inside[1]);
  })
  .optional()
  .describe("Optional: the next_before of the page you have, for the next (older) page");

export const ledgerQuery = z.object({
  limit: limitField,
  before: cursorField,
  from: isoTime("from").optional().describe("Optional: entries at or after this time (ISO 8601 date or time with a zone)"),
  to: isoTime("to").optional().describe("Optional: entries before this time (exclusive)"),
});

export const ledgerExportQuery = z.object({
  from: isoTime("from").describe("Entries at or after this time (ISO 8601 date or time with a zone)"),
  to: isoTime("to").describe("Entries before this time (exclusive); at most 366 days after from"),
});

export const errorBody = z
  .object({
    success: z.literal(false),
    error: z.string(),
    retry_after: z.number().int().nullable().optional().describe("Only on 429: seconds until a retry is allowed"),
    error_code: z
      .enum(REASONS)
      .optional()
      .describe("Machine-readable reason where the contract has one (store orders, gifts, order lookups, max_usdt)"),
  })
  .meta({ id: "ErrorBody" });

export const insufficientFundsBody = z
  .object({ success: z.literal(false), error: z.string(), required_usdt: z.number(), balance_usdt: z.number() })
  .meta({ id: "InsufficientFunds" });

export const orderStatus = z.enum(["processing", "completed", "failed"]);
const reason = z.enum(REASONS);

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
    product_type: z.enum(PRODUCT_TYPES),
    username: z.string().describe("Recipient: username, store login, player ID, or gift card brand"),
    amount: z.number().describe("Stars count, premium months, store nominal in USD, gift card quantity, gift stars; 1 for a game order"),
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

export const ledgerEntrySchema = z
  .object({
    entry_id: z.number().int(),
    kind: z.enum(["credit", "debit", "charge", "refund", "adjustment"]),
    amount_usdt: z.number().describe("Signed: credits and refunds positive, charges and debits negative"),
    balance_after_usdt: z.number().nullable().describe("The balance after this entry; null for an owner key, which has no balance of its own"),
    order_id: z.number().int().nullable(),
    note: z.string().nullable().describe("The administrator's note of a credit, debit or adjustment; null otherwise"),
    created_at: dateTime,
  })
  .meta({ id: "LedgerEntry" });

export const ledgerResponse = z
  .object({
    success: z.literal(true),
    basis: z
      .enum(["balance", "owner_orders"])
      .describe(
        "balance: the key's own balance. owner_orders (an owner key): the wallet's charges and refunds of this key's orders; opening and closing are their running net total from 0",
      ),
    from: dateTime.nullable(),
    to: dateTime.nullable(),
    opening_balance_usdt: z.number().describe("Before from (0 without from)"),
    closing_balance_usdt: z.number().describe("opening_balance_usdt plus every entry of the range, on every page"),
    count: z.number().int(),
    entries: z.array(ledgerEntrySchema),
    next_before: z.string().nullable().describe("Pass as before for the next (older) page; null on the last page"),
  })
  .meta({ id: "LedgerStatement" });

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

// ---- Store wallet top-ups -------------------------------------------------------------------------

export const storeQuoteSchema = z
  .object({
    amount_usd: z.number(),
    provider_fee_usd: z.number(),
    cost_usd: z.number(),
    markup_percent: z.number(),
    markup_usdt: z.number(),
    total_usdt: z.number(),
  })
  .meta({ id: "StoreQuote" });

export const storePricingQuery = z.object({
  amount_usd: z
    .string()
    .regex(/^\d{1,12}(\.\d{1,12})?$/, "amount_usd must be a plain decimal number such as 10 or 12.5")
    .transform(Number)
    .optional(),
});

export const storePricingResponse = z.object({
  success: z.literal(true),
  currency: z.string(),
  min_usd: z.number(),
  max_usd: z.number(),
  markup_percent: z.number(),
  provider_fee_ratio: z.number(),
  examples: z.array(storeQuoteSchema),
  quote: storeQuoteSchema.nullable(),
});

export const storeBody = z.object({
  login: z.string(expect("login", "a string")).min(1, "login must not be empty").max(200, "login must be at most 200 characters"),
  amount_usd: z
    .number(expect("amount_usd", "a number"))
    .positive("amount_usd must be more than 0")
    .max(MAX_USDT, `amount_usd must be at most ${MAX_USDT}`)
    .meta({ multipleOf: 0.01 })
    .describe("Nominal in USD, at most 2 decimals; the live limits (GET /v1/store/pricing, 1 to 400 today) decide what is accepted"),
  idempotency_key: idempotencyKeyField,
  max_usdt: maxUsdtField,
  quote_id: quoteIdField,
});

export const storeOrderResponse = z
  .object({
    success: z.boolean(),
    order_id: z.number().int(),
    idempotency_key: z.string().nullable(),
    product_type: z.literal("store"),
    store_login: z.string(),
    store_amount_usd: z.number(),
    store_markup_usdt: z.number(),
    amount: z.number(),
    usdt_charged: z.number(),
    status: orderStatus,
    transaction_id: z.string().nullable(),
    error: z.string().nullable(),
    balance_remaining_usdt: z.number(),
    pending: z.boolean().nullable(),
    refunded: z.boolean().nullable(),
    error_code: reason.nullable(),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  })
  .meta({ id: "StoreOrderResponse" });

// ---- Games -----------------------------------------------------------------------------------------

export const gameCodeParams = z.object({ code: z.string().min(1).max(64) });

export const gameSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    image_url: z.string().nullable(),
    required_fields: z.array(z.string()),
    needs_server: z.boolean(),
    notes: z.string().nullable(),
    servers: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: "Game" });

export const gamesResponse = z.object({ success: z.literal(true), markup_percent: z.number(), games: z.array(gameSchema) });

export const catalogueQuery = z.object({ eta: z.literal("1", { error: "eta takes only the value 1" }).optional() });

export const gameCatalogueResponse = z.object({
  success: z.literal(true),
  currency: z.string(),
  markup_percent: z.number(),
  game: z.object({ code: z.string(), required_fields: z.array(z.string()), needs_server: z.boolean(), notes: z.string().nullable() }),
  denominations: z.array(
    z
      .object({
        name: z.string(),
        price_usdt: z.number(),
        eta: z.object({ label: z.string(), display: z.string(), median_seconds: z.number().int() }).nullable().optional(),
      })
      .meta({ id: "GameDenomination" }),
  ),
});

const playerIdField = z
  .string(expect("player_id", "a string"))
  .trim()
  .min(1, "player_id must not be empty")
  .regex(PLAYER_ID_PATTERN, `player_id must be ${PLAYER_ID_RULE}`);
const serverIdField = z.string(expect("server_id", "a string")).max(SERVER_ID_MAX, `server_id must be at most ${SERVER_ID_MAX} characters`).nullish();

export const checkPlayerBody = z.object({ player_id: playerIdField, server_id: serverIdField });

export const checkPlayerResponse = z.object({
  success: z.literal(true),
  valid: z.boolean(),
  game_code: z.string(),
  player_id: z.string(),
  server_id: z.string().nullable(),
  player_name: z.string(),
});

export const gameOrderBody = z.object({
  denomination: z
    .string(expect("denomination", "a string"))
    .min(1, "denomination must not be empty")
    .max(200, "denomination must be at most 200 characters"),
  player_id: playerIdField,
  server_id: serverIdField,
  idempotency_key: idempotencyKeyField,
  max_usdt: maxUsdtField,
  quote_id: quoteIdField,
});

export const gameOrderResponse = z
  .object({
    success: z.boolean(),
    order_id: z.number().int(),
    idempotency_key: z.string().nullable(),
    product_type: z.literal("game"),
    game_code: z.string(),
    denomination: z.string(),
    player_id: z.string(),
    server_id: z.string().nullable(),
    player_name: z.string().nullable(),
    usdt_charged: z.number(),
    balance_after: z.number().nullable(),
    status: orderStatus,
    provider_order_id: z.number().int().nullable(),
    provider_status: z.string().nullable(),
    refunded: z.boolean().optional().describe("Only on failed"),
    error: z.string().nullable(),
    poll: z.boolean().optional().describe("Only on processing: true"),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  })
  .meta({ id: "GameOrderResponse" });

// ---- Gift cards ------------------------------------------------------------------------------------

export const categoryParams = z.object({ category_id: z.string().min(1).max(64) });

export const giftcardsResponse = z.object({
  success: z.literal(true),
  markup_percent: z.number(),
  giftcards: z.array(z.object({ category_id: z.string(), name: z.string(), notes: z.string().nullable() }).meta({ id: "GiftcardBrand" })),
});

export const giftcardCatalogueResponse = z.object({
  success: z.literal(true),
  currency: z.string(),
  category_id: z.string(),
  markup_percent: z.number(),
  denominations: z.array(
    z
      .object({
        card_id: z.string(),
        name: z.string(),
        price_usdt: z.number(),
        stock: z.number().int(),
        min_quantity: z.number().int(),
        max_quantity: z.number().int(),
      })
      .meta({ id: "GiftcardDenomination" }),
  ),
});

export const giftcardOrderBody = z.object({
  card_id: z.string(expect("card_id", "a string")).min(1, "card_id must not be empty").max(128, "card_id must be at most 128 characters"),
  quantity: z
    .number(expect("quantity", "a whole number"))
    .int("quantity must be a whole number")
    .min(1, "quantity must be at least 1")
    .max(GIFTCARD_QUANTITY_MAX, `quantity must be at most ${GIFTCARD_QUANTITY_MAX}`)
    .optional()
    .describe(`Defaults to ${GIFTCARD_DEFAULT_QUANTITY}`),
  idempotency_key: idempotencyKeyField,
  max_usdt: maxUsdtField,
  quote_id: quoteIdField,
});

export const giftcardOrderResponse = z
  .object({
    success: z.boolean(),
    order_id: z.number().int(),
    idempotency_key: z.string().nullable(),
    product_type: z.literal("giftcard"),
    category_id: z.string(),
    card_id: z.string(),
    denomination: z.string(),
    quantity: z.number().int(),
    usdt_charged: z.number(),
    balance_after: z.number(),
    status: orderStatus,
    codes_count: z.number().int(),
    codes: z.array(z.string()).optional().describe("Only from GET /v1/giftcards/orders/{order_id}, filled when completed"),
    provider_order_id: z.string().nullable(),
    provider_status: z.string().nullable(),
    refunded: z.boolean().optional().describe("Only on failed"),
    error: z.string().nullable(),
    poll: z.boolean().optional().describe("Only on processing: true"),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  })
  .meta({ id: "GiftcardOrderResponse" });

// ---- Gifts -----------------------------------------------------------------------------------------

const giftIdField = z
  .string(expect("gift_id", "a string of digits"))
  .regex(/^\d{1,20}$/, "gift_id must be a string of digits (a 64-bit id: never send it as a number)");

export const giftsResponse = z.object({
  success: z.literal(true),
  count: z.number().int(),
  stars_range: z.object({ min: z.number().int(), max: z.number().int() }),
  gifts: z.array(
    z
      .object({ gift_id: z.string(), stars: z.number().int(), price_usdt: z.number(), emoji: z.string(), limited: z.boolean() })
      .meta({ id: "GiftCatalogueItem" }),
  ),
});

export const giftBody = z.object({
  recipient: usernameOf("recipient"),
  gift_id: giftIdField,
  hide_name: z.boolean(expect("hide_name", "true or false")).optional(),
  message: z.string(expect("message", "a string")).max(GIFT_MESSAGE_MAX, `message must be at most ${GIFT_MESSAGE_MAX} characters`).optional(),
  idempotency_key: idempotencyKeyField,
  max_usdt: maxUsdtField,
  quote_id: quoteIdField,
});

export const giftIdParams = z.object({ gift_id: z.string().regex(/^\d{1,20}$/, "gift_id must be a string of digits") });

export const giftOrderResponse = z
  .object({
    success: z.boolean(),
    order_id: z.number().int(),
    status: orderStatus,
    recipient: z.string(),
    gift_id: z.string(),
    stars: z.number().int(),
    emoji: z.string(),
    hide_name: z.boolean(),
    message: z.string(),
    usdt_charged: z.number(),
    error: z.string().nullable(),
    error_code: reason.nullable(),
    refunded: z.boolean(),
    created_at: dateTime,
  })
  .meta({ id: "GiftOrder" });

// ---- Binding quotes --------------------------------------------------------------------------------

/** What only a purchase carries (its idempotency key and a quote to buy at): a quote takes the rest of its body. */
const purchaseOnly = { idempotency_key: true, quote_id: true } as const;

const pathField = (name: string) =>
  z.string(expect(name, "a string")).min(1, `${name} must not be empty`).max(64, `${name} must be at most 64 characters`);

export const quoteBody = z
  .discriminatedUnion(
    "product_type",
    [
      starsBody.omit(purchaseOnly).extend({ product_type: z.literal("stars") }),
      premiumBody.omit(purchaseOnly).extend({ product_type: z.literal("premium") }),
      storeBody.omit(purchaseOnly).extend({ product_type: z.literal("store") }),
      gameOrderBody
        .omit(purchaseOnly)
        .extend({ product_type: z.literal("game"), game_code: pathField("game_code").describe("The {code} of POST /v1/games/{code}/order") }),
      giftcardOrderBody.omit(purchaseOnly).extend({
        product_type: z.literal("giftcard"),
        category_id: pathField("category_id").describe("The {category_id} of POST /v1/giftcards/{category_id}/order"),
      }),
      giftBody.omit(purchaseOnly).extend({ product_type: z.literal("gift") }),
    ],
    { error: () => `product_type must be one of ${PRODUCT_TYPES.join(", ")}` },
  )
  .describe("product_type and the body of that product's purchase (game_code and category_id stand for their paths)");

export const quoteResponse = z
  .object({
    success: z.literal(true),
    quote_id: z.string().describe("Send it as quote_id with the purchase"),
    product_type: z.enum(PRODUCT_TYPES),
    charge_usdt: z.number().describe("Exactly what the purchase naming this quote is charged, whatever the price does meanwhile"),
    currency: z.literal("USDT"),
    recipient: z.string().describe("Username, store login, player ID, gift card brand or gift recipient"),
    fields: z
      .object({
        username: z.string().optional(),
        stars: z.number().int().optional(),
        months: z.number().int().optional(),
        login: z.string().optional(),
        amount_usd: z.number().optional(),
        game_code: z.string().optional(),
        denomination: z.string().optional(),
        player_id: z.string().optional(),
        server_id: z.string().nullable().optional(),
        category_id: z.string().optional(),
        card_id: z.string().optional(),
        quantity: z.number().int().optional(),
        recipient: z.string().optional(),
        gift_id: z.string().optional(),
        hide_name: z.boolean().optional(),
        message: z.string().optional(),
      })
      .describe("The identifying fields the quote is bound to: the purchase must send the same ones"),
    created_at: dateTime,
    expires_at: dateTime.describe("Unused after this, the quote is refused with quote_expired"),
    ttl_seconds: z.number().int().describe("The quote's lifetime (QUOTE_TTL_SECONDS)"),
  })
  .meta({ id: "BindingQuote" });
