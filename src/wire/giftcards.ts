import { z } from "zod";
import { GIFTCARD_DEFAULT_QUANTITY, GIFTCARD_QUANTITY_MAX } from "../core/formats.js";
import { percentNumber } from "../core/markup.js";
import { type Micro, toUsdt } from "../core/model/money.js";
import type { GiftcardRequest, PricedCard } from "../core/products/giftcards.js";
import type { OrderOfType } from "../core/model/products.js";
import type { GiftcardBrand } from "../core/ports.js";
import { asyncFlags, envelopeHead, envelopeTail, expect, orderEnvelope, orderStatus, purchaseBody } from "./common.js";

// Gift card codes: brands, catalogues, and the order (GiftcardOrderResponse), whose codes only its status endpoint shows.

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

export const giftcardOrderBody = purchaseBody({
  card_id: z.string(expect("card_id", "a string")).min(1, "card_id must not be empty").max(128, "card_id must be at most 128 characters"),
  quantity: z
    .number(expect("quantity", "a whole number"))
    .int("quantity must be a whole number")
    .min(1, "quantity must be at least 1")
    .max(GIFTCARD_QUANTITY_MAX, `quantity must be at most ${GIFTCARD_QUANTITY_MAX}`)
    .optional()
    .describe(`Defaults to ${GIFTCARD_DEFAULT_QUANTITY}`),
});

export const giftcardOrderResponse = orderEnvelope(z.literal("giftcard"), {
  category_id: z.string(),
  brand: z.string().nullable().describe("The brand's name as GET /v1/giftcards lists it; null for orders placed before names were kept"),
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
}).meta({ id: "GiftcardOrderResponse" });

/** The core's request of an order body for the brand in the path (quantity defaults to 1). */
export const giftcardRequestOf = (categoryId: string, body: { card_id: string; quantity?: number }): GiftcardRequest => ({
  categoryId,
  cardId: body.card_id,
  quantity: body.quantity ?? GIFTCARD_DEFAULT_QUANTITY,
});

export const giftcardsView = (list: { markupBp: number; brands: GiftcardBrand[] }): z.infer<typeof giftcardsResponse> => ({
  success: true as const,
  markup_percent: percentNumber(list.markupBp),
  giftcards: list.brands.map((b) => ({ category_id: b.categoryId, name: b.name, notes: b.notes })),
});

export const giftcardCatalogueView = (
  categoryId: string,
  catalogue: { markupBp: number; cards: PricedCard[] },
): z.infer<typeof giftcardCatalogueResponse> => ({
  success: true as const,
  currency: "USDT",
  category_id: categoryId,
  markup_percent: percentNumber(catalogue.markupBp),
  denominations: catalogue.cards.map((c) => ({
    card_id: c.cardId,
    name: c.name,
    price_usdt: toUsdt(c.priceMicro),
    stock: c.stock,
    min_quantity: c.minQuantity,
    max_quantity: c.maxQuantity,
  })),
});

/** Codes are passed only by the order's own status endpoint; every other view (and every event) leaves them out. */
export function giftcardView(order: OrderOfType<"giftcard">, balanceMicro: Micro, codes?: string[]): z.infer<typeof giftcardOrderResponse> {
  const { details } = order;
  return {
    success: order.status !== "failed",
    ...envelopeHead(order),
    category_id: details.category_id,
    brand: details.brand ?? null,
    card_id: details.card_id,
    denomination: details.denomination,
    quantity: details.quantity,
    usdt_charged: toUsdt(order.chargeMicro),
    balance_after: toUsdt(balanceMicro),
    status: order.status,
    codes_count: order.status === "completed" ? details.quantity : 0,
    ...(codes === undefined ? {} : { codes }),
    provider_order_id: order.providerOrderId,
    provider_status: order.providerStatus,
    ...asyncFlags(order),
    error: order.error,
    ...envelopeTail(order),
  };
}
