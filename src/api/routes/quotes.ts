import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import type { BindingQuote } from "../../core/quotes.js";
import { callerOf } from "../auth.js";
import { purchaseOptions } from "../requests.js";
import { errorBody, keyedErrors } from "../../wire/common.js";
import { gamesRequestOf } from "../../wire/games.js";
import { giftcardRequestOf } from "../../wire/giftcards.js";
import { giftRequestOf } from "../../wire/gifts.js";
import { premiumRequestOf } from "../../wire/premium.js";
import { type QuoteBody, type QuoteFields, quoteBody, quoteResponse, quoteView } from "../../wire/quotes.js";
import { starsRequestOf } from "../../wire/stars.js";
import { STORE_FIELD_CODES, storeRequestOf } from "../../wire/store.js";

/**
 * The product's own quote (every rule and live read of its purchase), stored as a binding quote, and the
 * identifying fields it is bound to, as the purchase will compare them.
 */
async function issueQuote(core: Core, caller: Caller, body: QuoteBody): Promise<{ quote: BindingQuote; fields: QuoteFields }> {
  const guard = purchaseOptions(body).guard;
  switch (body.product_type) {
    case "stars": {
      const quote = await core.stars.issueQuote(caller, starsRequestOf(body), guard);
      return { quote, fields: { username: quote.recipient, stars: body.stars } };
    }
    case "premium": {
      const quote = await core.premium.issueQuote(caller, premiumRequestOf(body), guard);
      return { quote, fields: { username: quote.recipient, months: body.months } };
    }
    case "store": {
      const quote = await core.store.issueQuote(caller, storeRequestOf(body), guard);
      return { quote, fields: { login: quote.recipient, amount_usd: body.amount_usd } };
    }
    case "game": {
      const quote = await core.games.issueQuote(caller, gamesRequestOf(body.game_code, body), guard);
      const { game_code, denomination, player_id, server_id } = quote.details;
      return { quote, fields: { game_code, denomination, player_id, server_id } };
    }
    case "giftcard": {
      const request = giftcardRequestOf(body.category_id, body);
      const quote = await core.giftcards.issueQuote(caller, request, guard);
      return { quote, fields: { category_id: body.category_id, card_id: body.card_id, quantity: request.quantity } };
    }
    case "gift": {
      const request = giftRequestOf(body);
      const quote = await core.gifts.issueQuote(caller, request, guard);
      return { quote, fields: { recipient: quote.recipient, gift_id: request.giftId, hide_name: request.hideName, message: request.message } };
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
      const { quote, fields } = await issueQuote(core, callerOf(req), req.body);
      return quoteView(req.body.product_type, quote, fields);
    },
  );
};
