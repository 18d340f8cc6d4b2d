import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SimContext } from "./context.js";

/**
 * Game-store wallet top-ups by account login. Test logins: fail_ (rejected), nofunds_ (the provider's own
 * balance is short), pending_ (202, completes later), pendingfail_ (202, fails later), expire_ (202, expires).
 */
const STORE_LIMITS = { min_usd: 1, max_usd: 400, fee_ratio: 0.03 };
const PENDING_MS = 20_000;

const orderSchema = z.object({
  reference: z.string().min(1).max(200),
  login: z.string().min(1).max(200),
  amount_usd: z.number().positive(),
});

interface StoreOrder {
  order_uuid: string;
  ready_at: number;
  outcome: { status: "completed" } | { status: "failed"; code: string; error: string };
}

export function storeRoutes(app: FastifyInstance, sim: SimContext) {
  const orders = new Map<string, StoreOrder>();

  function view(order: StoreOrder) {
    if (Date.now() < order.ready_at) return { status: "processing", order_uuid: order.order_uuid };
    return { ...order.outcome, order_uuid: order.order_uuid };
  }

  app.get("/store/health", async (_request, reply) => ((await sim.blocked("store", reply)) ? reply : { ok: true }));

  app.get("/store/limits", async (_request, reply) => ((await sim.blocked("store", reply)) ? reply : STORE_LIMITS));

  app.post("/store/orders", async (request, reply) => {
    if (await sim.blocked("store", reply)) return reply;
    const parsed = orderSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const { reference, login, amount_usd } = parsed.data;
    const known = orders.get(reference);
    if (known) return reply.code(Date.now() < known.ready_at ? 202 : 200).send(view(known));

    const fault = await sim.orderFault("store", reply);
    if (fault === "dropped") return reply;
    const lower = login.toLowerCase();
    const order_uuid = randomUUID();
    const later = Date.now() + PENDING_MS * sim.scale;
    let order: StoreOrder;
    if (amount_usd < STORE_LIMITS.min_usd || amount_usd > STORE_LIMITS.max_usd) {
      order = { order_uuid, ready_at: 0, outcome: { status: "failed", code: "invalid_amount", error: "amount outside the limits" } };
    } else if (fault === "fail_next" || lower.startsWith("fail_")) {
      order = { order_uuid, ready_at: 0, outcome: { status: "failed", code: "provider_error", error: `The store rejected the top-up of ${login}` } };
    } else if (lower.startsWith("nofunds_")) {
      order = { order_uuid, ready_at: 0, outcome: { status: "failed", code: "provider_balance", error: "The provider's balance is insufficient" } };
    } else if (lower.startsWith("pendingfail_")) {
      order = {
        order_uuid,
        ready_at: later,
        outcome: { status: "failed", code: "provider_error", error: `The store rejected the top-up of ${login}` },
      };
    } else if (lower.startsWith("expire_")) {
      order = { order_uuid, ready_at: later, outcome: { status: "failed", code: "expired", error: "The provider order expired undelivered" } };
    } else {
      order = { order_uuid, ready_at: lower.startsWith("pending_") ? later : 0, outcome: { status: "completed" } };
    }
    orders.set(reference, order);
    if (fault === "hang_after_accept") await sim.hang();
    const shown = view(order);
    return reply.code(shown.status === "processing" ? 202 : shown.status === "failed" ? 422 : 200).send(shown);
  });

  app.get<{ Params: { reference: string } }>("/store/orders/:reference", async (request, reply) => {
    if (await sim.blocked("store", reply)) return reply;
    const order = orders.get(request.params.reference);
    if (!order) return reply.code(404).send({ error: "no such order" });
    return view(order);
  });
}
