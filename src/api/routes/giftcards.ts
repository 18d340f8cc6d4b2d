import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { GIFTCARD_DEFAULT_QUANTITY } from "../../core/limits.js";
import { percentNumber } from "../../core/markup.js";
import { toUsdt } from "../../core/money.js";
import { callerOf } from "../auth.js";
import { asyncOrderStatus, giftcardView } from "../present.js";
import { purchaseOptions } from "../requests.js";
import {
  categoryParams,
  errorBody,
  giftcardCatalogueResponse,
  giftcardOrderBody,
  giftcardOrderResponse,
  giftcardsResponse,
  insufficientFundsBody,
  keyedErrors,
  orderIdParams,
} from "../schemas.js";

/** Gift card codes: brands, catalogues, orders (202 then poll) and the status endpoint, the only place codes appear. */
export const giftcardRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const readErrors = { 400: errorBody, 503: errorBody, ...keyedErrors };

  app.get(
    "/v1/giftcards",
    {
      schema: {
        summary: "Gift card brands (dynamic)",
        operationId: "listGiftcardBrands",
        tags: ["Gift cards"],
        response: { 200: giftcardsResponse, 503: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const { markupBp, brands } = await core.giftcards.list(callerOf(req));
      return {
        success: true as const,
        markup_percent: percentNumber(markupBp),
        giftcards: brands.map((b) => ({ category_id: b.categoryId, name: b.name, notes: b.notes })),
      };
    },
  );

  app.get(
    "/v1/giftcards/:category_id/catalogue",
    {
      schema: {
        summary: "Denominations with price, stock and quantity limits",
        operationId: "getGiftcardCatalogue",
        tags: ["Gift cards"],
        params: categoryParams,
        response: { 200: giftcardCatalogueResponse, ...readErrors },
      },
    },
    async (req) => {
      const { markupBp, cards } = await core.giftcards.catalogue(callerOf(req), req.params.category_id);
      return {
        success: true as const,
        currency: "USDT",
        category_id: req.params.category_id,
        markup_percent: percentNumber(markupBp),
        denominations: cards.map((c) => ({
          card_id: c.cardId,
          name: c.name,
          price_usdt: toUsdt(c.priceMicro),
          stock: c.stock,
          min_quantity: c.minQuantity,
          max_quantity: c.maxQuantity,
        })),
      };
    },
  );

  app.post(
    "/v1/giftcards/:category_id/order",
    {
      schema: {
        summary: "Order codes (quantity defaults to 1); answers 202, then fetch codes from GET /v1/giftcards/orders/{order_id}",
        operationId: "orderGiftcards",
        tags: ["Gift cards"],
        params: categoryParams,
        body: giftcardOrderBody,
        response: { 200: giftcardOrderResponse, 202: giftcardOrderResponse, 502: giftcardOrderResponse, 402: insufficientFundsBody, ...readErrors },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      const request = { categoryId: req.params.category_id, cardId: req.body.card_id, quantity: req.body.quantity ?? GIFTCARD_DEFAULT_QUANTITY };
      const { order, replay } = await core.giftcards.buy(caller, request, purchaseOptions(req.body));
      const balance = await core.accounts.available(caller.account);
      // Never the codes here, even when the provider finished at once.
      return reply.code(asyncOrderStatus(order, replay)).send(giftcardView(order, balance));
    },
  );

  app.get(
    "/v1/giftcards/orders/:order_id",
    {
      schema: {
        summary: "A gift card order with its codes once completed; store the codes safely",
        operationId: "getGiftcardOrder",
        tags: ["Gift cards"],
        params: orderIdParams,
        response: { 200: giftcardOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const order = await core.orders.current(caller.account.id, req.params.order_id, ["giftcard"] as const);
      return giftcardView(order, await core.accounts.available(caller.account), await core.orders.codes(order));
    },
  );
};
