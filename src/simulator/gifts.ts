import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SimContext } from "./context.js";

/**
 * Messaging-platform gifts. Ids are 64-bit numbers carried as strings. Recipients starting with refuse_
 * do not accept gifts; fail_ makes the send fail; missing_ does not exist. Limited gifts sell out.
 */
const GIFTS = [
  { id: "5170145012310081615", stars: 15, emoji: "💝", limited: false, remaining: null as number | null },
  { id: "5170233102089322756", stars: 15, emoji: "🧸", limited: false, remaining: null },
  { id: "5168103777563050263", stars: 25, emoji: "🌹", limited: false, remaining: null },
  { id: "6028601630662853006", stars: 50, emoji: "🍾", limited: false, remaining: null },
  { id: "5782984811920491178", stars: 100, emoji: "🎄", limited: true, remaining: 3 },
  { id: "5999277561060787166", stars: 350, emoji: "🎃", limited: true, remaining: 0 },
];

const recipientSchema = z.object({ recipient: z.string().min(1) });
const sendSchema = z.object({
  reference: z.string().min(1).max(200),
  recipient: z.string().min(1),
  gift_id: z.string().regex(/^\d{1,20}$/),
  hide_name: z.boolean(),
  message: z.string().max(255),
});

type Send = { status: "completed"; send_id: string } | { status: "failed"; code: string; error: string };

/** A small valid Lottie animation: a circle that grows, tinted per gift (the emulator's gift stickers too). */
export function giftLottie(id: string) {
  const hue = Number(BigInt(id) % 360n) / 360;
  return {
    v: "5.7.4",
    fr: 30,
    ip: 0,
    op: 60,
    w: 512,
    h: 512,
    nm: `gift ${id}`,
    layers: [
      {
        ty: 4,
        nm: "circle",
        ip: 0,
        op: 60,
        st: 0,
        ind: 1,
        sr: 1,
        ks: {
          o: { a: 0, k: 100 },
          r: { a: 0, k: 0 },
          p: { a: 0, k: [256, 256, 0] },
          a: { a: 0, k: [0, 0, 0] },
          // Grows and shrinks back, with the easing handles players expect on every keyframe but the last.
          s: {
            a: 1,
            k: [
              { t: 0, s: [20, 20, 100], i: { x: [0.5, 0.5, 0.5], y: [1, 1, 1] }, o: { x: [0.5, 0.5, 0.5], y: [0, 0, 0] } },
              { t: 30, s: [100, 100, 100], i: { x: [0.5, 0.5, 0.5], y: [1, 1, 1] }, o: { x: [0.5, 0.5, 0.5], y: [0, 0, 0] } },
              { t: 60, s: [20, 20, 100] },
            ],
          },
        },
        shapes: [
          { ty: "el", p: { a: 0, k: [0, 0] }, s: { a: 0, k: [400, 400] } },
          { ty: "fl", c: { a: 0, k: [hue, 0.5, 0.8, 1] }, o: { a: 0, k: 100 } },
        ],
      },
    ],
  };
}

export function giftRoutes(app: FastifyInstance, sim: SimContext) {
  const gifts = GIFTS.map((gift) => ({ ...gift }));
  const sends = new Map<string, Send>();

  app.get("/gifts/health", async (_request, reply) => ((await sim.blocked("gifts", reply)) ? reply : { ok: true }));

  app.get("/gifts/catalogue", async (_request, reply) => ((await sim.blocked("gifts", reply)) ? reply : { gifts }));

  app.post("/gifts/check-recipient", async (request, reply) => {
    if (await sim.blocked("gifts", reply)) return reply;
    const parsed = recipientSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const lower = parsed.data.recipient.replace(/^@/, "").toLowerCase();
    return { exists: !lower.startsWith("missing_"), accepts_gifts: !lower.startsWith("refuse_") };
  });

  app.post("/gifts/send", async (request, reply) => {
    if (await sim.blocked("gifts", reply)) return reply;
    const parsed = sendSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const body = parsed.data;
    const known = sends.get(body.reference);
    if (known) return reply.code(known.status === "completed" ? 200 : 422).send(known);
    const gift = gifts.find((g) => g.id === body.gift_id);
    if (!gift) return reply.code(422).send({ status: "failed", code: "gift_not_found", error: "no such gift" });
    const fault = await sim.orderFault("gifts", reply);
    if (fault === "dropped") return reply;
    const lower = body.recipient.replace(/^@/, "").toLowerCase();
    let send: Send;
    if (lower.startsWith("refuse_")) send = { status: "failed", code: "recipient_refuses", error: "The recipient does not accept gifts" };
    else if (gift.remaining === 0) send = { status: "failed", code: "sold_out", error: "This gift is sold out" };
    else if (fault === "fail_next" || lower.startsWith("fail_"))
      send = { status: "failed", code: "send_failed", error: "The gift could not be sent" };
    else {
      if (gift.remaining !== null) gift.remaining -= 1;
      send = { status: "completed", send_id: randomUUID() };
    }
    sends.set(body.reference, send);
    if (fault === "hang_after_accept") await sim.hang();
    return reply.code(send.status === "completed" ? 200 : 422).send(send);
  });

  app.get<{ Params: { reference: string } }>("/gifts/sends/:reference", async (request, reply) => {
    if (await sim.blocked("gifts", reply)) return reply;
    const send = sends.get(request.params.reference);
    if (!send) return reply.code(404).send({ error: "no such send" });
    return send;
  });

  app.get<{ Params: { id: string } }>("/gifts/:id/sticker", async (request, reply) => {
    if (await sim.blocked("gifts", reply)) return reply;
    if (!gifts.some((g) => g.id === request.params.id)) return reply.code(404).send({ error: "no such sticker" });
    return giftLottie(request.params.id);
  });
}
