import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { divideRounded, MICRO_PER_USDT, toUsdt } from "../../core/money.js";
import { PREMIUM_MONTHS, STARS_MAX, STARS_MIN } from "../../core/limits.js";
import { callerOf } from "../auth.js";
import { balanceResponse, healthResponse, keyedErrors, pricingResponse, ratesResponse } from "../schemas.js";

export const API_VERSION = "1.0.0";
const PAYMENT_METHOD = "balance";

export interface InfoOptions {
  core: Core;
  deliveryProvider: string;
}

/** Health, balance, pricing and rates: nothing here charges. */
export const infoRoutes: FastifyPluginAsyncZod<InfoOptions> = async (app, { core, deliveryProvider }) => {
  const { tariffs } = core.pricing;
  const premiumUsdt = () => Object.fromEntries(PREMIUM_MONTHS.map((m) => [String(m), toUsdt(tariffs.premiumMicro[m])]));

  app.get(
    "/v1/health",
    {
      // Always 200 (the contract lists nothing else): no key, and no share in any rate-limit counter.
      config: { public: true, rateLimit: false },
      schema: {
        summary: "Service and provider readiness (no key)",
        operationId: "getHealth",
        tags: ["Service"],
        security: [],
        response: { 200: healthResponse },
      },
    },
    async () => {
      const { databaseReady, ready, configured, storeEnabled } = await core.health();
      return {
        success: databaseReady,
        delivery_provider: deliveryProvider,
        delivery_ready: ready.gateway,
        gateway_ready: ready.gateway,
        store_ready: ready.store && storeEnabled,
        game_ready: ready.games,
        giftcard_ready: ready.giftcards,
        db_ready: databaseReady,
        api_configured: configured.gateway,
        version: API_VERSION,
      };
    },
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
    async (request) => {
      const { account } = callerOf(request);
      const funds = await core.accounts.balance(account);
      return {
        success: true as const,
        balance_usdt: toUsdt(funds.availableMicro),
        currency: "USDT" as const,
        ...(funds.unlimited ? { unlimited: true as const } : {}),
      };
    },
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
    async () => ({
      success: true as const,
      stars: { min: STARS_MIN, max: STARS_MAX, usdt_per_star: toUsdt(tariffs.usdtPerStarMicro) },
      premium: { months: [...PREMIUM_MONTHS], usdt: premiumUsdt() },
      payment_method: PAYMENT_METHOD,
    }),
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
    async () => {
      const { tonUsd, fetchedAt } = await core.pricing.tonRate();
      // TON to 6 decimals, UZS to whole sums, by the service's one rounding rule.
      const ton = (usdtMicro: number) => (tonUsd === null ? null : toUsdt(divideRounded(usdtMicro, tonUsd)));
      const uzs = (usdtMicro: number) => divideRounded(usdtMicro * tariffs.uzsPerUsd, MICRO_PER_USDT);
      return {
        success: true as const,
        base_currency: "USDT",
        rates: { ton_usd: tonUsd, uzs_per_usd: tariffs.uzsPerUsd },
        stars: {
          min: STARS_MIN,
          max: STARS_MAX,
          usdt_per_star: toUsdt(tariffs.usdtPerStarMicro),
          ton_per_star: ton(tariffs.usdtPerStarMicro),
          uzs_per_star: uzs(tariffs.usdtPerStarMicro),
        },
        premium: {
          months: [...PREMIUM_MONTHS],
          usdt: premiumUsdt(),
          ton: tonUsd === null ? null : Object.fromEntries(PREMIUM_MONTHS.map((m) => [String(m), ton(tariffs.premiumMicro[m]) as number])),
          uzs: Object.fromEntries(PREMIUM_MONTHS.map((m) => [String(m), uzs(tariffs.premiumMicro[m])])),
        },
        payment_method: PAYMENT_METHOD,
        // When the live rate was read from its source (cached about a minute), not when this answer was made.
        updated_at: fetchedAt,
      };
    },
  );
};
