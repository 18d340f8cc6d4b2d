import type { Caller } from "./accounts.js";
import { DomainError, invalid, providerReader, unavailable } from "./errors.js";
import type { Micro } from "./money.js";
import type { Orders, Placed } from "./orders.js";
import { type GiftItem, type GiftsPort } from "./ports.js";
import { normaliseUsername } from "./purchases.js";

export interface GiftRequest {
  recipient: string;
  giftId: string;
  hideName: boolean;
  message: string;
  idempotencyKey: string | null;
}

export interface GiftDetails {
  gift_id: string;
  stars: number;
  emoji: string;
  hide_name: boolean;
  message: string;
  usdt_per_star_micro: Micro;
}

/** Gifts are priced by their stars at the stars tariff. */
export function createGifts(gifts: GiftsPort, orders: Orders, usdtPerStarMicro: Micro) {
  const live = providerReader(gifts, { missing: "The gift service is not configured", down: "The gift service is unavailable: retry later" });

  return {
    /** The gifts on sale now (sold-out items left out), each with its USDT price. */
    async catalogue() {
      const items = (await live(() => gifts.catalogue())).filter((g) => g.remaining !== 0);
      return items.map((g) => ({ ...g, priceMicro: g.stars * usdtPerStarMicro }));
    },

    async sticker(giftId: string): Promise<unknown | null> {
      return live(() => gifts.sticker(giftId));
    },

    /**
     * Checks the gift and the recipient before the charge, so a refusing recipient costs nothing; a refusal
     * that arrives with the send itself is refunded.
     */
    async send(caller: Caller, request: GiftRequest): Promise<Placed> {
      const recipient = normaliseUsername(request.recipient);
      const identifying = [recipient.toLowerCase(), request.giftId, request.hideName, request.message];
      const earlier = await orders.replay(caller, "gift", identifying, request.idempotencyKey);
      if (earlier) return { order: earlier, replay: true };
      const gift: GiftItem | undefined = (await live(() => gifts.catalogue())).find((g) => g.giftId === request.giftId);
      if (!gift) throw invalid(`gift_id ${request.giftId} is not in the catalogue: read GET /v1/gifts`);
      if (gift.remaining === 0) throw unavailable("This gift is sold out for now: choose another from GET /v1/gifts");
      const check = await live(() => gifts.checkRecipient(recipient));
      if (!check.exists) throw invalid(`Recipient @${recipient} not found`);
      if (!check.acceptsGifts) {
        throw new DomainError("invalid_input", `@${recipient} does not accept gifts: that is the recipient's choice; nothing was charged`, {
          errorCode: "recipient_refuses",
        });
      }

      const details: GiftDetails = {
        gift_id: gift.giftId,
        stars: gift.stars,
        emoji: gift.emoji,
        hide_name: request.hideName,
        message: request.message,
        usdt_per_star_micro: usdtPerStarMicro,
      };
      return orders.submit(
        caller,
        {
          productType: "gift",
          recipient,
          details: { ...details },
          chargeMicro: gift.stars * usdtPerStarMicro,
          idempotencyKey: request.idempotencyKey,
          identifying,
        },
        (order) =>
          gifts.send({ reference: order.upstream_ref, recipient, giftId: gift.giftId, hideName: request.hideName, message: request.message }),
      );
    },
  };
}

export type Gifts = ReturnType<typeof createGifts>;
