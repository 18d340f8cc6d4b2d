import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import pino from "pino";
import { type Config, providerUrl } from "./config.js";
import { createCore, type Core } from "./core/index.js";
import { type Clock, PROVIDER_NAMES, type Providers, systemClock } from "./core/ports.js";
import { createVault, newVaultKey } from "./core/vault.js";
import { type Db, isPostgres, openDatabase } from "./db/database.js";
import { migrateToLatest } from "./db/migrate.js";
import { createGamesAdapter } from "./upstream/games.js";
import { createGatewayAdapter } from "./upstream/gateway.js";
import { createGiftcardsAdapter } from "./upstream/giftcards.js";
import { createGiftsAdapter } from "./upstream/gifts.js";
import { createHttpClient, type HttpClient, type UpstreamCall } from "./upstream/http.js";
import { createRatesAdapter } from "./upstream/rates.js";
import { createStoreAdapter } from "./upstream/store.js";
import { createWebhookSender } from "./upstream/webhook-sender.js";
import { anyOrderView } from "./api/present.js";
import { RATE_LIMIT_WINDOW_SECONDS } from "./api/app.js";
import { botStateStore } from "./db/bot-state.js";
import { createMonitor } from "./jobs/monitor.js";
import { createPurges } from "./jobs/purges.js";
import { createReconciler } from "./jobs/reconciler.js";
import { createWebhookDispatch } from "./jobs/webhook-dispatch.js";
import { createMetrics, type Metrics } from "./observability/metrics.js";
import { withRequestId } from "./observability/context.js";
import { errSerializer, maskSecrets, requestIdMixin } from "./observability/log.js";

/** Paths of request data that must never reach a log line. */
export const REDACTED_PATHS = ['req.headers["x-api-key"]', "req.headers.authorization", "key", "apiKey"];

/**
 * A key (or a webhook secret, or a bot token) pasted into a URL by mistake must not reach the log either,
 * percent-encoded or not: the URL is decoded first (when it decodes), then every secret-shaped token is masked.
 */
export function maskKeys(text: string): string {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Not decodable as a whole: the encoded underscore form is masked too.
  }
  return maskSecrets(decoded);
}

/** Request log serializer: what Fastify logs by default, with key-shaped tokens masked in the URL. */
export function requestSerializer(request: { method: string; url: string; host?: string; ip?: string }) {
  return { method: request.method, url: maskKeys(request.url), host: request.host, remoteAddress: request.ip };
}

export interface WiringOverrides {
  clock?: Clock;
  /** Where log lines go (stdout by default); tests capture them to prove no secret is logged. */
  logDestination?: pino.DestinationStream;
}

export interface Wiring {
  core: Core;
  /** The background jobs, built but not started (the service starts them). */
  jobs: Jobs;
  metrics: Metrics;
  db: Db;
  log: pino.Logger;
  /** Stops the background loops after their work under way, then closes connections and pools. */
  close(): Promise<void>;
  /** A stop past its bound: aborts the provider calls and webhook attempts under way (they end as "no answer"). */
  abortCalls(): Promise<void>;
  /** Closes the database pools only, whatever is under way. */
  closePools(): Promise<void>;
}

const ADAPTERS: { [N in keyof Providers]: (http: HttpClient | null) => Providers[N] } = {
  gateway: createGatewayAdapter,
  rates: createRatesAdapter,
  store: createStoreAdapter,
  games: createGamesAdapter,
  giftcards: createGiftcardsAdapter,
  gifts: createGiftsAdapter,
};

/**
 * The key that seals gift card codes: CODES_KEY when set, else `codes.key` beside the database, made on
 * first start (readable by the owner only). Losing it makes stored codes unreadable, so back it up with the database.
 */
function codesKey(config: Config): Buffer {
  if (config.CODES_KEY) return Buffer.from(config.CODES_KEY, "base64");
  const file = codesKeyFile(config);
  try {
    // "wx": of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, newVaultKey().toString("base64"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
}

/** Where the codes key is kept when CODES_KEY is not set: `codes.key` beside the SQLite database. */
export const codesKeyFile = (config: Config) => join(dirname(config.DATABASE_URL), "codes.key");

/** Brings the configured database to the latest schema; returns the names of the migrations it applied. */
export async function migrateDatabase(config: Config): Promise<string[]> {
  const db = openDatabase(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX });
  try {
    return await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

/**
 * The core and what it stands on (log, migrated database, provider adapters), wired once from the config:
 * the service and the admin CLI open the same thing. Starts nothing in the background.
 */
export async function openCore(config: Config, overrides: WiringOverrides = {}): Promise<Wiring> {
  const log = pino(
    {
      level: config.LOG_LEVEL,
      redact: REDACTED_PATHS,
      serializers: { req: requestSerializer, err: errSerializer },
      // Lines logged during a request, bot update or background pass carry its id (src/observability).
      mixin: requestIdMixin,
    },
    // Written asynchronously: lines logged while a write is under way go out together in the next one.
    overrides.logDestination ?? pino.destination({ dest: 1, sync: false }),
  );
  const db = openDatabase(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX });
  await migrateToLatest(db);
  // Several instances may share a PostgreSQL database: they count requests there, on a small pool of its own.
  const counterDb = isPostgres(db) ? openDatabase(config.DATABASE_URL, { poolMax: 4, unsyncedCommits: true }) : undefined;
  // The backlog is read from the database when scraped; every instance reports its own counts.
  const metrics = createMetrics(() => jobs.monitor.backlog());
  // One line per provider call, never its bodies; the id is the request's (also sent as X-Request-Id).
  const onCall = (call: UpstreamCall) => {
    metrics.providerCall(call);
    log.info(
      {
        ...(call.requestId ? { reqId: call.requestId } : {}),
        provider: call.provider,
        method: call.method,
        path: maskSecrets(call.path),
        statusCode: call.statusCode,
        ...(call.error ? { error: maskSecrets(call.error) } : {}),
        ms: call.durationMs,
      },
      "provider call",
    );
  };
  const clients = PROVIDER_NAMES.map((name) => {
    const url = config[providerUrl(name)];
    return url ? createHttpClient(url, config.UPSTREAM_TIMEOUT_MS, { provider: name, onCall }) : null;
  });
  const allowLoopback = (config.WEBHOOK_ALLOW_LOOPBACK ?? (config.UPSTREAM === "simulator" ? "true" : "false")) === "true";
  const webhookSender = createWebhookSender({ allowLoopback });
  const providers = Object.fromEntries(PROVIDER_NAMES.map((name, i) => [name, ADAPTERS[name](clients[i])])) as unknown as Providers;

  const clock = overrides.clock ?? systemClock;
  const core = createCore({
    db,
    clock,
    providers,
    tariffs: {
      usdtPerStarMicro: config.STARS_USDT_PER_STAR,
      premiumMicro: { 3: config.PREMIUM_USDT_3, 6: config.PREMIUM_USDT_6, 12: config.PREMIUM_USDT_12 },
      uzsPerUsd: config.UZS_PER_USD,
      tonCacheMs: config.TON_RATE_CACHE_SECONDS * 1000,
    },
    markups: { store: config.STORE_MARKUP_PERCENT, games: config.GAMES_MARKUP_PERCENT, giftcards: config.GIFTCARDS_MARKUP_PERCENT },
    storeEnabled: config.STORE_ENABLED,
    vault: createVault(codesKey(config)),
    reconcileAfterMs: config.RECONCILE_AFTER_MS,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    quoteTtlMs: config.QUOTE_TTL_SECONDS * 1000,
    log,
    counterDb,
    lowBalanceMicro: config.LOW_BALANCE_USDT,
    webhooks: {
      sender: webhookSender,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      policy: { allowLoopback, secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000 },
      // Order events carry the order's status-endpoint body (without gift card codes).
      orderBody: anyOrderView,
    },
  });
  core.orders.onSettled((order) => metrics.orderFinished(order));
  const jobs = openJobs(config, { core, db, counterDb, clock, log });
  async function closePools() {
    await counterDb?.destroy();
    await db.destroy();
  }
  return {
    core,
    jobs,
    metrics,
    db,
    log,
    async close() {
      await stopJobs(jobs);
      await webhookSender.close();
      await Promise.all(clients.map((client) => client?.close()));
      await closePools();
    },
    async abortCalls() {
      await Promise.all([webhookSender.destroy(), ...clients.map((client) => client?.destroy())]);
    },
    closePools,
  };
}

/**
 * The background jobs over the core (src/jobs), built but not started. Each reconciler pass, webhook attempt,
 * monitor round and purge is logged under an id of its own (recon-<n>, wh-<event id>, alerts-<n>, purge-…).
 */
function openJobs(config: Config, on: { core: Core; db: Db; counterDb: Db | undefined; clock: Clock; log: pino.Logger }) {
  const { core, db, clock, log } = on;
  const scope = withRequestId;
  const jobs = {
    // An order younger than RECONCILE_AFTER_MS may still have its provider call in flight: a claim leases it that long.
    reconciler: createReconciler({
      db,
      clock,
      settlement: core.settlement,
      intervalMs: config.RECONCILE_INTERVAL_MS,
      leaseMs: config.RECONCILE_AFTER_MS,
      log,
      scope,
    }),
    dispatch: createWebhookDispatch({
      db,
      clock,
      send: core.webhooks.send,
      settings: {
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
        retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
        retryForMs: config.WEBHOOK_RETRY_FOR_MS,
        pollMs: config.WEBHOOK_POLL_MS,
      },
      log,
      scope,
    }),
    monitor: createMonitor({
      db,
      clock,
      health: core.health,
      settings: {
        intervalMs: config.ALERT_CHECK_INTERVAL_MS,
        refundWindowMs: config.ALERT_REFUND_WINDOW_MINUTES * 60_000,
        refundThreshold: config.ALERT_REFUNDS,
        walletBelowMicro: config.ALERT_WALLET_BELOW_USDT,
        ledgerEveryMs: config.ALERT_LEDGER_CHECK_SECONDS * 1000,
        repeatMs: config.ALERT_REPEAT_HOURS * 3_600_000,
        maxPerHour: config.ALERT_MAX_PER_HOUR,
      },
      log,
      scope,
    }),
    purges: createPurges({
      db,
      clock,
      requestCounts: on.counterDb ? { db: on.counterDb, windowMs: RATE_LIMIT_WINDOW_SECONDS * 1000 } : undefined,
      webhookRetentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
      botSessions: config.BOT_TOKEN ? botStateStore(db) : undefined,
      log,
      scope,
    }),
  };
  // An outbox commit wakes the dispatch at once.
  core.webhooks.outbox.onCommitted(jobs.dispatch.wake);
  return jobs;
}

export type Jobs = ReturnType<typeof openJobs>;

/** Stops every job; each resolves once its work under way is done. */
export async function stopJobs(jobs: Jobs): Promise<void> {
  await Promise.all(Object.values(jobs).map((job) => job.stop()));
}
