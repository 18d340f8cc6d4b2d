import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import { toUsdt } from "../../core/money.js";
import { type DeliveryRequest, normaliseUsername } from "../../core/purchases.js";
import { callerOf } from "../auth.js";
import { purchaseView } from "../present.js";
import {
  errorBody,
  insufficientFundsBody,
  keyedErrors,
  premiumBody,
  purchaseResponse,
  sandboxResponse,
  searchBody,
  searchResponse,
  starsBody,
} from "../schemas.js";

type StarsBody = { username: string; stars: number; idempotency_key?: string | null };
type PremiumBody = { username: string; months: number; idempotency_key?: string | null };

const starsRequest = (body: StarsBody): DeliveryRequest => ({
  product: "stars",
  username: body.username,
  amount: body.stars,
  idempotencyKey: body.idempotency_key ?? null,
});
const premiumRequest = (body: PremiumBody): DeliveryRequest => ({
  product: "premium",
  username: body.username,
  amount: body.months,
  idempotencyKey: body.idempotency_key ?? null,
});

/** Search, stars, premium and their sandbox. */
export const purchaseRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  async function buy(caller: Caller, request: DeliveryRequest) {
    const { order, replay } = await core.purchases.buy(caller, request);
    return { order, replay, view: purchaseView(order, await core.accounts.available(caller.account)) };
  }

  async function sandbox(caller: Caller, request: DeliveryRequest) {
    const chargeMicro = core.purchases.quote(request);
    const balance = await core.accounts.available(caller.account);
    const now = core.clock.now().toISOString();
    return {
      success: true,
      order_id: 0,
      idempotency_key: request.idempotencyKey,
      product_type: request.product,
      username: normaliseUsername(request.username),
      amount: request.amount,
      stars: request.product === "stars" ? request.amount : null,
      months: request.product === "premium" ? request.amount : null,
      usdt_charged: toUsdt(chargeMicro),
      status: "completed" as const,
      transaction_id: `test_${randomUUID()}`,
      error: null,
      balance_remaining_usdt: toUsdt(balance),
      created_at: now,
      completed_at: now,
      test: true as const,
    };
  }

  const purchaseErrors = { 400: errorBody, 402: insufficientFundsBody, 503: errorBody, ...keyedErrors };

  app.post(
    "/v1/search",
    {
      schema: {
        summary: "Look up a recipient (never charges)",
        body: searchBody,
        response: { 200: searchResponse, 400: errorBody, 404: errorBody, 502: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const found = await core.purchases.search(callerOf(request), request.body.product_type, request.body.query);
      return {
        success: true as const,
        found: { myself: found.myself, name: found.name, photo: found.photo, recipient: found.username, premium: found.premium },
      };
    },
  );

  app.post(
    "/v1/stars",
    {
      schema: {
        summary: "Buy stars for a recipient",
        body: starsBody,
        response: { 200: purchaseResponse, 502: purchaseResponse, ...purchaseErrors },
      },
    },
    async (request, reply) => {
      const { order, replay, view } = await buy(callerOf(request), starsRequest(request.body));
      return reply.code(!replay && order.status === "failed" ? 502 : 200).send(view);
    },
  );

  app.post(
    "/v1/premium",
    {
      schema: {
        summary: "Buy a premium subscription for a recipient",
        body: premiumBody,
        response: { 200: purchaseResponse, 502: errorBody, ...purchaseErrors },
      },
    },
    async (request, reply) => {
      const { order, replay, view } = await buy(callerOf(request), premiumRequest(request.body));
      if (!replay && order.status === "failed") {
        return reply.code(502).send({
          success: false as const,
          error: `Premium delivery failed (${order.error ?? "provider error"}); order ${order.id} was refunded ${view.usdt_charged} USDT`,
        });
      }
      return reply.code(200).send(view);
    },
  );

  const sandboxErrors = { 400: errorBody, ...keyedErrors };
  app.post(
    "/test/v1/stars",
    {
      schema: {
        summary: "Sandbox: validate a stars order, no charge or delivery",
        body: starsBody,
        response: { 200: sandboxResponse, ...sandboxErrors },
      },
    },
    async (request) => sandbox(callerOf(request), starsRequest(request.body)),
  );
  app.post(
    "/test/v1/premium",
    {
      schema: {
        summary: "Sandbox: validate a premium order, no charge or delivery",
        body: premiumBody,
        response: { 200: sandboxResponse, ...sandboxErrors },
      },
    },
    async (request) => sandbox(callerOf(request), premiumRequest(request.body)),
  );
};
