import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../auth.js";
import { purchaseView, summaryView } from "../present.js";
import { errorBody, keyedErrors, orderIdParams, ordersQuery, ordersResponse, purchaseResponse } from "../schemas.js";

/** The caller's own orders; someone else's order is a 404. */
export const orderRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    "/v1/orders",
    { schema: { summary: "The key's orders, newest first", querystring: ordersQuery, response: { 200: ordersResponse, 400: errorBody, ...keyedErrors } } },
    async (request) => {
      const orders = await core.orders.list(callerOf(request).account.id, request.query.limit);
      return { success: true as const, count: orders.length, orders: orders.map(summaryView) };
    },
  );

  app.get(
    "/v1/orders/:order_id",
    {
      schema: {
        summary: "One stars or premium order; a processing order is refreshed from the provider",
        params: orderIdParams,
        response: { 200: purchaseResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = callerOf(request);
      const order = await core.orders.refresh(await core.orders.get(account.id, request.params.order_id));
      const funds = await core.accounts.balance(account);
      return purchaseView(order, funds.availableMicro);
    },
  );
};
