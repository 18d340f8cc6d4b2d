import { z } from "zod";
import { fromUsd } from "../core/model/money.js";
import type { GiftcardsPort, UpstreamOutcome } from "../core/ports.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import {
  lookup,
  missing,
  notConfigured,
  orderReference,
  orderStatus,
  PROVIDER_ORDER_ID_MEANING,
  providerUsd,
  read,
  readAlways,
  submit,
} from "./provider.js";

// What this adapter sends and accepts: the gift cards' part of docs/provider-protocol.openapi.json.
export const brandsSchema = z.object({
  brands: z.array(
    z.object({ category_id: z.string().min(1).describe("The brand's id, used in the paths below"), name: z.string(), notes: z.string().nullable() }),
  ),
});
export const catalogueSchema = z.object({
  cards: z.array(
    z.object({
      card_id: z.string().min(1),
      name: z.string().describe("The denomination as the buyer sees it"),
      cost_usd: providerUsd.describe("What the provider charges us per card, in USD"),
      stock: z.number().int().min(0).describe("Cards available now; 0 when out of stock"),
      min_quantity: z.number().int().min(1),
      max_quantity: z.number().int().min(1),
    }),
  ),
});
export const giftcardOrderRequest = z.object({
  reference: orderReference,
  category_id: z.string(),
  card_id: z.string(),
  quantity: z.number().int().positive(),
});
export const orderSchema = z.object({
  status: orderStatus,
  provider_order_id: z.string().optional().describe(PROVIDER_ORDER_ID_MEANING),
  provider_status: z.string().optional().describe("The provider's own status word, kept on the order"),
  codes: z
    .array(z.string().min(1))
    .optional()
    .describe("A completed order's redeem codes, one per card: sealed at rest and shown only to the buyer. The lookup must answer them again"),
  error: z.string().optional().describe("A failure's message, kept as the order's `error`"),
});

/** The gift card provider over HTTP. */
export function createGiftcardsAdapter(http: HttpClient | null): GiftcardsPort {
  if (!http) return { ...notConfigured, brands: missing, catalogue: missing, order: missing, status: missing };
  const map = (response: UpstreamResponse): UpstreamOutcome => {
    const answer = http.parse(orderSchema, response);
    const provider = { providerOrderId: answer.provider_order_id, providerStatus: answer.provider_status };
    if (answer.status === "completed") return { kind: "completed", codes: answer.codes ?? [], ...provider };
    if (answer.status === "failed") return { kind: "failed", error: answer.error ?? "The provider rejected the order", ...provider };
    return { kind: "pending", ...provider };
  };
  return {
    configured: true,
    ready: () => http.ready("/giftcards/health"),
    async brands() {
      const { brands } = await readAlways(http, "/giftcards/brands", brandsSchema);
      return brands.map((b) => ({ categoryId: b.category_id, name: b.name, notes: b.notes }));
    },
    async catalogue(categoryId) {
      const catalogue = await read(http, `/giftcards/${encodeURIComponent(categoryId)}/catalogue`, catalogueSchema);
      return (
        catalogue &&
        catalogue.cards.map((c) => ({
          cardId: c.card_id,
          name: c.name,
          costMicro: fromUsd(c.cost_usd),
          stock: c.stock,
          minQuantity: c.min_quantity,
          maxQuantity: c.max_quantity,
        }))
      );
    },
    order: (order) =>
      submit(
        http,
        "/giftcards/orders",
        {
          reference: order.reference,
          category_id: order.categoryId,
          card_id: order.cardId,
          quantity: order.quantity,
        } satisfies z.input<typeof giftcardOrderRequest>,
        map,
      ),
    status: (reference) => lookup(http, `/giftcards/orders/${encodeURIComponent(reference)}`, map),
  };
}
