import type { FastifyInstance } from "fastify";
import pino from "pino";
import { buildApi, REDACTED_PATHS, requestSerializer } from "./api/app.js";
import type { Config } from "./config.js";
import { createCore, type Core } from "./core/index.js";
import { type Clock, systemClock } from "./core/ports.js";
import { openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { createGatewayAdapter } from "./upstream/gateway.js";
import { createHttpClient } from "./upstream/http.js";
import { createRatesAdapter } from "./upstream/rates.js";

export interface Service {
  core: Core;
  api: FastifyInstance;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  /** Where log lines go (stdout by default); tests capture them to prove no secret is logged. */
  logDestination?: pino.DestinationStream;
}

/** The composition root: config in, a wired service out. Starts nothing listening; main.ts does. */
export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const log = pino(
    { level: config.LOG_LEVEL, redact: REDACTED_PATHS, serializers: { req: requestSerializer, err: pino.stdSerializers.err } },
    overrides.logDestination ?? pino.destination(1),
  );
  const db = openDatabase(config.DATABASE_URL);
  await migrateToLatest(db);

  const client = (url: string | undefined) => (url ? createHttpClient(url, config.UPSTREAM_TIMEOUT_MS) : null);
  const gatewayHttp = client(config.GATEWAY_URL);
  const ratesHttp = client(config.RATES_URL);

  const core = createCore({
    db,
    clock: overrides.clock ?? systemClock,
    gateway: createGatewayAdapter(gatewayHttp),
    rates: createRatesAdapter(ratesHttp),
    tariffs: {
      usdtPerStarMicro: config.STARS_USDT_PER_STAR,
      premiumMicro: { 3: config.PREMIUM_USDT_3, 6: config.PREMIUM_USDT_6, 12: config.PREMIUM_USDT_12 },
      uzsPerUsd: config.UZS_PER_USD,
      tonCacheMs: config.TON_RATE_CACHE_SECONDS * 1000,
    },
    reconcileAfterMs: config.RECONCILE_AFTER_MS,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    log,
  });

  const api = await buildApi({
    core,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    deliveryProvider: config.UPSTREAM === "simulator" ? "simulator" : "gateway",
    logger: log,
  });
  core.reconciler.start();

  return {
    core,
    api,
    async close() {
      await core.reconciler.stop();
      await api.close();
      await Promise.all([gatewayHttp?.close(), ratesHttp?.close()]);
      await db.destroy();
    },
  };
}
