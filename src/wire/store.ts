import { z } from "zod";
import type { Priced } from "../core/purchase.js";
import { percentNumber, type StorePrice } from "../core/markup.js";
import { MAX_USDT, type Micro, type MicroUsd, microUsd, toUsd, toUsdt, usdAsSent, usdAsUsdt } from "../core/model/money.js";
import type { OrderOfType, StoreDetails } from "../core/model/products.js";
import type { StoreRequest } from "../core/products/store.js";
import type { StoreLimits } from "../core/ports.js";
import type { Reason } from "../core/model/reasons.js";
import { envelopeHead, envelopeTail, expect, orderEnvelope, orderStatus, purchaseBody, reason, sandboxOrder } from "./common.js";

// Game-store wallet top-ups: pricing, the order body and answer (StoreOrderResponse), and the sandbox's.

/** The store's machine-readable reasons for a bad field, on every route that takes a store body. */
export const STORE_FIELD_CODES: Record<string, Reason> = { login: "login_not_supported", amount_usd: "invalid_amount" };

const storeQuoteSchema = z
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

export const storeBody = purchaseBody({
  login: z.string(expect("login", "a string")).min(1, "login must not be empty").max(200, "login must be at most 200 characters"),
  amount_usd: z
    .number(expect("amount_usd", "a number"))
    .positive("amount_usd must be more than 0")
    .max(MAX_USDT, `amount_usd must be at most ${MAX_USDT}`)
    .meta({ multipleOf: 0.01 })
    .describe("Nominal in USD, at most 2 decimals; the live limits (GET /v1/store/pricing, 1 to 400 today) decide what is accepted"),
});

export const storeOrderResponse = orderEnvelope(z.literal("store"), {
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
}).meta({ id: "StoreOrderResponse" });

/** The core's request of a store body. */
/**
 * The nominal as sent, in micro-USD, for the core to judge in its own order (the login first, a disabled store
 * before any amount): a value that is no whole number of micro becomes -1, which the core refuses as
 * `invalid_amount` like any nominal that is not whole cents.
 */
const sentNominal = (amountUsd: number): MicroUsd => usdAsSent(amountUsd) ?? microUsd(-1);

export const storeRequestOf = (body: { login: string; amount_usd: number }): StoreRequest => ({
  login: body.login,
  amountMicro: sentNominal(body.amount_usd),
});

/** The nominal a pricing request asks a quote for, in micro; undefined without one. */
export const storePricingAmountOf = (query: { amount_usd?: number }): MicroUsd | undefined =>
  query.amount_usd === undefined ? undefined : sentNominal(query.amount_usd);

function storeQuoteView(quote: StorePrice): z.infer<typeof storeQuoteSchema> {
  return {
    amount_usd: toUsd(quote.amountMicro),
    provider_fee_usd: toUsd(quote.feeMicro),
    cost_usd: toUsd(quote.costMicro),
    markup_percent: percentNumber(quote.markupBp),
    markup_usdt: toUsdt(usdAsUsdt(quote.markupMicro)),
    total_usdt: toUsdt(usdAsUsdt(quote.totalMicro)),
  };
}

export function storePricingView(pricing: {
  limits: StoreLimits;
  markupBp: number;
  examples: StorePrice[];
  quote: StorePrice | null;
}): z.infer<typeof storePricingResponse> {
  const { limits, markupBp, examples, quote } = pricing;
  return {
    success: true as const,
    currency: "USDT",
    min_usd: toUsd(limits.minMicro),
    max_usd: toUsd(limits.maxMicro),
    markup_percent: percentNumber(markupBp),
    provider_fee_ratio: limits.feePpm / 1_000_000,
    examples: examples.map(storeQuoteView),
    quote: quote && storeQuoteView(quote),
  };
}

export function storeView(order: OrderOfType<"store">, balanceMicro: Micro): z.infer<typeof storeOrderResponse> {
  const { details } = order;
  return {
    success: order.status === "completed",
    ...envelopeHead(order),
    store_login: details.store_login,
    store_amount_usd: toUsdt(details.amount_micro),
    store_markup_usdt: toUsdt(details.markup_micro),
    amount: toUsdt(details.amount_micro),
    usdt_charged: toUsdt(order.chargeMicro),
    status: order.status,
    transaction_id: order.providerOrderId ?? order.transactionId,
    error: order.error,
    balance_remaining_usdt: toUsdt(balanceMicro),
    pending: order.status === "processing" ? true : null,
    refunded: order.status === "failed" ? order.refunded : null,
    error_code: order.status === "failed" ? order.reason : null,
    ...envelopeTail(order),
  };
}

/**
 * The store's sandbox answer: the store order format, completed at once (the contract has no `test` field
 * here). The login shown is the one the request normalises to, even when a binding quote was named.
 */
export const storeSandboxView = (price: Priced<StoreDetails>, context: { idempotencyKey: string | null; now: Date }, balanceMicro: Micro) =>
  storeView(sandboxOrder("store", { ...price, details: { ...price.details, store_login: price.recipient } }, context), balanceMicro);
