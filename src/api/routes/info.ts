import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { keyedErrors } from "../../wire/common.js";
import { balanceResponse, balanceView, pricingResponse, pricingView, ratesResponse, ratesView } from "../../wire/account.js";

/** The key's balance, and the tariffs with their live equivalents: nothing here charges. */
export const infoRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const { tariffs } = core.pricing;

  app.get(
    "/v1/balance",
    {
      schema: {
        summary: "Spendable USDT balance of the key",
        operationId: "getBalance",
        tags: ["Account"],
        response: { 200: balanceResponse, ...keyedErrors },
      },
    },
    async (request) => balanceView(await core.accounts.balance(callerOf(request).account)),
  );

  app.get(
    "/v1/pricing",
    {
      schema: {
        summary: "Stars and premium tariffs in USDT",
        operationId: "getPricing",
        tags: ["Stars and premium"],
        response: { 200: pricingResponse, ...keyedErrors },
      },
    },
    async () => pricingView(tariffs),
  );

  app.get(
    "/v1/rates",
    {
      schema: {
        summary: "Tariffs with live TON and UZS equivalents",
        operationId: "getRates",
        tags: ["Stars and premium"],
        response: { 200: ratesResponse, ...keyedErrors },
      },
    },
    async () => ratesView(tariffs, await core.pricing.tonRate()),
  );
};
