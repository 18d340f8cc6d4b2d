import type { Caller } from "../accounts.js";
import { invalid } from "../model/errors.js";
import { providerReader, type GiftcardDenomination, type GiftcardsPort } from "../ports.js";
import { GIFTCARD_QUANTITY_MAX } from "../formats.js";
import { catalogPrice, type MarkupDefaults, markupOf } from "../markup.js";
import { type Micro, micro } from "../model/money.js";
import { giftcardProduct, type GiftcardDetails } from "../model/products.js";
import type { Purchasable, PurchasePipeline } from "../purchase.js";
import { sharedRead } from "../shared-read.js";

export interface GiftcardRequest {
  categoryId: string;
  cardId: string;
  quantity: number;
}

export interface PricedCard extends GiftcardDenomination {
  priceMicro: Micro;
}

/**
 * Gift cards: the brand list (Reloadly's whole product list, page after page) is read at most once per `cacheMs`
 * (sharedRead); a brand's cards, one call, are read live for the listing and the purchase alike.
 */
export function createGiftcards({
  giftcards,
  pipeline,
  markups,
  cacheMs,
  now,
}: {
  giftcards: GiftcardsPort;
  pipeline: PurchasePipeline;
  markups: MarkupDefaults;
  cacheMs: number;
  now: () => number;
}) {
  const live = providerReader(giftcards, { missing: "Gift cards are not configured", down: "The gift card provider is unavailable: retry later" });
  const brands = sharedRead(() => live(() => giftcards.brands()), cacheMs, now);

  /** The brand's priced cards. The provider's catalogue has none for a brand it does not sell (no list read first). */
  async function catalogue(caller: Caller, categoryId: string): Promise<{ markupBp: number; cards: PricedCard[] }> {
    const markupBp = markupOf(caller.account, "giftcards", markups);
    const cards = await live(() => giftcards.catalogue(categoryId));
    if (!cards) throw invalid(`Brand ${categoryId} is not supported: read GET /v1/giftcards`);
    return { markupBp, cards: cards.map((c) => ({ priceMicro: catalogPrice(c.costMicro, markupBp), ...c })) };
  }

  const product: Purchasable<"giftcard", GiftcardRequest, GiftcardDetails> = {
    ...giftcardProduct,
    identify: (r) => [r.categoryId, r.cardId, r.quantity],
    /** Denomination, quantity and stock against the live catalogue, before the charge of price x quantity. */
    async prepare(caller, request) {
      const { quantity } = request;
      if (!Number.isInteger(quantity) || quantity < 1 || quantity > GIFTCARD_QUANTITY_MAX) {
        throw invalid(`quantity must be a whole number from 1 to ${GIFTCARD_QUANTITY_MAX}`);
      }
      // The brand's name is kept on the order (its id means nothing to a buyer); the list is shared for cacheMs, read
      // beside the live catalogue, and an order is never refused for want of a name.
      const [{ markupBp, cards }, brand] = await Promise.all([
        catalogue(caller, request.categoryId),
        brands().then(
          (list) => list.find((b) => b.categoryId === request.categoryId)?.name,
          () => undefined,
        ),
      ]);
      const card = cards.find((c) => c.cardId === request.cardId);
      if (!card) throw invalid(`card_id must be one of the catalogue's card_id values for ${request.categoryId}`);
      if (quantity < card.minQuantity || quantity > card.maxQuantity) {
        throw invalid(`quantity must be from ${card.minQuantity} to ${card.maxQuantity} for ${card.cardId}`);
      }
      if (quantity > card.stock) throw invalid(`only ${card.stock} in stock for ${card.cardId}`);
      return {
        recipient: request.categoryId,
        chargeMicro: micro(card.priceMicro * quantity),
        details: {
          category_id: request.categoryId,
          card_id: card.cardId,
          denomination: card.name,
          quantity,
          unit_price_micro: card.priceMicro,
          cost_micro: card.costMicro,
          markup_bp: markupBp,
          ...(brand === undefined ? {} : { brand }),
        },
        send: (reference) => giftcards.order({ reference, categoryId: request.categoryId, cardId: card.cardId, quantity }),
      };
    },
  };

  return {
    ...pipeline.offer(product),
    catalogue,
    async list(caller: Caller) {
      return { markupBp: markupOf(caller.account, "giftcards", markups), brands: await brands() };
    },
    /** The brands' names by id (an order keeps the id): from the same shared read as the list. */
    async brandNames(): Promise<ReadonlyMap<string, string>> {
      return new Map((await brands()).map((brand) => [brand.categoryId, brand.name]));
    },
  };
}
