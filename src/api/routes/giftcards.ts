import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { markReplay, purchaseOptions, REPLAYS } from "../requests.js";
import { asyncOrderStatus, errorBody, insufficientFundsBody, keyedErrors, orderIdParams } from "../../wire/common.js";
import {
  categoryParams,
  giftcardCatalogueResponse,
  giftcardCatalogueView,
  giftcardOrderBody,
  giftcardOrderResponse,
  giftcardRequestOf,
  giftcardsResponse,
  giftcardsView,
  giftcardView,
} from "../../wire/giftcards.js";

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
    async (req) => giftcardsView(await core.giftcards.list(callerOf(req))),
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
    async (req) => giftcardCatalogueView(req.params.category_id, await core.giftcards.catalogue(callerOf(req), req.params.category_id)),
  );

  app.post(
    "/v1/giftcards/:category_id/order",
    {
      schema: {
        summary: "Order codes (quantity defaults to 1); answers 202, then fetch codes from GET /v1/giftcards/orders/{order_id}",
        operationId: "orderGiftcards",
        ...REPLAYS,
        tags: ["Gift cards"],
        params: categoryParams,
        body: giftcardOrderBody,
        response: { 200: giftcardOrderResponse, 202: giftcardOrderResponse, 502: giftcardOrderResponse, 402: insufficientFundsBody, ...readErrors },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      const placed = await core.giftcards.buy({ caller, item: giftcardRequestOf(req.params.category_id, req.body), ...purchaseOptions(req.body) });
      // Never the codes here, even when the provider finished at once.
      return markReplay(reply, placed.replay)
        .code(asyncOrderStatus(placed.order, placed.replay))
        .send(giftcardView(placed.order, placed.balanceAfterMicro));
    },
  );

  app.get(
    "/v1/giftcards/orders/:order_id",
    {
      config: { readsFirst: "order" },
      schema: {
        summary: "A gift card order with its codes once completed; store the codes safely",
        operationId: "getGiftcardOrder",
        tags: ["Gift cards"],
        params: orderIdParams,
        response: { 200: giftcardOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const { order, availableMicro } = await core.orders.status(callerOf(req), req.params.order_id, ["giftcard"] as const);
      return giftcardView(order, availableMicro, await core.orders.codes(order));
    },
  );
};
