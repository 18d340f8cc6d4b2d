import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../auth.js";
import { keyedErrors } from "../../wire/common.js";
import {
  API_VERSION,
  balanceResponse,
  balanceView,
  healthResponse,
  healthView,
  pricingResponse,
  pricingView,
  ratesResponse,
  ratesView,
} from "../../wire/account.js";

export { API_VERSION };

export interface InfoOptions {
  core: Core;
  deliveryProvider: string;
}

/** Health, balance, pricing and rates: nothing here charges. */
export const infoRoutes: FastifyPluginAsyncZod<InfoOptions> = async (app, { core, deliveryProvider }) => {
  const { tariffs } = core.pricing;

  app.get(
    "/v1/health",
    {
      // Always 200 (the contract lists nothing else): no key, and no share in any rate-limit counter. Answered
      // from the last round of probes (jobs/health-probe.ts), so a flood of requests probes nothing.
      config: { public: true, rateLimit: false },
      schema: {
        summary: "Service and provider readiness (no key)",
        operationId: "getHealth",
        tags: ["Service"],
        security: [],
        response: { 200: healthResponse },
      },
    },
    async () => healthView(await core.health.current(), deliveryProvider),
  );

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
