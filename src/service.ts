import type { FastifyInstance } from "fastify";
import { buildApi } from "./api/app.js";
import { trackRequests } from "./api/drain.js";
import { createBot, type PurchaseBot } from "./bot/bot.js";
import type { Config } from "./config.js";
import type { Core } from "./core/index.js";
import { botStateStore } from "./db/bot-state.js";
import type { Db } from "./db/database.js";
import { holdRole, keyedLock } from "./db/locks.js";
import { type Metrics, serveMetrics } from "./observability/metrics.js";
import { type Jobs, openCore, stopJobs, type WiringOverrides } from "./wiring.js";

export interface Service {
  core: Core;
  /** The background jobs (src/jobs): reconciler, webhook dispatch, monitor, purges. */
  jobs: Jobs;
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
  /**
   * The graceful stop (SIGTERM): no new requests or updates, those under way finish within `graceMs`
   * (SHUTDOWN_GRACE_MS by default), leases are handed back, pools closed. Past the bound what is left is cut.
   */
  stop(options?: { graceMs?: number; signal?: string }): Promise<StopReport>;
  close(): Promise<void>;
}

interface UnderWay {
  requests: number;
  botUpdates: number;
  providerCalls: number;
  reconcilerChecks: number;
  webhookAttempts: number;
}

export interface StopReport {
  /** True when everything under way finished within the bound. */
  finished: boolean;
  ms: number;
  /** Under way when the stop began. */
  underWay: UnderWay;
  /** Still under way at the bound, and cut (null when everything finished). */
  cut: UnderWay | null;
  /** Made due again now for another instance. */
  released: { orders: number[]; webhookEvents: number[] };
}

/** Resolves true once `work` settles, or false at `deadline` (ms since the epoch), whichever comes first. */
async function before(deadline: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export type ServiceOverrides = WiringOverrides;

/** The composition root: config in, a wired service out. Starts nothing listening; main.ts does. */
export async function createService(config: Config, overrides: ServiceOverrides = {}): Promise<Service> {
  const { core, jobs, db, log, metrics, close, abortCalls, closePools } = await openCore(config, overrides);

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
  const requests = trackRequests(api.server);
  if (bot) {
    // Administrators hear of alerts, and an endpoint's owner of its disabling, through the bot.
    jobs.monitor.onAlert(bot.notifier.alert);
    jobs.dispatch.onDisabled(bot.notifier.webhookDisabled);
  }
  jobs.reconciler.start();
  jobs.dispatch.start();
  jobs.monitor.start();
  jobs.purges.start();

  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> = null;
  const underWay = (): UnderWay => ({
    requests: requests.underWay(),
    botUpdates: bot?.underWay() ?? 0,
    providerCalls: core.pipelineCalls(),
    ...jobs.reconciler.underWay(),
    ...jobs.dispatch.underWay(),
  });
  /** Every lease this process still holds, handed back: its orders and webhook events due again now. */
  async function handBack(): Promise<{ orders: number[]; webhookEvents: number[] }> {
    const calls = await core.releaseCalls();
    const { orders } = await jobs.reconciler.handBack();
    const { webhookEvents } = await jobs.dispatch.handBack();
    return { orders: [...calls, ...orders].sort((a, b) => a - b), webhookEvents };
  }
  let stopping: Promise<StopReport> | undefined;

  /** Stop taking work, finish what is under way within the bound, hand back leases, close pools. */
  async function stop(graceMs: number, signal?: string): Promise<StopReport> {
    const started = Date.now();
    const deadline = started + graceMs;
    const atStart = underWay();
    log.info({ signal, graceMs, underWay: atStart }, "stopping: no new requests or updates; finishing those under way");
    // 1. No new work: the listener closes (requests on kept-alive connections are answered 503), this instance
    // gives the polling role up at once, and the background loops claim nothing more.
    requests.closing();
    const answered = api.close();
    const intake = bot?.stopPolling().catch((error: unknown) => log.warn({ err: error }, "could not give up polling cleanly"));
    const loops = stopJobs(jobs);
    // 2. What is under way finishes, within the bound: requests, bot updates, then the background loops' work.
    const finished = await before(
      deadline,
      (async () => {
        await intake;
        await answered;
        await bot?.drain();
        await loops;
      })(),
    );
    const cut = finished ? null : underWay();
    // 3. Leases still held (work cut short) are handed back: due again now, for another instance. A webhook
    // attempt cut here may still land beside the next one: at least once, the receiver deduplicates on the id.
    const released = await handBack().catch((error: unknown) => {
      log.error({ err: error }, "could not hand back leases; they lapse by themselves");
      return { orders: [], webhookEvents: [] };
    });
    // 4. Pools last (metrics stay scrapable until here). Cut calls are aborted first: their requests then answer
    // (the order as still processing).
    await metricsServer?.close();
    if (finished) await before(Date.now() + 2_000, close());
    else {
      await abortCalls().catch(() => undefined);
      await before(Date.now() + 1_000, answered);
      await before(Date.now() + 2_000, closePools());
    }
    const report: StopReport = { finished, ms: Date.now() - started, underWay: atStart, cut, released };
    if (finished) log.info(report, "stopped: everything under way finished");
    else log.error(report, `stopped past the ${graceMs} ms bound: work under way was cut (see cut); its leases were handed back`);
    return report;
  }

  return {
    core,
    jobs,
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
    stop: (options = {}) => (stopping ??= stop(options.graceMs ?? config.SHUTDOWN_GRACE_MS, options.signal)),
    async close() {
      await (stopping ??= stop(config.SHUTDOWN_GRACE_MS));
    },
  };
}
