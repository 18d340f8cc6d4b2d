import { randomUUID } from "node:crypto";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import { toUsdt } from "../../core/money.js";
import { callerOf } from "../auth.js";
import { purchaseView } from "../present.js";
import { purchaseOptions } from "../requests.js";
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

type Extras = { idempotency_key?: string | null; max_usdt?: number; quote_id?: string | null };
type StarsBody = { username: string; stars: number } & Extras;
type PremiumBody = { username: string; months: number } & Extras;

/** Search, stars, premium and their sandbox. */
export const purchaseRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  async function buy(caller: Caller, body: StarsBody | PremiumBody) {
    const options = purchaseOptions(body);
    const { order, replay } =
      "stars" in body
        ? await core.stars.buy(caller, { username: body.username, stars: body.stars }, options)
        : await core.premium.buy(caller, { username: body.username, months: body.months }, options);
    return { order, replay, view: purchaseView(order, await core.accounts.available(caller.account)) };
  }

  /**
   * The sandbox answers from the core's quote: the same rules and price as a real order, nothing stored or sent.
   * A named binding quote is checked like a purchase would check it, and not spent.
   */
  async function sandbox(caller: Caller, body: StarsBody | PremiumBody) {
    const options = purchaseOptions(body);
    const quote =
      "stars" in body
        ? await core.stars.quote(caller, { username: body.username, stars: body.stars }, options.guard, options.quoteId)
        : await core.premium.quote(caller, { username: body.username, months: body.months }, options.guard, options.quoteId);
    const stars = "stars" in body ? body.stars : null;
    const months = "months" in body ? body.months : null;
    const now = core.clock.now().toISOString();
    const answer = {
      success: true,
      order_id: 0,
      idempotency_key: options.idempotencyKey,
      product_type: stars === null ? ("premium" as const) : ("stars" as const),
      username: quote.recipient,
      amount: stars ?? months ?? 0,
      stars,
      months,
      usdt_charged: toUsdt(quote.chargeMicro),
      status: "completed" as const,
      transaction_id: `test_${randomUUID()}`,
      error: null,
      balance_remaining_usdt: toUsdt(await core.accounts.available(caller.account)),
      created_at: now,
      completed_at: now,
      test: true as const,
    };
    // A key with a webhook hears of the sandbox order as a test event, so a receiver can be built without spending.
    await core.webhooks.testEvent(caller.account.id, { order: answer });
    return answer;
  }

  const purchaseErrors = { 400: errorBody, 402: insufficientFundsBody, 503: errorBody, ...keyedErrors };

  app.post(
    "/v1/search",
    {
      schema: {
        summary: "Look up a recipient (never charges)",
        operationId: "searchRecipient",
        tags: ["Stars and premium"],
        body: searchBody,
        response: { 200: searchResponse, 400: errorBody, 404: errorBody, 502: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const found = await core.search(callerOf(request), request.body.product_type, request.body.query);
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
        operationId: "buyStars",
        tags: ["Stars and premium"],
        body: starsBody,
        response: { 200: purchaseResponse, 502: purchaseResponse, ...purchaseErrors },
      },
    },
    async (request, reply) => {
      const { order, replay, view } = await buy(callerOf(request), request.body);
      return reply.code(!replay && order.status === "failed" ? 502 : 200).send(view);
    },
  );

  app.post(
    "/v1/premium",
    {
      schema: {
        summary: "Buy a premium subscription for a recipient",
        operationId: "buyPremium",
        tags: ["Stars and premium"],
        body: premiumBody,
        response: { 200: purchaseResponse, 502: errorBody, ...purchaseErrors },
      },
    },
    async (request, reply) => {
      const { order, replay, view } = await buy(callerOf(request), request.body);
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
        operationId: "sandboxStars",
        tags: ["Sandbox"],
        body: starsBody,
        response: { 200: sandboxResponse, ...sandboxErrors },
      },
    },
    async (request) => sandbox(callerOf(request), request.body),
  );
  app.post(
    "/test/v1/premium",
    {
      schema: {
        summary: "Sandbox: validate a premium order, no charge or delivery",
        operationId: "sandboxPremium",
        tags: ["Sandbox"],
        body: premiumBody,
        response: { 200: sandboxResponse, ...sandboxErrors },
      },
    },
    async (request) => sandbox(callerOf(request), request.body),
  );
};
