import { z } from "zod";
import type { GiftsPort, UpstreamOutcome } from "../core/ports.js";
import { reasonOf } from "../core/model/reasons.js";
import { GIFT_MESSAGE_MAX } from "../core/formats.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { lookup, missing, notConfigured, orderReference, read, readAlways, submit } from "./provider.js";

// What this adapter sends and accepts: the gifts' part of docs/provider-protocol.openapi.json.
// Gift ids are 64-bit numbers: accepted only as strings, so JSON.parse never rounds one.
const giftId = z
  .string()
  .regex(/^\d{1,20}$/)
  .describe("The gift's id: a 64-bit number, always written as a string");
export const catalogueSchema = z.object({
  gifts: z.array(
    z.object({
      id: giftId,
      stars: z.number().int().positive().describe("The gift's price in stars"),
      emoji: z.string(),
      limited: z.boolean(),
      remaining: z.number().int().min(0).nullable().describe("How many are left of a limited gift (0: sold out); null when unlimited"),
    }),
  ),
});
export const recipientRequest = z.object({ recipient: z.string().describe("The recipient's username, without the @") });
export const recipientSchema = z.object({ exists: z.boolean(), accepts_gifts: z.boolean() });
export const sendRequest = z.object({
  reference: orderReference,
  recipient: z.string().describe("The recipient's username, without the @"),
  gift_id: giftId,
  hide_name: z.boolean().describe("Hide the sender's name from the recipient"),
  message: z.string().describe("A message to send with the gift, up to 255 characters; may be empty"),
});
export const sendSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("completed"), send_id: z.string().describe("The provider's id of the send, kept as the order's `transaction_id`") }),
  z.object({
    status: z.literal("failed"),
    code: z
      .string()
      .describe(
        "A failure's reason: kept as the order's `error_code` when it is one of the service's reasons (`recipient_refuses`, `provider_balance`, …); anything else is `provider_error`",
      ),
    error: z.string().describe("A failure's message, kept as the order's `error`"),
  }),
]);
export const stickerSchema = z.record(z.string(), z.unknown()).describe("The gift's sticker: a Lottie animation (JSON)");

/** The messaging platform's gift service over HTTP. */
export function createGiftsAdapter(http: HttpClient | null): GiftsPort {
  if (!http)
    return {
      ...notConfigured,
      messageMax: GIFT_MESSAGE_MAX,
      namesBuyer: true,
      catalogue: missing,
      checkRecipient: missing,
      send: missing,
      status: missing,
      sticker: missing,
    };
  const map = (response: UpstreamResponse): UpstreamOutcome => {
    const answer = http.parse(sendSchema, response);
    if (answer.status === "completed") return { kind: "completed", transactionId: answer.send_id };
    return { kind: "failed", error: answer.error, reason: reasonOf(answer.code) };
  };
  return {
    configured: true,
    messageMax: GIFT_MESSAGE_MAX,
    namesBuyer: true,
    ready: () => http.ready("/gifts/health"),
    async catalogue() {
      const { gifts } = await readAlways(http, "/gifts/catalogue", catalogueSchema);
      return gifts.map((g) => ({ giftId: g.id, stars: g.stars, emoji: g.emoji, limited: g.limited, remaining: g.remaining }));
    },
    async checkRecipient(recipient) {
      const answer = await readAlways(http, "/gifts/check-recipient", recipientSchema, { recipient } satisfies z.input<typeof recipientRequest>);
      return { exists: answer.exists, acceptsGifts: answer.accepts_gifts };
    },
    send: (order) =>
      submit(
        http,
        "/gifts/send",
        {
          reference: order.reference,
          recipient: order.recipient,
          gift_id: order.giftId,
          hide_name: order.hideName,
          message: order.message,
        } satisfies z.input<typeof sendRequest>,
        map,
      ),
    status: (reference) => lookup(http, `/gifts/sends/${encodeURIComponent(reference)}`, map),
    sticker: (giftId) => read(http, `/gifts/${encodeURIComponent(giftId)}/sticker`, stickerSchema),
  };
}
