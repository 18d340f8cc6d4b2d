import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { errorBody, keyedErrors, orderIdParams } from "../../wire/common.js";
import { anyOrderResponse, ordersQuery, ordersResponse, ordersView, orderView } from "../../wire/orders.js";

/** The caller's own orders; someone else's order is a 404. */
export const orderRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    "/v1/orders",
    {
      schema: {
        summary: "The key's orders, newest first; optionally older than an order id, of one product or in one status",
        operationId: "listOrders",
        tags: ["Orders"],
        querystring: ordersQuery,
        response: { 200: ordersResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { limit, before, product_type, status } = request.query;
      return ordersView(await core.orders.list(callerOf(request).account.id, limit, { before, productType: product_type, status }));
    },
  );

  app.get(
    "/v1/orders/:order_id",
    {
      config: { readsFirst: "order" },
      schema: {
        summary: "One order: stars and premium in the PurchaseResponse shape, other products in their own; refreshed while processing",
        operationId: "getOrder",
        tags: ["Orders"],
        params: orderIdParams,
        response: { 200: anyOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { order, availableMicro } = await core.orders.status(callerOf(request), request.params.order_id);
      return orderView(order, availableMicro);
    },
  );
};
