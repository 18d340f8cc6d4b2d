import type { Caller } from "./accounts.js";
import { invalid, providerReader } from "./errors.js";
import { catalogPrice, type MarkupDefaults, markupOf } from "./markup.js";
import type { Micro } from "./money.js";
import type { Orders, Placed } from "./orders.js";
import { type GiftcardBrand, type GiftcardDenomination, type GiftcardsPort } from "./ports.js";
import type { Order } from "../db/schema.js";
import type { Vault } from "./vault.js";

/** When a gift card order names no quantity, it is for one code. */
export const DEFAULT_QUANTITY = 1;

export interface GiftcardRequest {
  categoryId: string;
  cardId: string;
  quantity: number;
  idempotencyKey: string | null;
}

export interface GiftcardDetails {
  category_id: string;
  card_id: string;
  denomination: string;
  quantity: number;
  unit_price_micro: Micro;
  cost_micro: Micro;
  markup_bp: number;
}

export interface PricedCard extends GiftcardDenomination {
  priceMicro: Micro;
}

export function createGiftcards(giftcards: GiftcardsPort, orders: Orders, markups: MarkupDefaults, vault: Vault) {
  const live = providerReader(giftcards, { missing: "Gift cards are not configured", down: "The gift card provider is unavailable: retry later" });

  async function brand(categoryId: string): Promise<GiftcardBrand> {
    const found = (await live(() => giftcards.brands())).find((b) => b.categoryId === categoryId);
    if (!found) throw invalid(`Brand ${categoryId} is not supported: read GET /v1/giftcards`);
    return found;
  }

  async function catalogue(caller: Caller, categoryId: string): Promise<{ markupBp: number; cards: PricedCard[] }> {
    await brand(categoryId);
    const markupBp = markupOf(caller.account, "giftcards", markups);
    const cards = await live(() => giftcards.catalogue(categoryId));
    if (!cards) throw invalid(`Brand ${categoryId} is not supported: read GET /v1/giftcards`);
    return { markupBp, cards: cards.map((c) => ({ ...c, priceMicro: catalogPrice(c.costMicro, markupBp) })) };
  }

  return {
    async list(caller: Caller) {
      return { markupBp: markupOf(caller.account, "giftcards", markups), brands: await live(() => giftcards.brands()) };
    },

    catalogue,

    /** Checks denomination, quantity and stock against the live catalogue before the charge of price x quantity. */
    async buy(caller: Caller, request: GiftcardRequest): Promise<Placed> {
      const identifying = [request.categoryId, request.cardId, request.quantity];
      const earlier = await orders.replay(caller, "giftcard", identifying, request.idempotencyKey);
      if (earlier) return { order: earlier, replay: true };

      const { markupBp, cards } = await catalogue(caller, request.categoryId);
      const card = cards.find((c) => c.cardId === request.cardId);
      if (!card) throw invalid(`card_id must be one of the catalogue's card_id values for ${request.categoryId}`);
      if (request.quantity < card.minQuantity || request.quantity > card.maxQuantity) {
        throw invalid(`quantity must be from ${card.minQuantity} to ${card.maxQuantity} for ${card.cardId}`);
      }
      if (request.quantity > card.stock) throw invalid(`only ${card.stock} in stock for ${card.cardId}`);

      const details: GiftcardDetails = {
        category_id: request.categoryId,
        card_id: card.cardId,
        denomination: card.name,
        quantity: request.quantity,
        unit_price_micro: card.priceMicro,
        cost_micro: card.costMicro,
        markup_bp: markupBp,
      };
      return orders.submit(
        caller,
        {
          productType: "giftcard",
          recipient: request.categoryId,
          details: { ...details },
          chargeMicro: card.priceMicro * request.quantity,
          idempotencyKey: request.idempotencyKey,
          identifying,
        },
        (order) =>
          giftcards.order({ reference: order.upstream_ref, categoryId: request.categoryId, cardId: card.cardId, quantity: request.quantity }),
      );
    },

    /** The codes of a completed order, decrypted; empty otherwise. Only the order's status endpoint shows them. */
    codes(order: Order): string[] {
      return order.status === "completed" && order.sealed_codes ? vault.open(order.sealed_codes) : [];
    },
  };
}

export type Giftcards = ReturnType<typeof createGiftcards>;
