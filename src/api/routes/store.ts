import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import { percentNumber } from "../../core/markup.js";
import { toUsdt } from "../../core/money.js";
import type { OrderOfType } from "../../core/products/index.js";
import type { Reason } from "../../core/reasons.js";
import { callerOf } from "../auth.js";
import { asyncOrderStatus, quoteView, storeQuoteOf, storeView } from "../present.js";
import { purchaseOptions } from "../requests.js";
import {
  errorBody,
  insufficientFundsBody,
  keyedErrors,
  orderIdParams,
  storeBody,
  storeOrderResponse,
  storePricingQuery,
  storePricingResponse,
} from "../schemas.js";

const STORE_FIELD_CODES: Record<string, Reason> = { login: "login_not_supported", amount_usd: "invalid_amount" };

/** Game-store wallet top-ups: pricing, orders (200 completed, 202 processing, 502 refunded) and their status. */
export const storeRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const view = async (caller: Caller, order: OrderOfType<"store">) => storeView(order, await core.accounts.available(caller.account));
  const request = (body: { login: string; amount_usd: number }) => ({ login: body.login, amountUsd: body.amount_usd });

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
    async (req) => {
      const { limits, markupBp, examples, quote } = await core.store.pricing(callerOf(req), req.query.amount_usd);
      return {
        success: true as const,
        currency: "USDT",
        min_usd: toUsdt(limits.minMicro),
        max_usd: toUsdt(limits.maxMicro),
        markup_percent: percentNumber(markupBp),
        provider_fee_ratio: limits.feePpm / 1_000_000,
        examples: examples.map(quoteView),
        quote: quote && quoteView(quote),
      };
    },
  );

  const orderErrors = { 400: errorBody, 402: insufficientFundsBody, 503: errorBody, ...keyedErrors };
  app.post(
    "/v1/store",
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES },
      schema: {
        summary: "Top up a store wallet; may answer 202 processing, then poll GET /v1/store/{order_id}",
        operationId: "topUpStore",
        tags: ["Store"],
        body: storeBody,
        response: { 200: storeOrderResponse, 202: storeOrderResponse, 502: storeOrderResponse, ...orderErrors },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      const { order, replay } = await core.store.buy(caller, request(req.body), purchaseOptions(req.body));
      return reply.code(asyncOrderStatus(order, replay)).send(await view(caller, order));
    },
  );

  app.get(
    "/v1/store/:order_id",
    {
      schema: {
        summary: "A store order, refreshed from the provider while processing",
        operationId: "getStoreOrder",
        tags: ["Store"],
        params: orderIdParams,
        response: { 200: storeOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      return view(caller, await core.orders.current(caller.account.id, req.params.order_id, ["store"] as const));
    },
  );

  app.post(
    "/test/v1/store",
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES },
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
      const quoted = await core.store.quote(caller, request(req.body), options.guard, options.quoteId);
      const quote = storeQuoteOf(quoted);
      const balance = await core.accounts.available(caller.account);
      const now = core.clock.now().toISOString();
      return {
        success: true,
        order_id: 0,
        idempotency_key: req.body.idempotency_key ?? null,
        product_type: "store" as const,
        store_login: quoted.recipient,
        store_amount_usd: toUsdt(quote.amountMicro),
        store_markup_usdt: toUsdt(quote.markupMicro),
        amount: toUsdt(quote.amountMicro),
        usdt_charged: toUsdt(quote.totalMicro),
        status: "completed" as const,
        transaction_id: `test_${randomUUID()}`,
        error: null,
        balance_remaining_usdt: toUsdt(balance),
        pending: null,
        refunded: null,
        error_code: null,
        created_at: now,
        completed_at: now,
      };
    },
  );
};
