import { DomainError, invalid, unavailable } from "../model/errors.js";
import { providerReader, type GiftsPort } from "../ports.js";
import { GIFT_MESSAGE_MAX, recipientOf } from "../formats.js";
import { type Micro, micro } from "../model/money.js";
import { giftProduct, type GiftDetails } from "../model/products.js";
import type { Purchasable, PurchasePipeline } from "../purchase.js";
import { sharedRead } from "../shared-read.js";

export interface GiftRequest {
  recipient: string;
  giftId: string;
  hideName: boolean;
  message: string;
}

/**
 * Gifts are priced by their stars at the stars tariff. The listing is read from the provider at most once per
 * `cacheMs` (sharedRead); a purchase reads the catalogue live, so a gift sold out meanwhile is refused before the
 * charge.
 */
export function createGifts({
  gifts,
  pipeline,
  usdtPerStarMicro,
  cacheMs,
  now,
}: {
  gifts: GiftsPort;
  pipeline: PurchasePipeline;
  usdtPerStarMicro: Micro;
  cacheMs: number;
  now: () => number;
}) {
  const live = providerReader(gifts, { missing: "The gift service is not configured", down: "The gift service is unavailable: retry later" });
  const listed = sharedRead(() => live(() => gifts.catalogue()), cacheMs, now);

  /** The gifts on sale (sold-out items left out), each with its USDT price, as read within the last `cacheMs`. */
  async function catalogue() {
    const items = (await listed()).filter((g) => g.remaining !== 0);
    return items.map((g) => ({ priceMicro: micro(g.stars * usdtPerStarMicro), ...g }));
  }

  // The contract's bound, or the backend's own where it carries less (Telegram: 128).
  const messageMax = Math.min(GIFT_MESSAGE_MAX, gifts.messageMax);

  /** A backend paying from its own Stars (Telegram: the bot's) must hold the gift's price before anyone is charged. */
  async function covered(stars: number) {
    if (!gifts.funds) return;
    const funds = await live(() => gifts.funds!());
    if (funds.unit === "stars" && funds.amount < stars) {
      throw unavailable("The gift service cannot send this gift now: retry later; nothing was charged", { reason: "provider_balance" });
    }
  }

  const product: Purchasable<"gift", GiftRequest, GiftDetails> = {
    ...giftProduct,
    identify: (r) => [recipientOf(r.recipient, "recipient").toLowerCase(), r.giftId, r.hideName, r.message],
    /** The gift and the recipient are checked before the charge, so a refusing recipient costs nothing. */
    async prepare(_caller, request) {
      const recipient = recipientOf(request.recipient, "recipient");
      if (request.message.length > messageMax) throw invalid(`message must be at most ${messageMax} characters`);
      const gift = (await live(() => gifts.catalogue())).find((g) => g.giftId === request.giftId);
      if (!gift) throw invalid(`gift_id ${request.giftId} is not in the catalogue: read GET /v1/gifts`);
      if (gift.remaining === 0) throw unavailable("This gift is sold out for now: choose another from GET /v1/gifts");
      const check = await live(() => gifts.checkRecipient(recipient, { limited: gift.limited }));
      if (!check.exists) throw invalid(check.why ?? `Recipient @${recipient} not found`);
      if (!check.acceptsGifts) {
        throw new DomainError("invalid_input", `@${recipient} does not accept gifts: that is the recipient's choice; nothing was charged`, {
          reason: "recipient_refuses",
        });
      }
      await covered(gift.stars);
      return {
        recipient,
        chargeMicro: micro(gift.stars * usdtPerStarMicro),
        details: {
          gift_id: gift.giftId,
          stars: gift.stars,
          emoji: gift.emoji,
          hide_name: request.hideName,
          message: request.message,
          usdt_per_star_micro: usdtPerStarMicro,
        },
        send: (reference) => gifts.send({ reference, recipient, giftId: gift.giftId, hideName: request.hideName, message: request.message }),
      };
    },
  };

  return {
    ...pipeline.offer(product),
    catalogue,
    /** The longest message a gift carries here. */
    messageMax,
    /** Whether `hide_name` matters: false where the sender shown is never the buyer (Telegram's bot sends). */
    namesBuyer: gifts.namesBuyer,
    /** A listed gift's sticker; an id not in the listing is none, without asking the provider. */
    async sticker(giftId: string): Promise<unknown | null> {
      if (!(await listed()).some((g) => g.giftId === giftId)) return null;
      return live(() => gifts.sticker(giftId));
    },
    /** Whether the recipient exists and takes gifts, asked before anything is chosen or charged. */
    checkRecipient: (recipient: string) => live(() => gifts.checkRecipient(recipientOf(recipient, "recipient"))),
  };
}
