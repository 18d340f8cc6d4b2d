import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SimContext } from "./context.js";

/**
 * Gift card codes. Stock is uneven and one denomination is out of stock; card `apple-us-fail` always fails
 * at the provider. Codes are ready about 23 seconds after the order, times the scale.
 */
const BRANDS = [
  { category_id: "psn-us", name: "PlayStation Store (US)", notes: "Redeemable on US PlayStation accounts only" },
  { category_id: "apple-us", name: "App Store & iTunes (US)", notes: "US Apple accounts only" },
  { category_id: "google-play-tr", name: "Google Play (TR)", notes: "Turkish Google accounts only" },
];

interface Card {
  card_id: string;
  category_id: string;
  name: string;
  cost_usd: number;
  stock: number;
  min_quantity: number;
  max_quantity: number;
}

/** The starting catalogue; each simulator instance keeps its own copy, whose stock orders consume. */
const CARDS: Card[] = [
  { card_id: "psn-us-10", category_id: "psn-us", name: "$10", cost_usd: 10, stock: 40, min_quantity: 1, max_quantity: 10 },
  { card_id: "psn-us-25", category_id: "psn-us", name: "$25", cost_usd: 25, stock: 3, min_quantity: 1, max_quantity: 5 },
  { card_id: "psn-us-50", category_id: "psn-us", name: "$50", cost_usd: 50, stock: 0, min_quantity: 1, max_quantity: 5 },
  { card_id: "psn-us-10-promo", category_id: "psn-us", name: "$10", cost_usd: 9.8, stock: 7, min_quantity: 2, max_quantity: 4 },
  { card_id: "apple-us-5", category_id: "apple-us", name: "$5", cost_usd: 5, stock: 100, min_quantity: 1, max_quantity: 20 },
  { card_id: "apple-us-fail", category_id: "apple-us", name: "$2 (test: always fails)", cost_usd: 2, stock: 1000, min_quantity: 1, max_quantity: 5 },
  { card_id: "google-play-tr-100", category_id: "google-play-tr", name: "100 TRY", cost_usd: 3.1, stock: 12, min_quantity: 1, max_quantity: 3 },
];

const READY_MS = 23_000;
const orderSchema = z.object({
  reference: z.string().min(1).max(200),
  category_id: z.string(),
  card_id: z.string(),
  quantity: z.number().int().positive(),
});

interface CardOrder {
  provider_order_id: string;
  ready_at: number;
  outcome: { status: "completed"; codes: string[] } | { status: "failed"; error: string };
}

const code = () => randomBytes(8).toString("hex").toUpperCase().match(/.{4}/g)!.join("-");

export function giftcardRoutes(app: FastifyInstance, sim: SimContext, stockScale = 1) {
  const cards = CARDS.map((card) => ({ ...card, stock: card.stock * stockScale }));
  const orders = new Map<string, CardOrder>();
  let next = 1;

  function view(order: CardOrder) {
    const base = { provider_order_id: order.provider_order_id };
    if (Date.now() < order.ready_at) return { ...base, status: "processing", provider_status: "pending" };
    if (order.outcome.status === "failed") return { ...base, status: "failed", provider_status: "cancelled", error: order.outcome.error };
    return { ...base, status: "completed", provider_status: "fulfilled", codes: order.outcome.codes };
  }

  app.get("/giftcards/health", async (_request, reply) => ((await sim.blocked("giftcards", reply)) ? reply : { ok: true }));

  app.get("/giftcards/brands", async (_request, reply) => ((await sim.blocked("giftcards", reply)) ? reply : { brands: BRANDS }));

  app.get<{ Params: { category: string } }>("/giftcards/:category/catalogue", async (request, reply) => {
    if (await sim.blocked("giftcards", reply)) return reply;
    if (!BRANDS.some((b) => b.category_id === request.params.category)) return reply.code(404).send({ error: "unknown brand" });
    return { cards: cards.filter((c) => c.category_id === request.params.category).map(({ category_id: _c, ...card }) => card) };
  });

  app.post("/giftcards/orders", async (request, reply) => {
    if (await sim.blocked("giftcards", reply)) return reply;
    const parsed = orderSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const body = parsed.data;
    const known = orders.get(body.reference);
    if (known) return reply.code(202).send(view(known));
    const card = cards.find((c) => c.card_id === body.card_id && c.category_id === body.category_id);
    if (!card) return reply.code(422).send({ status: "failed", error: "unknown card" });
    if (body.quantity > card.stock || body.quantity < card.min_quantity || body.quantity > card.max_quantity) {
      return reply.code(422).send({ status: "failed", error: "quantity not available" });
    }
    card.stock -= body.quantity;
    const fault = await sim.orderFault("giftcards", reply);
    if (fault === "dropped") return reply;
    const order: CardOrder = {
      provider_order_id: `GC-${String(next++).padStart(6, "0")}`,
      ready_at: Date.now() + READY_MS * sim.scale,
      outcome:
        fault === "fail_next" || card.card_id === "apple-us-fail"
          ? { status: "failed", error: "The card issuer declined the order" }
          : { status: "completed", codes: Array.from({ length: body.quantity }, code) },
    };
    orders.set(body.reference, order);
    if (fault === "hang_after_accept") await sim.hang();
    return reply.code(202).send(view(order));
  });

  app.get<{ Params: { reference: string } }>("/giftcards/orders/:reference", async (request, reply) => {
    if (await sim.blocked("giftcards", reply)) return reply;
    const order = orders.get(request.params.reference);
    if (!order) return reply.code(404).send({ error: "no such order" });
    return view(order);
  });
}
