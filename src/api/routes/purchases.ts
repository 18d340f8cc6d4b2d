import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { markReplay, purchaseOptions, REPLAYS } from "../requests.js";
import { errorBody, keyedErrors, purchaseErrors } from "../../wire/common.js";
import { premiumBody, premiumFailedBody, premiumRequestOf, premiumSandboxView, premiumView } from "../../wire/premium.js";
import {
  purchaseResponse,
  sandboxResponse,
  searchBody,
  searchResponse,
  searchView,
  starsBody,
  starsRequestOf,
  starsSandboxView,
  starsView,
} from "../../wire/stars.js";
import { answerSandbox } from "./sandbox.js";

/** Search, stars and premium. */
export const purchaseRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
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
    async (request) => searchView(await core.search(callerOf(request), request.body.product_type, request.body.query)),
  );

  app.post(
    "/v1/stars",
    {
      schema: {
        summary: "Buy stars for a recipient",
        operationId: "buyStars",
        ...REPLAYS,
        tags: ["Stars and premium"],
        body: starsBody,
        response: { 200: purchaseResponse, 502: purchaseResponse, ...purchaseErrors },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { order, replay, balanceAfterMicro } = await core.stars.buy({
        caller,
        item: starsRequestOf(request.body),
        ...purchaseOptions(request.body),
      });
      const view = starsView(order, balanceAfterMicro);
      markReplay(reply, replay);
      return reply.code(!replay && order.status === "failed" ? 502 : 200).send(view);
    },
  );

  app.post(
    "/v1/premium",
    {
      schema: {
        summary: "Buy a premium subscription for a recipient",
        operationId: "buyPremium",
        ...REPLAYS,
        tags: ["Stars and premium"],
        body: premiumBody,
        response: { 200: purchaseResponse, 502: errorBody, ...purchaseErrors },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { order, replay, balanceAfterMicro } = await core.premium.buy({
        caller,
        item: premiumRequestOf(request.body),
        ...purchaseOptions(request.body),
      });
      const view = premiumView(order, balanceAfterMicro);
      markReplay(reply, replay);
      if (!replay && order.status === "failed") return reply.code(502).send(premiumFailedBody(order, view.usdt_charged));
      return reply.code(200).send(view);
    },
  );
};

/** The sandbox of stars and premium, answered from the core's price: the same rules and price as a real order, nothing stored or sent. */
export const purchaseSandboxRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const sandboxErrors = { 400: errorBody, ...keyedErrors };
  app.post(
    "/test/v1/stars",
    {
      config: { readsFirst: "endpoint" },
      schema: {
        summary: "Sandbox: validate a stars order, no charge or delivery",
        operationId: "sandboxStars",
        tags: ["Sandbox"],
        body: starsBody,
        response: { 200: sandboxResponse, ...sandboxErrors },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const options = purchaseOptions(request.body);
      const price = await core.stars.price({ caller, item: starsRequestOf(request.body), guard: options.guard, quoteId: options.quoteId });
      return answerSandbox(core, caller, options, (context, balance) => starsSandboxView(price, context, balance));
    },
  );
  app.post(
    "/test/v1/premium",
    {
      config: { readsFirst: "endpoint" },
      schema: {
        summary: "Sandbox: validate a premium order, no charge or delivery",
        operationId: "sandboxPremium",
        tags: ["Sandbox"],
        body: premiumBody,
        response: { 200: sandboxResponse, ...sandboxErrors },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const options = purchaseOptions(request.body);
      const price = await core.premium.price({ caller, item: premiumRequestOf(request.body), guard: options.guard, quoteId: options.quoteId });
      return answerSandbox(core, caller, options, (context, balance) => premiumSandboxView(price, context, balance));
    },
  );
};
