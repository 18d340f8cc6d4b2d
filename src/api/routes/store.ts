import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { markReplay, purchaseOptions, REPLAYS } from "../requests.js";
import { asyncOrderStatus, errorBody, keyedErrors, orderIdParams, purchaseErrors } from "../../wire/common.js";
import {
  STORE_FIELD_CODES,
  storeBody,
  storeOrderResponse,
  storePricingQuery,
  storePricingResponse,
  storePricingView,
  storePricingAmountOf,
  storeRequestOf,
  storeSandboxView,
  storeView,
} from "../../wire/store.js";
import { answerSandbox } from "./sandbox.js";

/** Game-store wallet top-ups: pricing, orders (200 completed, 202 processing, 502 refunded) and their status. */
export const storeRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    "/v1/store/pricing",
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES },
      schema: {
        summary: "Live limits, the key's markup, and a quote",
        operationId: "getStorePricing",
        tags: ["Store"],
        querystring: storePricingQuery,
        response: { 200: storePricingResponse, 400: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (req) => storePricingView(await core.store.pricing(callerOf(req), storePricingAmountOf(req.query))),
  );

  app.post(
    "/v1/store",
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES },
      schema: {
        summary: "Top up a store wallet; may answer 202 processing, then poll GET /v1/store/{order_id}",
        operationId: "topUpStore",
        ...REPLAYS,
        tags: ["Store"],
        body: storeBody,
        response: { 200: storeOrderResponse, 202: storeOrderResponse, 502: storeOrderResponse, ...purchaseErrors },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      const { order, replay, balanceAfterMicro } = await core.store.buy({ caller, item: storeRequestOf(req.body), ...purchaseOptions(req.body) });
      return markReplay(reply, replay).code(asyncOrderStatus(order, replay)).send(storeView(order, balanceAfterMicro));
    },
  );

  app.get(
    "/v1/store/:order_id",
    {
      config: { readsFirst: "order" },
      schema: {
        summary: "A store order, refreshed from the provider while processing",
        operationId: "getStoreOrder",
        tags: ["Store"],
        params: orderIdParams,
        response: { 200: storeOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const { order, availableMicro } = await core.orders.status(callerOf(req), req.params.order_id, ["store"] as const);
      return storeView(order, availableMicro);
    },
  );

  app.post(
    "/test/v1/store",
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES, readsFirst: "endpoint" },
      schema: {
        summary: "Sandbox: a validated store order, completed at once, nothing charged",
        operationId: "sandboxStore",
        tags: ["Sandbox"],
        body: storeBody,
        response: { 200: storeOrderResponse, 400: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const options = purchaseOptions(req.body);
      const price = await core.store.price({ caller, item: storeRequestOf(req.body), guard: options.guard, quoteId: options.quoteId });
      return answerSandbox(core, caller, options, (context, balance) => storeSandboxView(price, context, balance));
    },
  );
};
