import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import { GIFTCARD_DEFAULT_QUANTITY } from "../../core/limits.js";
import { toUsdt } from "../../core/money.js";
import type { BindingQuote } from "../../core/quotes.js";
import type { Reason } from "../../core/reasons.js";
import { callerOf } from "../auth.js";
import { purchaseOptions } from "../requests.js";
import { errorBody, keyedErrors, quoteBody, quoteResponse } from "../schemas.js";

type QuoteBody = z.infer<typeof quoteBody>;
type Fields = z.infer<typeof quoteResponse>["fields"];

const STORE_FIELD_CODES: Record<string, Reason> = { login: "login_not_supported", amount_usd: "invalid_amount" };

/**
 * The product's own quote (every rule and live read of its purchase), stored as a binding quote, and the
 * identifying fields it is bound to, as the purchase will compare them.
 */
async function issue(core: Core, caller: Caller, body: QuoteBody): Promise<{ quote: BindingQuote; fields: Fields }> {
  const guard = purchaseOptions(body).guard;
  switch (body.product_type) {
    case "stars": {
      const quote = await core.stars.issueQuote(caller, { username: body.username, stars: body.stars }, guard);
      return { quote, fields: { username: quote.recipient, stars: body.stars } };
    }
    case "premium": {
      const quote = await core.premium.issueQuote(caller, { username: body.username, months: body.months }, guard);
      return { quote, fields: { username: quote.recipient, months: body.months } };
    }
    case "store": {
      const quote = await core.store.issueQuote(caller, { login: body.login, amountUsd: body.amount_usd }, guard);
      return { quote, fields: { login: quote.recipient, amount_usd: body.amount_usd } };
    }
    case "game": {
      const request = { code: body.game_code, denomination: body.denomination, playerId: body.player_id, serverId: body.server_id ?? null };
      const quote = await core.games.issueQuote(caller, request, guard);
      const { game_code, denomination, player_id, server_id } = quote.details;
      return { quote, fields: { game_code, denomination, player_id, server_id } };
    }
    case "giftcard": {
      const quantity = body.quantity ?? GIFTCARD_DEFAULT_QUANTITY;
      const quote = await core.giftcards.issueQuote(caller, { categoryId: body.category_id, cardId: body.card_id, quantity }, guard);
      return { quote, fields: { category_id: body.category_id, card_id: body.card_id, quantity } };
    }
    case "gift": {
      const request = { recipient: body.recipient, giftId: body.gift_id, hideName: body.hide_name ?? false, message: body.message ?? "" };
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
      const { quote, fields } = await issue(core, callerOf(req), req.body);
      return {
        success: true as const,
        quote_id: quote.id,
        product_type: req.body.product_type,
        charge_usdt: toUsdt(quote.chargeMicro),
        currency: "USDT" as const,
        recipient: quote.recipient,
        fields,
        created_at: quote.createdAt,
        expires_at: quote.expiresAt,
        ttl_seconds: Math.round((Date.parse(quote.expiresAt) - Date.parse(quote.createdAt)) / 1000),
      };
    },
  );
};
