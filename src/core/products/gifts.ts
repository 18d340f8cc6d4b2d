import type { Caller } from "../accounts.js";
import type { Contacts } from "../contacts.js";
import { buyerLabel, GIFT_TEXT_RULES, giftTextFault, isKeyCaller } from "../gift-text.js";
import { unknownRecipientRefusal } from "../model/contact.js";
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

export interface GiftsOptions {
  gifts: GiftsPort;
  pipeline: PurchasePipeline;
  usdtPerStarMicro: Micro;
  /** Who may not receive (administrators, unless allowed). */
  recipients: Pick<Contacts, "barred" | "barredId">;
  /** Whether API keys may send a text where the shop's bot sends the gift (GIFT_TEXTS_FROM_KEYS). */
  textsFromKeys: boolean;
  /** How long a listing is kept (sharedRead), on this clock. */
  cacheMs: number;
  now: () => number;
}

/**
 * Gifts are priced by their stars at the stars tariff. The listing is read from the provider at most once per
 * `cacheMs` (sharedRead); a purchase reads the catalogue live, so a gift sold out meanwhile is refused before the
 * charge.
 */
export function createGifts({ gifts, pipeline, usdtPerStarMicro, recipients, textsFromKeys, cacheMs, now }: GiftsOptions) {
  const live = providerReader(gifts, { missing: "The gift service is not configured", down: "The gift service is unavailable: retry later" });
  const listed = sharedRead(() => live(() => gifts.catalogue()), cacheMs, now);

  /** The gifts on sale (sold-out items left out), each with its USDT price, as read within the last `cacheMs`. */
  async function catalogue() {
    const items = (await listed()).filter((g) => g.remaining !== 0);
    return items.map((g) => ({ priceMicro: micro(g.stars * usdtPerStarMicro), ...g }));
  }

  // The contract's bound, or the backend's own where it carries less (Telegram: 128).
  const messageMax = Math.min(GIFT_MESSAGE_MAX, gifts.messageMax);

  // Where the sender shown is the shop's bot (Telegram), a text must not pass as the shop speaking.
  const shopSends = !gifts.namesBuyer;

  /** The text the gift carries for this caller's `message` (labelled where the shop sends), or a 400 saying why not. */
  function textOf(caller: Caller, message: string): string {
    if (message === "") return "";
    if (shopSends && isKeyCaller(caller) && !textsFromKeys) {
      throw invalid("message: this shop's bot sends the gift, and it takes no text from API keys: send it without a message; nothing was charged");
    }
    const label = shopSends ? buyerLabel(caller.account.id) : "";
    const room = messageMax - label.length;
    if (message.length > room) {
      throw invalid(
        label
          ? `message must be at most ${room} characters here: the text starts with "${label.trim()}", ${label.length} of Telegram's ${messageMax}; nothing was charged`
          : `message must be at most ${messageMax} characters`,
      );
    }
    const fault = giftTextFault(message);
    if (fault) throw invalid(`message refused: ${fault}. ${GIFT_TEXT_RULES}; nothing was charged`);
    return label + message;
  }

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
    async prepare(caller, request) {
      const recipient = recipientOf(request.recipient, "recipient");
      const message = textOf(caller, request.message);
      const gift = (await live(() => gifts.catalogue())).find((g) => g.giftId === request.giftId);
      if (!gift) throw invalid(`gift_id ${request.giftId} is not in the catalogue: read GET /v1/gifts`);
      if (gift.remaining === 0) throw unavailable("This gift is sold out for now: choose another from GET /v1/gifts");
      if (await recipients.barred(recipient)) throw unknownRecipientRefusal(recipient);
      const check = await live(() => gifts.checkRecipient(recipient, { limited: gift.limited }));
      if (!check.exists || (check.recipientId && recipients.barredId(check.recipientId))) throw unknownRecipientRefusal(recipient);
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
          // What the recipient reads: the label and the text.
          message,
          usdt_per_star_micro: usdtPerStarMicro,
        },
        recipientId: check.recipientId ?? null,
        send: (reference) =>
          gifts.send({
            reference,
            recipient,
            recipientId: check.recipientId ?? null,
            giftId: gift.giftId,
            hideName: request.hideName,
            message,
          }),
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
    /** Whether the recipient exists and takes gifts, asked before anything is chosen or charged; barred ones do not exist. */
    async checkRecipient(recipient: string) {
      const username = recipientOf(recipient, "recipient");
      if (await recipients.barred(username)) return { exists: false, acceptsGifts: false };
      return live(() => gifts.checkRecipient(username));
    },
    /** The longest text this caller may write (what the label leaves), and whether they may write one at all. */
    textRoom(caller: Caller): number {
      if (!shopSends) return messageMax;
      if (isKeyCaller(caller) && !textsFromKeys) return 0;
      return messageMax - buyerLabel(caller.account.id).length;
    },
    /** The label this caller's text will start with, or null where the backend names the buyer itself. */
    textLabel: (caller: Caller): string | null => (shopSends ? buyerLabel(caller.account.id) : null),
    /** Why `message` cannot go with this caller's gift (the purchase's own 400 text), or null. */
    textFault(caller: Caller, message: string): string | null {
      try {
        textOf(caller, message);
        return null;
      } catch (error) {
        if (error instanceof DomainError) return error.message;
        throw error;
      }
    },
  };
}
