import type { FastifyInstance } from "fastify";
import { buildApi } from "./api/app.js";
import { createBot, type PurchaseBot } from "./bot/bot.js";
import type { Config } from "./config.js";
import type { Core } from "./core/index.js";
import { botStateStore } from "./db/bot-state.js";
import type { Db } from "./db/database.js";
import { holdRole, keyedLock } from "./db/coordination.js";
import { type Metrics, serveMetrics } from "./observability/metrics.js";
import { openCore, type WiringOverrides } from "./wiring.js";

export interface Service {
  core: Core;
  /** The database itself, for tests and tools that inspect the books; the faces never see it. */
  db: Db;
  api: FastifyInstance;
  /** Null without BOT_TOKEN. */
  bot: PurchaseBot | null;
  metrics: Metrics;
  /** Serves the metrics on their own port (METRICS_PORT) unless it is off; resolves to their URL, or null. */
  startMetrics(): Promise<string | null>;
  /** Starts the bot (long polling, or the webhook when BOT_WEBHOOK_URL is set); call once the API listens. */
  startBot(): Promise<void>;
  close(): Promise<void>;
}

export type ServiceOverrides = WiringOverrides;

/** The composition root: config in, a wired service out. Starts nothing listening; main.ts does. */
export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const { core, db, log, metrics, close } = await openCore(config, overrides);

  const webhookMode = Boolean(config.BOT_WEBHOOK_URL && config.BOT_WEBHOOK_SECRET);
  const bot = config.BOT_TOKEN
    ? createBot({
        core,
        storage: botStateStore(db),
        token: config.BOT_TOKEN,
        apiRoot: config.TELEGRAM_API_ROOT,
        admins: config.ADMIN_TELEGRAM_IDS,
        support: config.SUPPORT_CONTACT ?? null,
        adminConfirmAboveMicro: config.ADMIN_CONFIRM_ABOVE_USDT,
        log,
        observeUpdate: metrics.botUpdate,
        pollOnOneInstance: (role) => holdRole(db, "telegram-polling", role, log),
        // Webhooks reach every instance: hold each chat's updates apart across them (half the pool at most).
        ...(webhookMode ? { oneAtATimePerChat: keyedLock(db, Math.max(1, Math.floor(config.DATABASE_POOL_MAX / 2))) } : {}),
      })
    : null;
  const webhook = bot && webhookMode ? { url: config.BOT_WEBHOOK_URL!, secretToken: config.BOT_WEBHOOK_SECRET! } : null;

  const api = await buildApi({
    core,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    deliveryProvider: config.UPSTREAM === "simulator" ? "simulator" : "gateway",
    logger: log,
    onAnswered: metrics.request,
    ...(bot && webhook ? { telegramWebhook: bot.webhookHandler(webhook.secretToken) } : {}),
  });
  core.reconciler.start();
  core.webhooks.delivery.start();
  core.monitor.start();

  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> = null;
  return {
    core,
    db,
    api,
    bot,
    metrics,
    async startMetrics() {
      if (config.METRICS_PORT === null) return null;
      metricsServer = await serveMetrics(metrics, { host: config.METRICS_HOST, port: config.METRICS_PORT, token: config.METRICS_TOKEN, log });
      return metricsServer?.url ?? null;
    },
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
      await api.close();
      await metricsServer?.close();
      await close();
    },
  };
}
