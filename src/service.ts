import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { buildApi, REDACTED_PATHS, requestSerializer } from "./api/app.js";
import { createBot, type PurchaseBot } from "./bot/bot.js";
import type { Config } from "./config.js";
import { createCore, type Core } from "./core/index.js";
import { type Clock, systemClock } from "./core/ports.js";
import { createVault, newVaultKey } from "./core/vault.js";
import { openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { createGamesAdapter } from "./upstream/games.js";
import { createGatewayAdapter } from "./upstream/gateway.js";
import { createGiftcardsAdapter } from "./upstream/giftcards.js";
import { createGiftsAdapter } from "./upstream/gifts.js";
import { createHttpClient } from "./upstream/http.js";
import { createRatesAdapter } from "./upstream/rates.js";
import { createStoreAdapter } from "./upstream/store.js";

export interface Service {
  core: Core;
  api: FastifyInstance;
  /** Null without BOT_TOKEN. */
  bot: PurchaseBot | null;
  /** Starts the bot (long polling, or the webhook when BOT_WEBHOOK_URL is set); call once the API listens. */
  startBot(): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  /** Where log lines go (stdout by default); tests capture them to prove no secret is logged. */
  logDestination?: pino.DestinationStream;
}

/**
 * The key that seals gift card codes: CODES_KEY when set, else `codes.key` beside the database, made on
 * first start (readable by the owner only). Losing it makes stored codes unreadable, so back it up with the database.
 */
function codesKey(config: Config): Buffer {
  if (config.CODES_KEY) return Buffer.from(config.CODES_KEY, "base64");
  const file = join(dirname(config.DATABASE_URL), "codes.key");
  try {
    // "wx": of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, newVaultKey().toString("base64"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
}

/** The composition root: config in, a wired service out. Starts nothing listening; main.ts does. */
export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const log = pino(
    { level: config.LOG_LEVEL, redact: REDACTED_PATHS, serializers: { req: requestSerializer, err: pino.stdSerializers.err } },
    overrides.logDestination ?? pino.destination(1),
  );
  const db = openDatabase(config.DATABASE_URL);
  await migrateToLatest(db);
  const vault = createVault(codesKey(config));

  const clients = [config.GATEWAY_URL, config.RATES_URL, config.STORE_URL, config.GAMES_URL, config.GIFTCARDS_URL, config.GIFTS_URL].map((url) =>
    url ? createHttpClient(url, config.UPSTREAM_TIMEOUT_MS) : null,
  );
  const [gatewayHttp, ratesHttp, storeHttp, gamesHttp, giftcardsHttp, giftsHttp] = clients;

  const core = createCore({
    db,
    clock: overrides.clock ?? systemClock,
    providers: {
      gateway: createGatewayAdapter(gatewayHttp),
      rates: createRatesAdapter(ratesHttp),
      store: createStoreAdapter(storeHttp),
      games: createGamesAdapter(gamesHttp),
      giftcards: createGiftcardsAdapter(giftcardsHttp),
      gifts: createGiftsAdapter(giftsHttp),
    },
    tariffs: {
      usdtPerStarMicro: config.STARS_USDT_PER_STAR,
      premiumMicro: { 3: config.PREMIUM_USDT_3, 6: config.PREMIUM_USDT_6, 12: config.PREMIUM_USDT_12 },
      uzsPerUsd: config.UZS_PER_USD,
      tonCacheMs: config.TON_RATE_CACHE_SECONDS * 1000,
    },
    markups: { store: config.STORE_MARKUP_PERCENT, games: config.GAMES_MARKUP_PERCENT, giftcards: config.GIFTCARDS_MARKUP_PERCENT },
    storeEnabled: config.STORE_ENABLED,
    vault,
    reconcileAfterMs: config.RECONCILE_AFTER_MS,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    log,
  });

  const bot = config.BOT_TOKEN
    ? createBot({ core, token: config.BOT_TOKEN, apiRoot: config.TELEGRAM_API_ROOT, admins: config.ADMIN_TELEGRAM_IDS, log })
    : null;
  const webhook = bot && config.BOT_WEBHOOK_URL && config.BOT_WEBHOOK_SECRET ? { url: config.BOT_WEBHOOK_URL, secretToken: config.BOT_WEBHOOK_SECRET } : null;

  const api = await buildApi({
    core,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    deliveryProvider: config.UPSTREAM === "simulator" ? "simulator" : "gateway",
    logger: log,
    ...(bot && webhook ? { telegramWebhook: { bot: bot.bot, secretToken: webhook.secretToken } } : {}),
  });
  core.reconciler.start();

  return {
    core,
    api,
    bot,
    async startBot() {
      if (!bot) {
        log.info({}, "bot disabled: set BOT_TOKEN (and TELEGRAM_API_ROOT for the local emulator) to enable it");
        return;
      }
      if (webhook) await bot.startWebhook(webhook.url, webhook.secretToken);
      else await bot.startPolling();
    },
    async close() {
      await bot?.stop();
      await core.reconciler.stop();
      await api.close();
      await Promise.all(clients.map((client) => client?.close()));
      await db.destroy();
    },
  };
}
