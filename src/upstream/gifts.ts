import { z } from "zod";
import type { GiftsPort, UpstreamOutcome } from "../core/ports.js";
import { reasonOf } from "../core/model/reasons.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { lookup, missing, notConfigured, read, readAlways, submit } from "./provider.js";

// Gift ids are 64-bit numbers: accepted only as strings, so JSON.parse never rounds one.
const catalogueSchema = z.object({
  gifts: z.array(
    z.object({
      id: z.string().regex(/^\d{1,20}$/),
      stars: z.number().int().positive(),
      emoji: z.string(),
      limited: z.boolean(),
      remaining: z.number().int().min(0).nullable(),
    }),
  ),
});
const recipientSchema = z.object({ exists: z.boolean(), accepts_gifts: z.boolean() });
const sendSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("completed"), send_id: z.string() }),
  z.object({ status: z.literal("failed"), code: z.string(), error: z.string() }),
]);

/** The messaging platform's gift service over HTTP. */
export function createGiftsAdapter(http: HttpClient | null): GiftsPort {
  if (!http) return { ...notConfigured, catalogue: missing, checkRecipient: missing, send: missing, status: missing, sticker: missing };
  const map = (response: UpstreamResponse): UpstreamOutcome => {
    const answer = http.parse(sendSchema, response);
    if (answer.status === "completed") return { kind: "completed", transactionId: answer.send_id };
    return { kind: "failed", error: answer.error, reason: reasonOf(answer.code) };
  };
  return {
    configured: true,
    ready: () => http.ready("/gifts/health"),
    async catalogue() {
      const { gifts } = await readAlways(http, "/gifts/catalogue", catalogueSchema);
      return gifts.map((g) => ({ giftId: g.id, stars: g.stars, emoji: g.emoji, limited: g.limited, remaining: g.remaining }));
    },
    async checkRecipient(recipient) {
      const answer = await readAlways(http, "/gifts/check-recipient", recipientSchema, { recipient });
      return { exists: answer.exists, acceptsGifts: answer.accepts_gifts };
    },
    send: (order) =>
      submit(
        http,
        "/gifts/send",
        { reference: order.reference, recipient: order.recipient, gift_id: order.giftId, hide_name: order.hideName, message: order.message },
        map,
      ),
    status: (reference) => lookup(http, `/gifts/sends/${encodeURIComponent(reference)}`, map),
    sticker: (giftId) => read(http, `/gifts/${encodeURIComponent(giftId)}/sticker`, z.record(z.string(), z.unknown())),
  };
}
