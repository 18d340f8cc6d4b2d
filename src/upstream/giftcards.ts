import { z } from "zod";
import { fromUsd } from "../core/model/money.js";
import type { GiftcardsPort, UpstreamOutcome } from "../core/ports.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { lookup, missing, notConfigured, providerUsd, read, readAlways, submit } from "./provider.js";

const brandsSchema = z.object({ brands: z.array(z.object({ category_id: z.string().min(1), name: z.string(), notes: z.string().nullable() })) });
const catalogueSchema = z.object({
  cards: z.array(
    z.object({
      card_id: z.string().min(1),
      name: z.string(),
      cost_usd: providerUsd,
      stock: z.number().int().min(0),
      min_quantity: z.number().int().min(1),
      max_quantity: z.number().int().min(1),
    }),
  ),
});
const orderSchema = z.object({
  status: z.enum(["completed", "failed", "processing"]),
  provider_order_id: z.string().optional(),
  provider_status: z.string().optional(),
  codes: z.array(z.string().min(1)).optional(),
  error: z.string().optional(),
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
        { reference: order.reference, category_id: order.categoryId, card_id: order.cardId, quantity: order.quantity },
        map,
      ),
    status: (reference) => lookup(http, `/giftcards/orders/${encodeURIComponent(reference)}`, map),
  };
}
