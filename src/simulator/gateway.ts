import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { displayName, type SimContext } from "./context.js";

/** Stars and premium delivery. fail_: delivery fails; slow_: takes seconds; missing_: not found; premium_: has premium. */
const SLOW_DELIVERY_MS = 4_000;

const searchSchema = z.object({ query: z.string().min(1), product_type: z.enum(["stars", "premium", "ads"]) });
const deliverySchema = z.object({
  reference: z.string().min(1).max(200),
  product_type: z.enum(["stars", "premium"]),
  username: z.string().min(1),
  amount: z.number().int().positive(),
});

type Delivery = { status: "completed"; transaction_id: string } | { status: "failed"; error: string } | { status: "processing" };

export function gatewayRoutes(app: FastifyInstance, sim: SimContext) {
  const deliveries = new Map<string, Delivery>();

  app.get("/gateway/health", async (_request, reply) => ((await sim.blocked("gateway", reply)) ? reply : { ok: true }));

  app.post("/gateway/search", async (request, reply) => {
    if (await sim.blocked("gateway", reply)) return reply;
    const parsed = searchSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const username = parsed.data.query.replace(/^@/, "");
    const lower = username.toLowerCase();
    if (lower.startsWith("missing_")) return reply.code(404).send({ error: "user not found" });
    return {
      username,
      name: displayName(username),
      photo: `https://cdn.simulator.invalid/photos/${encodeURIComponent(lower)}.jpg`,
      premium: lower.startsWith("premium_"),
    };
  });

  app.post("/gateway/deliveries", async (request, reply) => {
    if (await sim.blocked("gateway", reply)) return reply;
    const parsed = deliverySchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const { reference, username } = parsed.data;
    // Idempotent by reference, as a real provider's order reference is: a resend never delivers twice.
    const known = deliveries.get(reference);
    if (known) return known;
    const fault = await sim.orderFault("gateway", reply);
    if (fault === "dropped") return reply;
    const lower = username.toLowerCase();
    if (fault === "fail_next" || lower.startsWith("fail_")) {
      const failed: Delivery = { status: "failed", error: `Delivery to @${username} failed at the provider` };
      deliveries.set(reference, failed);
      return reply.code(422).send(failed);
    }
    deliveries.set(reference, { status: "processing" });
    if (lower.startsWith("slow_")) await new Promise((resolve) => setTimeout(resolve, SLOW_DELIVERY_MS * sim.scale));
    const done: Delivery = { status: "completed", transaction_id: `sim_${randomUUID()}` };
    deliveries.set(reference, done);
    if (fault === "hang_after_accept") await sim.hang();
    return done;
  });

  app.get<{ Params: { reference: string } }>("/gateway/deliveries/:reference", async (request, reply) => {
    if (await sim.blocked("gateway", reply)) return reply;
    const known = deliveries.get(request.params.reference);
    if (!known) return reply.code(404).send({ error: "no such delivery" });
    return known;
  });
}
