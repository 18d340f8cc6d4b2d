import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import type { PriceGuard, Priced, PurchaseRequest } from "../../core/purchase.js";
import type { BindingQuote } from "../../core/model/quote.js";
import { callerOf } from "../caller.js";
import { purchaseOptions } from "../requests.js";
import { errorBody, keyedErrors } from "../../wire/common.js";
import { gamesRequestOf } from "../../wire/games.js";
import { giftcardRequestOf } from "../../wire/giftcards.js";
import { giftRequestOf } from "../../wire/gifts.js";
import { premiumRequestOf } from "../../wire/premium.js";
import { type QuoteBody, type QuoteFields, quoteBody, quoteResponse, quoteView } from "../../wire/quotes.js";
import { starsRequestOf } from "../../wire/stars.js";
import { STORE_FIELD_CODES, storeRequestOf } from "../../wire/store.js";

type Quoted<D> = { recipient: string; details: D };
interface Offer<R, D> {
  price(purchase: PurchaseRequest<R>): Promise<Priced<D>>;
  issueQuote(purchase: PurchaseRequest<R>): Promise<BindingQuote<D>>;
}

/** One product's offer for one request: its price now, and a binding quote with the fields it is bound to. */
function bound<R, D>(offer: Offer<R, D>, request: R, guard: PriceGuard | undefined, fields: (quoted: Quoted<D>) => QuoteFields) {
  return {
    price: (caller: Caller) => offer.price({ caller, item: request, guard }),
    async issue(caller: Caller): Promise<{ quote: BindingQuote; fields: QuoteFields }> {
      const quote = await offer.issueQuote({ caller, item: request, guard });
      return { quote, fields: fields(quote) };
    },
  };
}

/**
 * A quote body as its product's request (every rule and live read of its purchase): priced now (nothing stored,
 * as the Mini App checks a form) or stored as a binding quote, with the identifying fields the purchase must repeat.
 */
export function quotable(core: Core, body: QuoteBody) {
  const guard = purchaseOptions(body).guard;
  switch (body.product_type) {
    case "stars":
      return bound(core.stars, starsRequestOf(body), guard, (q) => ({ username: q.recipient, stars: body.stars }));
    case "premium":
      return bound(core.premium, premiumRequestOf(body), guard, (q) => ({ username: q.recipient, months: body.months }));
    case "store":
      return bound(core.store, storeRequestOf(body), guard, (q) => ({ login: q.recipient, amount_usd: body.amount_usd }));
    case "game":
      return bound(core.games, gamesRequestOf(body.game_code, body), guard, ({ details: { game_code, denomination, player_id, server_id } }) => ({
        game_code,
        denomination,
        player_id,
        server_id,
      }));
    case "giftcard": {
      const request = giftcardRequestOf(body.category_id, body);
      return bound(core.giftcards, request, guard, () => ({ category_id: body.category_id, card_id: body.card_id, quantity: request.quantity }));
    }
    case "gift": {
      const request = giftRequestOf(body);
      return bound(core.gifts, request, guard, (q) => ({
        recipient: q.recipient,
        gift_id: request.giftId,
        hide_name: request.hideName,
        message: request.message,
      }));
    }
  }
}

/** Binding quotes: the exact charge of a purchase, held for QUOTE_TTL_SECONDS, redeemed with quote_id. */
export const quoteRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post(
    "/v1/quotes",
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES },
      schema: {
        summary: "A binding quote: the exact charge of one purchase, honoured by that purchase with quote_id until it expires",
        operationId: "createQuote",
        tags: ["Quotes"],
        body: quoteBody,
        response: { 200: quoteResponse, 400: errorBody, 404: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const { quote, fields } = await quotable(core, req.body).issue(callerOf(req));
      return quoteView(req.body.product_type, quote, fields);
    },
  );
};
