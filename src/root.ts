import type { FastifyInstance } from "fastify";
import type pino from "pino";
import { buildApi } from "./api/app.js";
import { RATE_LIMIT_WINDOW_SECONDS } from "./api/plugins/rate-limit.js";
import { trackRequests } from "./api/drain.js";
import { createBot, type PurchaseBot } from "./bot/bot.js";
import { type Config, providerUrl } from "./config.js";
import { createCore, type Core } from "./core/index.js";
import { type CryptoPayPort, PROVIDER_NAMES, type Providers } from "./core/ports.js";
import type { Clock } from "./core/model/clock.js";
import { createVault } from "./core/vault.js";
import { botStateStore } from "./db/bot-state.js";
import { databaseClock } from "./db/clock.js";
import { codesKey } from "./core/codes-key.js";
import { holdRole } from "./jobs/role.js";
import { botInbox } from "./db/bot-inbox.js";
import { checkpointInBackground, type Db, openCounterDatabase, openDatabase, withoutStatementBound } from "./db/database.js";
import { createFaultLog, type FaultLog } from "./db/faults.js";
import { migrateToLatest } from "./db/migrate.js";
import { oneStatementWrites } from "./db/placement.js";
import { createMonitor, type MonitorOptions, readBacklog } from "./jobs/monitor.js";
import { createPurges } from "./jobs/purges.js";
import { createReconciler } from "./jobs/reconciler.js";
import { createHealthProbe } from "./jobs/health-probe.js";
import { createTopupPoll } from "./jobs/topup-poll.js";
import { createWebhookDispatch } from "./jobs/webhook-dispatch.js";
import { createLifecycle, type Lifecycle, type Resource, type StopReport } from "./lifecycle.js";
import { withRequestId } from "./observability/context.js";
import { createLog } from "./observability/log.js";
import { createMetrics, type Metrics, serveMetrics } from "./observability/metrics.js";
import { openProviders } from "./upstream/index.js";
import type { MiniAppOptions } from "./api/miniapp/options.js";
import { createMiniAppSessions } from "./api/miniapp/session.js";
import { refusalText } from "./bot/refusals.js";
import { createCryptoPay } from "./upstream/crypto-pay.js";
import { createTelegramPayments } from "./upstream/telegram-payments.js";
import { createStarBookCheck, createStarsSettle } from "./jobs/stars.js";
import { createWebhookSender } from "./upstream/webhook-sender.js";
import { webhookEvents } from "./wire/events.js";
import { type Delivery, PROTOCOL_DELIVERY } from "./wire/account.js";
import type { Backends } from "./upstream/backends.js";
import { claimedTransactions, deliveriesToLink, linkTransaction, openOrdersByBackend, stampBackends, unlinkedDeliveries } from "./db/orders.js";
import { contactByUsername, correctContactUsername } from "./db/telegram-contacts.js";

/** Telegram's own Bot API server (grammY's default too). */
const TELEGRAM_API = "https://api.telegram.org";

export interface RootOptions {
  clock?: Clock;
  /** Where log lines go (stdout by default); tests capture them to prove no secret is logged. */
  logDestination?: pino.DestinationStream;
}

/** The core and what it stands on: what the admin CLI opens. Starts nothing in the background. */
interface CoreService {
  config: Config;
  log: pino.Logger;
  /** The database itself, for tests and tools that inspect the books; the faces never see it. */
  db: Db;
  core: Core;
  metrics: Metrics;
  /** The graceful stop (see Service.stop). */
  stop(options?: { graceMs?: number; signal?: string }): Promise<StopReport>;
  close(): Promise<void>;
}

/** The whole service: the core, its background jobs, the API and the bot. */
export interface Service extends CoreService {
  /** The background jobs (src/jobs), each named as its file: reconciler, webhook-dispatch, health-probe, monitor, purges, topup-poll (started by `start`). */
  jobs: Jobs;
  api: FastifyInstance;
  /** Null without BOT_TOKEN. */
  bot: PurchaseBot | null;
  /**
   * Starts the steps in order: the jobs, the API's listener (HOST, PORT), the metrics' listener (METRICS_PORT),
   * the bot (long polling, or its webhook), then the steps added with `addStep`; a stop runs them in reverse. When
   * a step throws, the steps begun are stopped in reverse and it rejects with StartFailed. `listen: false` leaves
   * both listeners to the caller (tests inject requests).
   */
  start(options?: { listen?: boolean }): Promise<void>;
  /** A step of the caller's, started after the service's own (and stopped before them); added before `start`. */
  addStep(step: Resource): void;
  /** The API's address once it listens, else null. */
  readonly url: string | null;
  /** Serves the metrics on their own port (METRICS_PORT) unless it is off; resolves to their URL, or null. */
  startMetrics(): Promise<string | null>;
}

/**
 * The composition root. Builds the resources in order: log, metrics, database, providers, core (then, for the
 * service, the jobs, the API, the metrics listener and the bot, started by `start` in that order); a stop runs
 * them in reverse (src/lifecycle.ts). A build that throws closes what it had built. The service, the admin CLI,
 * the tests and the benchmark all open the service here.
 */
export async function openCore(config: Config, options: RootOptions = {}) {
  const log = createLog(config.LOG_LEVEL, options.logDestination);
  const lifecycle = createLifecycle(log);
  return closedOnFailure(lifecycle, config, () => buildCore(config, options, log, lifecycle));
}

/** What `build` built is closed (the stack stopped) when it throws. */
async function closedOnFailure<T>(lifecycle: Lifecycle, config: Config, build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (error) {
    await lifecycle.stop(config.SHUTDOWN_GRACE_MS);
    throw error;
  }
}

/** The core's build, in order; each step adds what it built to the lifecycle. */
async function buildCore(config: Config, options: RootOptions, log: pino.Logger, lifecycle: Lifecycle) {
  // The backlog is read from the database when scraped; every instance reports its own counts.
  const metrics = createMetrics(() => readBacklog(storage.db, storage.clock));
  const storage = await addDatabase(lifecycle, config, options, log, metrics);
  const upstream = await addUpstream(lifecycle, config, log, metrics, storage);
  const core = addCore(lifecycle, config, { ...storage, ...upstream, log, metrics });

  const service: CoreService = {
    config,
    log,
    db: storage.db,
    core,
    metrics,
    stop: (stop = {}) => lifecycle.stop(stop.graceMs ?? config.SHUTDOWN_GRACE_MS, stop.signal),
    close: async () => void (await lifecycle.stop(config.SHUTDOWN_GRACE_MS)),
  };
  const { clock, counterDb, faults } = storage;
  return {
    service,
    lifecycle,
    clock,
    counterDb,
    cryptoPay: upstream.cryptoPay,
    faults,
    providers: upstream.providers,
    linkDeliveries: upstream.linkDeliveries,
    stranded: upstream.stranded,
    legacyOrders: upstream.legacyOrders,
    funds: fundsWatched(config, upstream.providers),
  };
}

/** The database and the request counters' pool, the database's clock, and the schema migrated to the latest. */
async function addDatabase(lifecycle: Lifecycle, config: Config, options: RootOptions, log: pino.Logger, metrics: Metrics) {
  // Faults the database met (it hung, filled up, went away), for the monitor to tell the administrators.
  const faults = createFaultLog();
  const bounds = { timeoutMs: config.DATABASE_TIMEOUT_MS, onFault: faults.record };
  const db = openDatabase(config.DATABASE_URL, { poolMax: config.DATABASE_POOL_MAX, onDiskFlush: metrics.diskFlush, ...bounds });
  const counterDb = openCounterDatabase(config.DATABASE_URL, bounds);
  lifecycle.add({ name: "database", close: async () => Promise.all([counterDb?.destroy(), db.destroy()]) });
  // Every decision comparing a stored time with now uses the database's clock, read before anything is decided.
  const databaseTime = options.clock ? null : await openDatabaseClock(db, log);
  const clock: Clock = options.clock ?? databaseTime!;
  if (databaseTime) lifecycle.add({ name: "database clock", close: databaseTime.close });
  // A migration may rewrite a large table: its statements take as long as they take.
  await withoutStatementBound(() => migrateToLatest(db));
  return { db, counterDb, clock, faults };
}

/** The database's clock, calibrated and kept so; a machine clock far off the database's is said once, as a warning. */
async function openDatabaseClock(db: Db, log: pino.Logger) {
  const clock = await databaseClock(db, (error) => log.warn({ err: error }, "could not read the database's clock: the last reading stands"));
  const fields = { skewMs: Math.round(clock.skewMs), errorMs: Math.round(clock.errorMs * 10) / 10 };
  if (Math.abs(clock.skewMs) > 1000) log.warn(fields, "this machine's clock is off the database's: decisions follow the database's");
  else log.debug(fields, "clock calibrated to the database's");
  clock.start();
  return clock;
}

/** What the service calls out to: the providers' HTTP pools, Crypto Pay (when set) and the webhook sender. */
async function addUpstream(lifecycle: Lifecycle, config: Config, log: pino.Logger, metrics: Metrics, { db, clock }: { db: Db; clock: Clock }) {
  // Orders still open: those a backend no longer configured took are settled there; those from before orders
  // recorded their backend (null) are stamped by the service's start.
  const open = await openOrdersByBackend(db);
  const configured = orderBackends(config);
  const upstream = openProviders({
    formerOrders: open.filter((group) => group.backend !== null && group.backend !== configured[group.productType]),
    urls: Object.fromEntries(PROVIDER_NAMES.map((name) => [name, config[providerUrl(name)]])),
    backends: backendsOf(config),
    ...(config.RELOADLY_CLIENT_ID && config.RELOADLY_CLIENT_SECRET
      ? {
          reloadly: {
            environment: config.RELOADLY_ENVIRONMENT,
            clientId: config.RELOADLY_CLIENT_ID,
            clientSecret: config.RELOADLY_CLIENT_SECRET,
            ...(config.RELOADLY_AUTH_URL ? { authUrl: config.RELOADLY_AUTH_URL } : {}),
            ...(config.RELOADLY_GIFTCARDS_URL ? { giftcardsUrl: config.RELOADLY_GIFTCARDS_URL } : {}),
            senderName: config.RELOADLY_SENDER_NAME,
          },
        }
      : {}),
    ...(config.BOT_TOKEN
      ? {
          telegram: {
            token: config.BOT_TOKEN,
            apiRoot: config.TELEGRAM_API_ROOT ?? TELEGRAM_API,
            // The Bot API addresses users by id: the users the bot has seen, by their @username.
            find: (username: string) => contactByUsername(db, username),
            correct: (telegramId: string, username: string | null) => correctContactUsername(db, telegramId, username),
            book: {
              claimed: (ids: string[]) => claimedTransactions(db, ids),
              unlinked: (recipientId: string) => unlinkedDeliveries(db, "telegram", recipientId),
              toLink: (limit: number, afterId: number) => deliveriesToLink(db, "telegram", limit, afterId),
              link: (orderId: number, transactionId: string) => linkTransaction(db, orderId, transactionId, clock.now().toISOString()),
            },
          },
        }
      : {}),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    log,
    onCall: metrics.providerCall,
  });
  lifecycle.add({ name: "providers", abort: upstream.abort, close: upstream.close });
  // Crypto Pay, where top-ups by invoice are offered (its URL and token both set).
  const cryptoPay =
    config.CRYPTO_PAY_URL && config.CRYPTO_PAY_TOKEN
      ? createCryptoPay({ baseUrl: config.CRYPTO_PAY_URL, token: config.CRYPTO_PAY_TOKEN, timeoutMs: config.UPSTREAM_TIMEOUT_MS, log })
      : null;
  if (cryptoPay) lifecycle.add({ name: "crypto pay", close: cryptoPay.close });
  // The bot's Stars as money in (invoice links, refunds) and its Star book (transactions, balance): where Stars
  // top-ups are offered or the bot pays gifts or Premium from its Stars.
  const starPayments =
    config.BOT_TOKEN && (config.STARS_TOPUP_RATE_MICRO !== null || booksStars(config))
      ? createTelegramPayments({
          token: config.BOT_TOKEN,
          apiRoot: config.TELEGRAM_API_ROOT ?? TELEGRAM_API,
          timeoutMs: config.UPSTREAM_TIMEOUT_MS,
          onCall: metrics.providerCall,
        })
      : null;
  if (starPayments) lifecycle.add({ name: "star payments", close: starPayments.close });
  // Webhooks to this machine only when asked for (the chat and the tests ask): else any key could probe local ports.
  const allowLoopback = config.WEBHOOK_ALLOW_LOOPBACK === "true";
  const webhookSender = createWebhookSender({ allowLoopback, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  lifecycle.add({ name: "webhook sender", abort: webhookSender.destroy, close: webhookSender.close });
  return {
    providers: upstream.providers,
    formerBackends: upstream.formerBackends,
    linkDeliveries: upstream.linkDeliveries,
    stranded: upstream.stranded,
    legacyOrders: open.filter((group) => group.backend === null).map((group) => ({ ids: group.ids, backend: configured[group.productType] })),
    cryptoPay,
    starPayments,
    allowLoopback,
    webhookSender,
  };
}

type Storage = Awaited<ReturnType<typeof addDatabase>>;
type Upstream = Awaited<ReturnType<typeof addUpstream>>;

/** The core over them, its settings read from the config; the purchases under way are a resource of their own. */
function addCore(lifecycle: Lifecycle, config: Config, on: Storage & Upstream & { log: pino.Logger; metrics: Metrics }): Core {
  const { db, metrics } = on;
  const core = createCore({
    db,
    clock: on.clock,
    providers: on.providers,
    tariffs: {
      usdtPerStarMicro: config.STAR_PRICE_MICRO,
      premiumMicro: { 3: config.PREMIUM_PRICE_MICRO[3], 6: config.PREMIUM_PRICE_MICRO[6], 12: config.PREMIUM_PRICE_MICRO[12] },
      uzsPerUsd: config.UZS_PER_USD,
      tonCacheMs: config.TON_RATE_CACHE_SECONDS * 1000,
    },
    markups: config.MARKUP_BASIS_POINTS,
    storeEnabled: config.STORE_ENABLED,
    vault: createVault(codesKey(config.CODES_KEY, config.DATABASE_URL)),
    reconcileAfterMs: config.RECONCILE_AFTER_MS,
    reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
    quoteTtlMs: config.QUOTE_TTL_SECONDS * 1000,
    quotesOpenMax: config.QUOTES_OPEN_MAX,
    healthProbeMs: config.HEALTH_PROBE_MS,
    catalogueCacheMs: config.CATALOGUE_CACHE_SECONDS * 1000,
    cryptoPay: on.cryptoPay,
    starsTopups:
      on.starPayments && config.STARS_TOPUP_RATE_MICRO !== null
        ? {
            port: on.starPayments,
            rateMicro: config.STARS_TOPUP_RATE_MICRO,
            packs: config.STARS_TOPUP_PACKS,
            dailyMaxMicro: config.STARS_TOPUP_DAILY_MAX_MICRO,
          }
        : null,
    starBook: on.starPayments,
    topupLimits: topupLimits(config),
    adminConfirmAboveMicro: config.ADMIN_CONFIRM_ABOVE_MICRO,
    backends: orderBackends(config),
    formerBackends: on.formerBackends,
    contacts: {
      recording: config.GIFTS_BACKEND === "telegram" || config.PREMIUM_BACKEND === "telegram",
      admins: config.ADMIN_TELEGRAM_IDS,
      adminsReceive: config.GIFTS_TO_ADMINS,
    },
    premiumByBot: config.PREMIUM_BACKEND === "telegram",
    giftTextsFromKeys: config.GIFT_TEXTS_FROM_KEYS,
    log: on.log,
    counterDb: on.counterDb,
    oneStatement: oneStatementWrites(db),
    rateLimitWindowMs: RATE_LIMIT_WINDOW_SECONDS * 1000,
    lowBalanceMicro: config.LOW_BALANCE_MICRO,
    webhooks: {
      sender: on.webhookSender,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      pendingMax: config.WEBHOOK_PENDING_MAX,
      policy: { allowLoopback: on.allowLoopback, secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000 },
      // What each event says (order events carry the order's status-endpoint body, never gift card codes).
      events: webhookEvents,
    },
  });
  core.orders.onSettled((order) => metrics.orderFinished(order));
  core.topups.onEvent((event, topup) => metrics.topup(event, topup));
  // Purchases whose provider call is under way here hold their orders; cut short, they are made due again.
  lifecycle.add({
    name: "purchases",
    underWay: () => ({ providerCalls: core.pipelineCalls() }),
    handBack: async () => ({ orders: await core.releaseCalls() }),
  });
  return core;
}

/** Whether the bot pays deliveries from its own Stars (a Telegram backend for gifts or Premium). */
const booksStars = (config: Config) => config.GIFTS_BACKEND === "telegram" || config.PREMIUM_BACKEND === "telegram";

/** The balances backends pay deliveries from, each with the line the monitor alerts under. */
function fundsWatched(config: Config, providers: Providers): NonNullable<MonitorOptions["funds"]> {
  // One Star balance, whichever of gifts and Premium the bot delivers.
  const stars =
    config.GIFTS_BACKEND === "telegram" ? providers.gifts.funds : config.PREMIUM_BACKEND === "telegram" ? providers.gateway.funds : undefined;
  const reloadly = config.GIFTCARDS_BACKEND === "reloadly" ? providers.giftcards.funds : undefined;
  return [
    ...(stars ? [{ source: "stars" as const, threshold: config.ALERT_STARS_BELOW, read: stars }] : []),
    ...(reloadly ? [{ source: "reloadly" as const, threshold: config.ALERT_RELOADLY_BELOW_USD, read: reloadly }] : []),
  ];
}

/** The backend each product type sends new orders to, as its orders record it. */
function orderBackends(config: Config) {
  return {
    stars: "protocol",
    store: "protocol",
    game: "protocol",
    premium: config.PREMIUM_BACKEND,
    gift: config.GIFTS_BACKEND,
    giftcard: config.GIFTCARDS_BACKEND,
  } as const;
}

/** What each product is delivered by, as configured. */
function backendsOf(config: Config): Backends {
  return { premium: config.PREMIUM_BACKEND, gifts: config.GIFTS_BACKEND, giftcards: config.GIFTCARDS_BACKEND };
}

/** `/v1/health`'s `delivery_provider` (what delivers stars and Premium) and each product's backend. */
function deliveryOf(config: Config): Delivery {
  const { premium, gifts, giftcards } = backendsOf(config);
  const gateway = config.UPSTREAM === "simulator" ? "simulator" : "gateway";
  return {
    provider: premium === "telegram" ? `${gateway}+telegram` : gateway,
    publicProvider: gateway,
    backends: { ...PROTOCOL_DELIVERY.backends, premium, gifts, giftcards },
  };
}

function topupLimits(config: Config) {
  return {
    minMicro: config.TOPUP_MIN_MICRO,
    maxMicro: config.TOPUP_MAX_MICRO,
    invoiceTtlSeconds: config.TOPUP_INVOICE_MINUTES * 60,
    openInvoicesMax: config.TOPUP_OPEN_INVOICES_MAX,
    pendingTransfersMax: config.TOPUP_PENDING_TRANSFERS_MAX,
    dailyMax: config.TOPUP_DAILY_MAX,
    transfers: config.TOPUP_TRANSFERS,
    pollMs: config.TOPUP_POLL_MS,
    // An invoice still `creating` after the provider call's own bound (and a margin) was cut short.
    creatingStaleMs: config.UPSTREAM_TIMEOUT_MS + 10_000,
  };
}

/**
 * The background jobs over the core (src/jobs), built but not started. A job has one name, its file's, in code,
 * logs and the lifecycle; each run is logged under an id made of it (reconciler-<n>, webhook-dispatch-<event id>,
 * monitor-<n>, purges-quotes-<n>, …).
 */
function openJobs(
  config: Config,
  on: {
    core: Core;
    db: Db;
    counterDb: Db | undefined;
    clock: Clock;
    log: pino.Logger;
    cryptoPay: CryptoPayPort | null;
    faults: FaultLog;
    funds: MonitorOptions["funds"];
    linkDeliveries: (() => Promise<number>) | undefined;
  },
) {
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
      linkDeliveries: on.linkDeliveries,
    }),
    webhookDispatch: createWebhookDispatch({ db, clock, send: core.webhooks.send, settings: dispatchSettings(config), log, scope }),
    healthProbe: createHealthProbe({ db, clock, health: core.health, intervalMs: config.HEALTH_PROBE_MS, log, scope }),
    monitor: createMonitor({
      db,
      clock,
      health: core.health.current,
      settings: monitorSettings(config),
      cryptoPay: on.cryptoPay,
      funds: on.funds,
      faults: on.faults,
      starBook: core.starBook.active(),
      log,
      scope,
    }),
    purges: createPurges({
      db,
      clock,
      requestCounts: on.counterDb ? { db: on.counterDb, windowMs: RATE_LIMIT_WINDOW_SECONDS * 1000 } : undefined,
      webhookRetentionMs: config.WEBHOOK_RETENTION_DAYS * 86_400_000,
      contactsRetentionMs: config.CONTACTS_RETENTION_DAYS * 86_400_000,
      botSessions: config.BOT_TOKEN ? botStateStore(db, clock) : undefined,
      botInbox: config.BOT_TOKEN ? botInbox(db) : undefined,
      log,
      scope,
    }),
  };
  // An outbox commit wakes the dispatch at once.
  core.webhooks.outbox.onCommitted(jobs.webhookDispatch.wake);
  // Open invoices are asked about on a schedule, so a payment whose webhook was missed is still credited.
  const topupPoll = on.cryptoPay
    ? createTopupPoll({
        db,
        clock,
        topups: core.topups,
        cryptoPay: on.cryptoPay,
        intervalMs: config.TOPUP_POLL_MS,
        leaseMs: config.UPSTREAM_TIMEOUT_MS + 5_000,
        log,
        scope,
      })
    : null;
  // The bot's Star transactions are read on a schedule, so a Stars payment whose update was lost is still credited.
  const starsSettle = core.topups.methods().stars ? createStarsSettle({ topups: core.topups, intervalMs: config.TOPUP_POLL_MS, log, scope }) : null;
  // The bot's Star book against Telegram's transactions and balance (a difference is the monitor's `starbook` alert).
  const starBook = core.starBook.active()
    ? createStarBookCheck({ starBook: core.starBook, intervalMs: config.STARS_BOOK_CHECK_MINUTES * 60_000, log, scope })
    : null;
  return { ...jobs, ...(topupPoll ? { topupPoll } : {}), ...(starsSettle ? { starsSettle } : {}), ...(starBook ? { starBook } : {}) };
}

function dispatchSettings(config: Config) {
  return {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
    retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    pollMs: config.WEBHOOK_POLL_MS,
  };
}

function monitorSettings(config: Config) {
  return {
    intervalMs: config.ALERT_CHECK_INTERVAL_MS,
    refundWindowMs: config.ALERT_REFUND_WINDOW_MINUTES * 60_000,
    refundThreshold: config.ALERT_REFUNDS,
    walletBelowMicro: config.ALERT_WALLET_BELOW_MICRO,
    ledgerEveryMs: config.ALERT_LEDGER_CHECK_SECONDS * 1000,
    repeatMs: config.ALERT_REPEAT_HOURS * 3_600_000,
    maxPerHour: config.ALERT_MAX_PER_HOUR,
    unpaidInvoices: config.ALERT_UNPAID_INVOICES,
  };
}

type Jobs = ReturnType<typeof openJobs>;

/** Opens the whole service: the core, then its jobs, the bot and the API, built but not started (see `start`). */
export async function openService(config: Config, options: RootOptions = {}): Promise<Service> {
  const opened = await openCore(config, options);
  return closedOnFailure(opened.lifecycle, config, () => buildService(config, opened));
}

type Opened = Awaited<ReturnType<typeof openCore>>;
/** Whether `start` opens the listeners: false when the caller listens itself (`start({ listen: false })`). */
type Listening = { on: boolean };

/** The service's build over the core, in order: what runs beside it, then the steps in the order they start. */
async function buildService(config: Config, opened: Opened): Promise<Service> {
  const { service, lifecycle, clock, counterDb, cryptoPay, faults, funds, linkDeliveries } = opened;
  const { core, db, log } = service;
  // The admin CLI still opens over them (it reads and resolves); the service would ask the wrong backend.
  if (opened.stranded) throw new Error(opened.stranded);
  // Not the CLI's to do: its settings need not be the service's.
  const legacy = await stampBackends(db, opened.legacyOrders);
  if (legacy.length) log.warn({ orders: legacy }, "orders placed before backends were recorded are settled by the backends configured now");
  addCheckpointer(lifecycle, opened);
  const jobs = openJobs(config, { core, db, counterDb, clock, log, cryptoPay, faults, funds, linkDeliveries });
  // The jobs are the first steps: started before the API takes requests, stopped after it.
  for (const job of Object.values(jobs)) lifecycle.add(job);
  const bot = openBot(config, opened);
  if (bot) {
    // Administrators hear of alerts, and an endpoint's owner of its disabling, through the bot.
    jobs.monitor.onAlert(bot.notifier.alert);
    jobs.webhookDispatch.onDisabled(bot.notifier.webhookDisabled);
  }
  const listening: Listening = { on: true };
  const api = await addApi(lifecycle, config, opened, bot, listening);
  const startMetrics = addMetricsListener(lifecycle, config, service, listening);
  addBot(lifecycle, config, log, bot);

  return {
    ...service,
    jobs,
    api: api.app,
    bot,
    async start(options = {}) {
      listening.on = options.listen ?? true;
      await lifecycle.start(config.SHUTDOWN_GRACE_MS);
    },
    addStep: (step) => void lifecycle.add(step),
    get url() {
      return api.url();
    },
    startMetrics,
  };
}

/** SQLite's checkpoints off the event loop, for the long-running service (a CLI command's few writes need none). */
function addCheckpointer(lifecycle: Lifecycle, { service: { db, log } }: Opened): void {
  const checkpointer = checkpointInBackground(db, (message) =>
    log.warn({ error: message }, "SQLite background checkpoint failed: the main connection checkpoints itself once the WAL grows large"),
  );
  if (checkpointer) lifecycle.add({ name: "sqlite checkpoints", close: checkpointer.close });
}

/** The bot over the core, built but not started; null without BOT_TOKEN. */
function openBot(config: Config, { service: { core, db, log, metrics }, clock }: Opened): PurchaseBot | null {
  if (!config.BOT_TOKEN) return null;
  return createBot({
    core,
    storage: botStateStore(db, clock),
    token: config.BOT_TOKEN,
    apiRoot: config.TELEGRAM_API_ROOT,
    admins: config.ADMIN_TELEGRAM_IDS,
    support: config.SUPPORT_CONTACT ?? null,
    paymentHelp: { support: config.PAYMENT_SUPPORT_TEXT ?? null, terms: config.PAYMENT_TERMS_TEXT ?? null },
    miniAppUrl: config.MINIAPP_URL ?? null,
    log,
    observeUpdate: metrics.botUpdate,
    pollOnOneInstance: (role) => holdRole(db, "telegram-polling", role, log),
    // Polled or posted, every update is stored first and handled from here, on any instance.
    inbox: botInbox(db),
    inboxLeaseMs: config.BOT_INBOX_LEASE_MS,
  });
}

/** Where Telegram posts the bot's updates, when the bot takes them by webhook (else it polls). */
function botWebhook(config: Config, bot: PurchaseBot | null) {
  const webhookMode = Boolean(config.BOT_WEBHOOK_URL && config.BOT_WEBHOOK_SECRET);
  return bot && webhookMode ? { url: config.BOT_WEBHOOK_URL!, secretToken: config.BOT_WEBHOOK_SECRET! } : null;
}

/** The API (with the Mini App's routes and Telegram's webhook when there is a bot) and its listener as a step. */
async function addApi(lifecycle: Lifecycle, config: Config, opened: Opened, bot: PurchaseBot | null, listening: Listening) {
  const { core, log, metrics } = opened.service;
  const webhook = botWebhook(config, bot);
  let stopping = false;
  const api = await buildApi({
    core,
    stopping: () => stopping,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    delivery: deliveryOf(config),
    logger: log,
    onAnswered: metrics.request,
    checkAnswers: config.RESPONSE_CHECK,
    ...(config.TRUST_PROXY === undefined ? {} : { trustProxy: config.TRUST_PROXY }),
    ...(bot ? { miniApp: miniAppOptions(config, bot, opened.clock) } : {}),
    ...(bot && webhook ? { telegramWebhook: bot.webhookHandler(webhook.secretToken) } : {}),
  });
  const requests = trackRequests(api.server);
  let url: string | null = null;
  // The listener closes; a request arriving on a kept-alive connection is answered 503 with Connection: close.
  lifecycle.add({
    name: "api",
    start: async () => {
      if (listening.on) url = await api.listen({ host: config.HOST, port: config.PORT });
    },
    stop: () => {
      stopping = true;
      requests.closing();
      return api.close();
    },
    underWay: () => ({ requests: requests.underWay() }),
  });
  return { app: api, url: () => url };
}

/** The Mini App's sessions and words: signed in by the bot's token, refused in the bot's words. */
function miniAppOptions(config: Config, bot: PurchaseBot, clock: Clock): MiniAppOptions {
  return {
    sessions: createMiniAppSessions({
      botToken: config.BOT_TOKEN!,
      initDataMaxAgeSeconds: config.MINIAPP_INIT_DATA_MAX_AGE_SECONDS,
      sessionTtlMs: config.MINIAPP_SESSION_MINUTES * 60_000,
      clock,
    }),
    support: config.SUPPORT_CONTACT ?? null,
    admins: config.ADMIN_TELEGRAM_IDS,
    // The Mini App's refusals in the bot's words.
    refusal: (language, refusal) => refusalText((key, vars) => bot.i18n.t(language ?? "en", key, vars), refusal),
  };
}

/**
 * The metrics on their own port (METRICS_PORT) as a step; closed before the pools, so they stay scrapable until
 * the end of the stop. Returns the service's `startMetrics`.
 */
function addMetricsListener(lifecycle: Lifecycle, config: Config, { metrics, log }: CoreService, listening: Listening) {
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | null = null;
  const startMetrics = async () => {
    if (config.METRICS_PORT === null) return null;
    const served = (metricsServer ??= await serveMetrics(metrics, {
      host: config.METRICS_HOST,
      port: config.METRICS_PORT,
      token: config.METRICS_TOKEN,
      log,
    }));
    return served?.url ?? null;
  };
  lifecycle.add({
    name: "metrics listener",
    start: async () => {
      if (listening.on) await startMetrics();
    },
    close: async () => metricsServer?.close(),
  });
  return startMetrics;
}

/**
 * The bot as the last step: started once the API listens (Telegram posts to it in webhook mode). Polling is given
 * up at once (another instance takes it), then the updates under way finish; those not started stay in the inbox
 * for another instance. Cut ones keep their lease until it lapses (see the decision record
 * docs/decisions/bot-inbox.md: handing them back could run them twice).
 */
function addBot(lifecycle: Lifecycle, config: Config, log: pino.Logger, bot: PurchaseBot | null): void {
  if (!bot) {
    lifecycle.add({
      name: "bot",
      start: () => log.info({}, "bot disabled: set BOT_TOKEN (and TELEGRAM_API_ROOT for the local emulator) to enable it"),
    });
    return;
  }
  const webhook = botWebhook(config, bot);
  lifecycle.add({
    name: "bot",
    start: () => (webhook ? bot.startWebhook(webhook.url, webhook.secretToken) : bot.startPolling()),
    stop: async () => {
      await bot.stopPolling().catch((error: unknown) => log.warn({ err: error }, "could not give up polling cleanly"));
      await bot.drain();
    },
    underWay: () => ({ botUpdates: bot.underWay() }),
    close: async () => bot.close(),
  });
}
