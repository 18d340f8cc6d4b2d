import { z } from "zod";
import { toUsdt } from "../core/model/money.js";
import { PRODUCT_TYPES, type ProductType } from "../core/model/products.js";
import type { BindingQuote } from "../core/model/quote.js";
import { closedBody, dateTime, expect } from "./common.js";
import { gameOrderBody } from "./games.js";
import { giftcardOrderBody } from "./giftcards.js";
import { giftBody } from "./gifts.js";
import { premiumBody } from "./premium.js";
import { starsBody } from "./stars.js";
import { storeBody } from "./store.js";

// Binding quotes (an addition to the contract): the body of any product's purchase with its product_type,
// and the exact charge a purchase naming the quote will have.

/** What only a purchase carries (its idempotency key and a quote to buy at): a quote takes the rest of its body. */
const purchaseOnly = { idempotency_key: true, quote_id: true } as const;

const pathField = (name: string) =>
  z.string(expect(name, "a string")).min(1, `${name} must not be empty`).max(64, `${name} must be at most 64 characters`);

export const quoteBody = z
  .discriminatedUnion(
    "product_type",
    [
      closedBody({ ...starsBody.omit(purchaseOnly).shape, product_type: z.literal("stars") }),
      closedBody({ ...premiumBody.omit(purchaseOnly).shape, product_type: z.literal("premium") }),
      closedBody({ ...storeBody.omit(purchaseOnly).shape, product_type: z.literal("store") }),
      closedBody({
        ...gameOrderBody.omit(purchaseOnly).shape,
        product_type: z.literal("game"),
        game_code: pathField("game_code").describe("The {code} of POST /v1/games/{code}/order"),
      }),
      closedBody({
        ...giftcardOrderBody.omit(purchaseOnly).shape,
        product_type: z.literal("giftcard"),
        category_id: pathField("category_id").describe("The {category_id} of POST /v1/giftcards/{category_id}/order"),
      }),
      closedBody({ ...giftBody.omit(purchaseOnly).shape, product_type: z.literal("gift") }),
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

export type QuoteBody = z.infer<typeof quoteBody>;
export type QuoteFields = z.infer<typeof quoteResponse>["fields"];

export const quoteView = (productType: ProductType, quote: BindingQuote, fields: QuoteFields): z.infer<typeof quoteResponse> => ({
  success: true as const,
  quote_id: quote.id,
  product_type: productType,
  charge_usdt: toUsdt(quote.chargeMicro),
  currency: "USDT" as const,
  recipient: quote.recipient,
  fields,
  created_at: quote.createdAt,
  expires_at: quote.expiresAt,
  ttl_seconds: Math.round((Date.parse(quote.expiresAt) - Date.parse(quote.createdAt)) / 1000),
});
