import { z } from "zod";
import { PREMIUM_MONTHS, STARS_MAX, STARS_MIN } from "../core/formats.js";
import { type Micro, microUnitsAt, toUsdt, wholeUnitsAt } from "../core/model/money.js";
import type { PortName } from "../core/ports.js";
import type { Tariffs } from "../core/pricing.js";
import { dateTime } from "./common.js";

// What a key can read of the service and of itself without buying: health, balance, tariffs and rates.

/** The interface version: the document's info.version and health's `version`. */
export const API_VERSION = "1.0.0";
const PAYMENT_METHOD = "balance";

export const balanceResponse = z.object({
  success: z.literal(true),
  balance_usdt: z.number(),
  currency: z.literal("USDT"),
  unlimited: z.literal(true).optional().describe("Only for an owner key"),
});

const premiumPrices = z.record(z.string(), z.number());

export const pricingResponse = z.object({
  success: z.literal(true),
  stars: z.object({ min: z.number().int(), max: z.number().int(), usdt_per_star: z.number() }),
  premium: z.object({ months: z.array(z.number().int()), usdt: premiumPrices }),
  payment_method: z.string(),
});

export const ratesResponse = z.object({
  success: z.literal(true),
  base_currency: z.string(),
  rates: z.object({ ton_usd: z.number().nullable(), uzs_per_usd: z.number() }),
  stars: z.object({
    min: z.number().int(),
    max: z.number().int(),
    usdt_per_star: z.number(),
    ton_per_star: z.number().nullable(),
    uzs_per_star: z.number().int(),
  }),
  premium: z.object({
    months: z.array(z.number().int()),
    usdt: premiumPrices,
    ton: premiumPrices.nullable(),
    uzs: premiumPrices,
  }),
  payment_method: z.string(),
  updated_at: dateTime,
});

export const healthResponse = z.object({
  success: z.boolean(),
  delivery_provider: z.string(),
  delivery_ready: z.boolean(),
  gateway_ready: z.boolean(),
  store_ready: z.boolean(),
  game_ready: z.boolean(),
  giftcard_ready: z.boolean(),
  gift_ready: z.boolean().optional().describe("Whether the gift service answers now (beyond the contract's fields); only with a valid key"),
  db_ready: z.boolean(),
  api_configured: z.boolean(),
  version: z.string(),
  backends: z
    .object({
      stars: z.enum(["protocol"]),
      premium: z.enum(["protocol", "telegram"]),
      store: z.enum(["protocol"]),
      games: z.enum(["protocol"]),
      giftcards: z.enum(["protocol", "reloadly"]),
      gifts: z.enum(["protocol", "telegram"]),
    })
    .optional()
    .describe(
      "What each product is delivered by (beyond the contract's fields), only with a valid key: `protocol`, a provider speaking the service's provider protocol (the embedded simulator by default); `telegram`, the bot through the Telegram Bot API; `reloadly`, Reloadly's Gift Cards API",
    ),
});

/** What the deployment delivers by: `delivery_provider` and each product's backend. */
export interface Delivery {
  provider: string;
  /** What an anonymous caller is told: no supplier's name. */
  publicProvider: string;
  backends: NonNullable<z.infer<typeof healthResponse>["backends"]>;
}

/** Every product by the provider protocol's gateway and providers: the deployment without other backends. */
export const PROTOCOL_DELIVERY: Delivery = {
  provider: "gateway",
  publicProvider: "gateway",
  backends: { stars: "protocol", premium: "protocol", store: "protocol", games: "protocol", giftcards: "protocol", gifts: "protocol" },
};

/** GET /livez: the process answers (its event loop runs); nothing else is looked at. */
export const livenessResponse = z.object({ alive: z.literal(true) }).meta({ id: "Liveness" });

/** GET /readyz: whether this instance should get traffic now, and why not. */
export const readinessResponse = z
  .object({
    ready: z.boolean(),
    reason: z
      .enum(["database_unreachable", "stopping"])
      .nullable()
      .describe("Why not: the database did not answer this instance's last check in time, or the instance is stopping"),
  })
  .meta({ id: "Readiness" });

export function readinessView(databaseReady: boolean, stopping: boolean): z.infer<typeof readinessResponse> {
  if (stopping) return { ready: false, reason: "stopping" };
  return databaseReady ? { ready: true, reason: null } : { ready: false, reason: "database_unreachable" };
}

/**
 * The contract's health. Anonymous callers get its fields alone, readiness meaning "answers" (never whether a
 * backend's balance is spent) and `delivery_provider` the protocol's word, naming no supplier; a valid key also
 * gets the supplier's `delivery_provider`, `gift_ready` and `backends`.
 */
export function healthView(
  health: { databaseReady: boolean; ready: Record<PortName, boolean>; configured: Record<PortName, boolean>; storeEnabled: boolean },
  delivery: Delivery,
  keyed: boolean,
): z.infer<typeof healthResponse> {
  const { databaseReady, ready, configured, storeEnabled } = health;
  return {
    success: databaseReady,
    delivery_provider: keyed ? delivery.provider : delivery.publicProvider,
    // Delivery: stars and Premium, each by its own backend; the gateway (the contract's word): what delivers stars.
    delivery_ready: ready.stars && ready.premium,
    gateway_ready: ready.stars,
    store_ready: ready.store && storeEnabled,
    game_ready: ready.games,
    giftcard_ready: ready.giftcards,
    ...(keyed ? { gift_ready: ready.gifts } : {}),
    db_ready: databaseReady,
    api_configured: configured.stars || configured.premium,
    version: API_VERSION,
    ...(keyed ? { backends: delivery.backends } : {}),
  };
}

export const balanceView = (funds: { availableMicro: Micro; unlimited: boolean }): z.infer<typeof balanceResponse> => ({
  success: true as const,
  balance_usdt: toUsdt(funds.availableMicro),
  currency: "USDT" as const,
  ...(funds.unlimited ? { unlimited: true as const } : {}),
});

const premiumUsdt = (tariffs: Tariffs) => Object.fromEntries(PREMIUM_MONTHS.map((m) => [String(m), toUsdt(tariffs.premiumMicro[m])]));

export const pricingView = (tariffs: Tariffs): z.infer<typeof pricingResponse> => ({
  success: true as const,
  stars: { min: STARS_MIN, max: STARS_MAX, usdt_per_star: toUsdt(tariffs.usdtPerStarMicro) },
  premium: { months: [...PREMIUM_MONTHS], usdt: premiumUsdt(tariffs) },
  payment_method: PAYMENT_METHOD,
});

export function ratesView(tariffs: Tariffs, rate: { tonUsd: number | null; fetchedAt: string }): z.infer<typeof ratesResponse> {
  const { tonUsd, fetchedAt } = rate;
  // TON to 6 decimals, UZS to whole sums, by the service's one rounding rule.
  const ton = (usdtMicro: Micro) => (tonUsd === null ? null : toUsdt(microUnitsAt(usdtMicro, tonUsd)));
  const uzs = (usdtMicro: Micro) => wholeUnitsAt(usdtMicro, tariffs.uzsPerUsd);
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
      usdt: premiumUsdt(tariffs),
      ton: tonUsd === null ? null : Object.fromEntries(PREMIUM_MONTHS.map((m) => [String(m), ton(tariffs.premiumMicro[m]) as number])),
      uzs: Object.fromEntries(PREMIUM_MONTHS.map((m) => [String(m), uzs(tariffs.premiumMicro[m])])),
    },
    payment_method: PAYMENT_METHOD,
    // When the live rate was read from its source (cached about a minute), not when this answer was made.
    updated_at: fetchedAt,
  };
}
