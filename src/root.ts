import type { FastifyInstance } from "fastify";
import type pino from "pino";
import { RATE_LIMIT_WINDOW_SECONDS } from "./api/rate-window.js";
import type { PurchaseBot } from "./bot/bot.js";
import type { BotSettings, Config } from "./config.js";
import { createCore, type Core } from "./core/index.js";
import type { Clock } from "./core/model/clock.js";
import { createVault } from "./core/vault.js";
import { PRODUCTS, type ProductType } from "./core/model/products.js";
import { databaseClock } from "./db/clock.js";
import { codesKey } from "./core/codes-key.js";
import { checkpointInBackground, databaseWhere, type Db, openCounterDatabase, openDatabase, withoutStatementBound } from "./db/database.js";
import { createFaultLog } from "./db/faults.js";
import { migrateToLatest } from "./db/migrate.js";
import { oneStatementWrites } from "./db/placement.js";
import { readBacklog } from "./jobs/monitor.js";
import type { Jobs } from "./jobs/index.js";
import { createLifecycle, type Lifecycle, type Resource, type StopReport } from "./lifecycle.js";
import { createLog } from "./observability/log.js";
import { createMetrics, type Metrics, serveMetrics } from "./observability/metrics.js";
import { openUpstream } from "./upstream/products.js";
import type { UpstreamCall } from "./upstream/http.js";
import type { MiniAppOptions } from "./api/miniapp/options.js";
import { createCryptoPay } from "./upstream/crypto-pay.js";
import { createTelegramPayments } from "./upstream/telegram-payments.js";
import { createWebhookSender } from "./upstream/webhook-sender.js";
import { webhookEvents } from "./wire/events.js";
import type { Delivery } from "./wire/account.js";
import { claimedTransactions, deliveriesToLink, linkTransaction, openOrdersByBackend, stampBackends, unlinkedDeliveries } from "./db/orders.js";
import { contactByUsername, correctContactUsername } from "./db/telegram-contacts.js";

// The faces (the API, the bot) and the jobs are imported where the service is built, not here: the admin CLI
// opens the core alone, and loading them would cost each of its commands most of a second.

/** The rate limit's window (src/api/plugins/rate-limit.ts), as the core and the purges count it. */
const RATE_LIMIT_WINDOW_MS = RATE_LIMIT_WINDOW_SECONDS * 1000;

export interface RootOptions {
  clock?: Clock;
  /** Where log lines go (stdout by default); tests capture them to prove no secret is logged. */
  logDestination?: pino.DestinationStream;
  /** Told of every product backend's call besides the metrics: preflight names what each of its checks saw. */
  onProviderCall?: (call: UpstreamCall) => void;
  /** Fields the process adds to the start's log line (the embedded simulator's address). */
  startFields?: Record<string, string>;
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
  const log = createLog(config.logLevel, options.logDestination);
  const lifecycle = createLifecycle(log);
  return closedOnFailure(lifecycle, config, () => buildCore(config, options, log, lifecycle));
}

/** What `build` built is closed (the stack stopped) when it throws. */
async function closedOnFailure<T>(lifecycle: Lifecycle, config: Config, build: () => Promise<T>): Promise<T> {
  try {
    return await build();
  } catch (error) {
    await lifecycle.stop(config.server.shutdownGraceMs);
    throw error;
  }
}

/** The core's build, in order; each step adds what it built to the lifecycle. */
async function buildCore(config: Config, options: RootOptions, log: pino.Logger, lifecycle: Lifecycle) {
  // The backlog is read from the database when scraped; every instance reports its own counts.
  const metrics = createMetrics(() => readBacklog(storage.db, storage.clock));
  const storage = await addDatabase(lifecycle, config.database, options, log, metrics);
  const upstream = await addUpstream(lifecycle, config, log, metrics, storage, options.onProviderCall);
  const core = addCore(lifecycle, config, { ...storage, ...upstream, log, metrics });

  const service: CoreService = {
    config,
    log,
    db: storage.db,
    core,
    metrics,
    stop: (stop = {}) => lifecycle.stop(stop.graceMs ?? config.server.shutdownGraceMs, stop.signal),
    close: async () => void (await lifecycle.stop(config.server.shutdownGraceMs)),
  };
  const { clock, counterDb, faults, migrations } = storage;
  return {
    service,
    migrations,
    lifecycle,
    clock,
    counterDb,
    cryptoPay: upstream.cryptoPay,
    faults,
    ports: upstream.ports,
    linkDeliveries: upstream.linkDeliveries,
    stranded: upstream.stranded,
    legacyOrders: upstream.legacyOrders,
    funds: upstream.funds,
  };
}

/** The database and the request counters' pool, the database's clock, and the schema migrated to the latest. */
async function addDatabase(lifecycle: Lifecycle, config: Config["database"], options: RootOptions, log: pino.Logger, metrics: Metrics) {
  // Faults the database met (it hung, filled up, went away), for the monitor to tell the administrators.
  const faults = createFaultLog();
  const bounds = { timeoutMs: config.timeoutMs, onFault: faults.record };
  const db = openDatabase(config.url, { poolMax: config.poolMax, onDiskFlush: metrics.diskFlush, ...bounds });
  const counterDb = openCounterDatabase(config.url, bounds);
  lifecycle.add({ name: "database", close: async () => Promise.all([counterDb?.destroy(), db.destroy()]) });
  // Every decision comparing a stored time with now uses the database's clock, read before anything is decided.
  const databaseTime = options.clock ? null : await openDatabaseClock(db, log);
  const clock: Clock = options.clock ?? databaseTime!;
  if (databaseTime) lifecycle.add({ name: "database clock", close: databaseTime.close });
  // A migration may rewrite a large table: its statements take as long as they take.
  const migrations = await withoutStatementBound(() => migrateToLatest(db));
  return { db, counterDb, clock, faults, migrations };
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

/** What the service calls out to: one port per product, Crypto Pay (when set), the bot's Stars and the webhook sender. */
async function addUpstream(
  lifecycle: Lifecycle,
  config: Config,
  log: pino.Logger,
  metrics: Metrics,
  { db, clock }: { db: Db; clock: Clock },
  onProviderCall?: (call: UpstreamCall) => void,
) {
  // Orders still open: those a backend no longer configured took are settled there; those from before orders
  // recorded their backend (null) are stamped by the service's start.
  const open = await openOrdersByBackend(db);
  const configured = orderBackends(config.products);
  const upstream = openUpstream({
    products: config.products,
    rates: config.rates.backend,
    retired: config.retired,
    formerOrders: open.filter((group) => group.backend !== null && group.backend !== configured[group.productType]),
    telegram: {
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
    timeoutMs: config.upstream.timeoutMs,
    log,
    onCall: (call) => {
      metrics.providerCall(call);
      onProviderCall?.(call);
    },
  });
  lifecycle.add({ name: "providers", abort: upstream.abort, close: upstream.close });
  const { timeoutMs } = config.upstream;
  // Crypto Pay, where top-ups by invoice are offered (its URL and token both set).
  const cryptoPay = config.topups.cryptoPay
    ? createCryptoPay({ baseUrl: config.topups.cryptoPay.url, token: config.topups.cryptoPay.token, timeoutMs, log })
    : null;
  if (cryptoPay) lifecycle.add({ name: "crypto pay", close: cryptoPay.close });
  // The bot's Stars as money in (invoice links, refunds) and its Star book (transactions, balance).
  const starPayments = config.starBook ? createTelegramPayments({ ...config.starBook.bot, timeoutMs, onCall: metrics.providerCall }) : null;
  if (starPayments) lifecycle.add({ name: "star payments", close: starPayments.close });
  // Webhooks to this machine only when asked for (the chat and the tests ask): else any key could probe local ports.
  const webhookSender = createWebhookSender({ allowLoopback: config.webhooks.allowLoopback, timeoutMs: config.webhooks.timeoutMs });
  lifecycle.add({ name: "webhook sender", abort: webhookSender.destroy, close: webhookSender.close });
  return {
    ...upstream,
    legacyOrders: open.filter((group) => group.backend === null).map((group) => ({ ids: group.ids, backend: configured[group.productType] })),
    cryptoPay,
    starPayments,
    webhookSender,
  };
}

type Storage = Awaited<ReturnType<typeof addDatabase>>;
type Upstream = Awaited<ReturnType<typeof addUpstream>>;

/** The core over them, its settings read from the config; the purchases under way are a resource of their own. */
function addCore(lifecycle: Lifecycle, config: Config, on: Storage & Upstream & { log: pino.Logger; metrics: Metrics }): Core {
  const { db, metrics } = on;
  const { sales, products } = config;
  const core = createCore({
    db,
    clock: on.clock,
    ports: on.ports,
    tariffs: { ...sales.tariffs, uzsPerUsd: config.rates.uzsPerUsd, tonCacheMs: config.rates.tonCacheMs },
    markups: sales.markups,
    storeEnabled: sales.storeEnabled,
    vault: createVault(codesKey(config.database.codesKey ?? undefined, config.database.url)),
    reconcileAfterMs: sales.reconcile.afterMs,
    reconcileIntervalMs: sales.reconcile.intervalMs,
    quoteTtlMs: sales.quotes.ttlMs,
    quotesOpenMax: sales.quotes.openMax,
    healthProbeMs: config.upstream.healthProbeMs,
    catalogueCacheMs: config.upstream.catalogueCacheMs,
    cryptoPay: on.cryptoPay,
    starsTopups: on.starPayments && config.topups.stars ? { port: on.starPayments, ...config.topups.stars } : null,
    starBook: on.starPayments,
    topupLimits: config.topups.limits,
    adminConfirmAboveMicro: config.admin.confirmAboveMicro,
    backends: orderBackends(products),
    formerBackends: on.formerBackends,
    contacts: {
      recording: products.gifts.kind === "telegram" || products.premium.kind === "telegram",
      admins: config.bot?.admins ?? [],
      adminsReceive: sales.recipients.adminsReceive,
    },
    premiumByBot: products.premium.kind === "telegram",
    giftTextsFromKeys: sales.giftTextsFromKeys,
    log: on.log,
    counterDb: on.counterDb,
    oneStatement: oneStatementWrites(db),
    rateLimitWindowMs: RATE_LIMIT_WINDOW_MS,
    lowBalanceMicro: sales.lowBalanceMicro,
    webhooks: {
      sender: on.webhookSender,
      timeoutMs: config.webhooks.timeoutMs,
      pendingMax: config.webhooks.pendingMax,
      policy: { allowLoopback: config.webhooks.allowLoopback, secretOverlapMs: config.webhooks.secretOverlapMs },
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

/** The backend each product type sends new orders to, as its orders record it. */
function orderBackends(products: Config["products"]): Record<ProductType, string> {
  return Object.fromEntries(PRODUCTS.map((product) => [product.type, products[product.port].kind])) as Record<ProductType, string>;
}

/** `/v1/health`'s `delivery_provider` (what delivers stars and Premium) and each product's backend. */
function deliveryOf(config: Config): Delivery {
  const backends = Object.fromEntries(Object.entries(config.products).map(([product, backend]) => [product, backend.kind])) as Delivery["backends"];
  const gateway = config.upstream.source === "simulator" ? "simulator" : "gateway";
  return { provider: backends.premium === "telegram" ? `${gateway}+telegram` : gateway, publicProvider: gateway, backends };
}

/** Opens the whole service: the core, then its jobs, the bot and the API, built but not started (see `start`). */
export async function openService(config: Config, options: RootOptions = {}): Promise<Service> {
  const opened = await openCore(config, options);
  return closedOnFailure(opened.lifecycle, config, () => buildService(config, opened, options.startFields ?? {}));
}

type Opened = Awaited<ReturnType<typeof openCore>>;
/** Whether `start` opens the listeners: false when the caller listens itself (`start({ listen: false })`). */
type Listening = { on: boolean };

/** The service's build over the core, in order: what runs beside it, then the steps in the order they start. */
async function buildService(config: Config, opened: Opened, startFields: Record<string, string>): Promise<Service> {
  const { service, lifecycle, clock, counterDb, cryptoPay, faults, funds, linkDeliveries } = opened;
  const { core, db, log } = service;
  // The admin CLI still opens over them (it reads and resolves); the service would ask the wrong backend.
  if (opened.stranded) throw new Error(opened.stranded);
  // Not the CLI's to do: its settings need not be the service's.
  const legacy = await stampBackends(db, opened.legacyOrders);
  if (legacy.length) log.warn({ orders: legacy }, "orders placed before backends were recorded are settled by the backends configured now");
  addCheckpointer(lifecycle, opened);
  const { openJobs } = await import("./jobs/index.js");
  const jobs = openJobs(config, {
    core,
    db,
    counterDb,
    rateLimitWindowMs: RATE_LIMIT_WINDOW_MS,
    clock,
    log,
    cryptoPay,
    faults,
    funds,
    linkDeliveries,
  });
  // The jobs are the first steps: started before the API takes requests, stopped after it.
  for (const job of Object.values(jobs)) lifecycle.add(job);
  const bot = config.bot ? await openBot(config.bot, opened) : null;
  if (bot) {
    // Administrators hear of alerts, and an endpoint's owner of its disabling, through the bot.
    jobs.monitor.onAlert(bot.notifier.alert);
    jobs.webhookDispatch.onDisabled(bot.notifier.webhookDisabled);
  }
  const listening: Listening = { on: true };
  const api = await addApi(lifecycle, config, opened, bot, listening);
  const metricsListener = addMetricsListener(lifecycle, config.metrics, service, listening);
  addBot(lifecycle, config.bot?.updates ?? null, log, bot);

  return {
    ...service,
    jobs,
    api: api.app,
    bot,
    async start(options = {}) {
      listening.on = options.listen ?? true;
      await lifecycle.start(config.server.shutdownGraceMs);
      // One line an operator reads to know what started, where, on which database, with which schema change.
      if (listening.on)
        log.info(
          {
            api: api.url(),
            metrics: metricsListener.state(),
            database: databaseWhere(config.database.url),
            migrations: opened.migrations.length ? opened.migrations : "schema up to date",
            ...startFields,
          },
          "started",
        );
    },
    addStep: (step) => void lifecycle.add(step),
    get url() {
      return api.url();
    },
    startMetrics: metricsListener.startMetrics,
  };
}

/** SQLite's checkpoints off the event loop, for the long-running service (a CLI command's few writes need none). */
function addCheckpointer(lifecycle: Lifecycle, { service: { db, log } }: Opened): void {
  const checkpointer = checkpointInBackground(db, (message) =>
    log.warn({ error: message }, "SQLite background checkpoint failed: the main connection checkpoints itself once the WAL grows large"),
  );
  if (checkpointer) lifecycle.add({ name: "sqlite checkpoints", close: checkpointer.close });
}

/** The bot over the core, built but not started. */
async function openBot(config: BotSettings, { service: { core, db, log, metrics }, clock }: Opened): Promise<PurchaseBot> {
  const [{ createBot }, { botStateStore }, { botInbox }, { holdRole }] = await Promise.all([
    import("./bot/bot.js"),
    import("./db/bot-state.js"),
    import("./db/bot-inbox.js"),
    import("./jobs/role.js"),
  ]);
  return createBot({
    core,
    storage: botStateStore(db, clock),
    token: config.api.token,
    apiRoot: config.api.apiRoot,
    admins: config.admins,
    support: config.support,
    paymentHelp: config.paymentHelp,
    miniAppUrl: config.miniApp.url,
    webhookUrl: config.updates.kind === "webhook" ? config.updates.url : null,
    log,
    observeUpdate: metrics.botUpdate,
    pollOnOneInstance: (role) => holdRole(db, "telegram-polling", role, log),
    // Polled or posted, every update is stored first and handled from here, on any instance.
    inbox: botInbox(db),
    inboxLeaseMs: config.inboxLeaseMs,
  });
}

/** The API (with the Mini App's routes and Telegram's webhook when there is a bot) and its listener as a step. */
async function addApi(lifecycle: Lifecycle, config: Config, opened: Opened, bot: PurchaseBot | null, listening: Listening) {
  const { core, log, metrics } = opened.service;
  const { server } = config;
  const updates = config.bot?.updates;
  let stopping = false;
  const [{ buildApi }, { trackRequests }] = await Promise.all([import("./api/app.js"), import("./api/drain.js")]);
  const api = await buildApi({
    core,
    stopping: () => stopping,
    rateLimitPerMinute: server.rateLimitPerMinute,
    bodyLimitBytes: server.bodyLimitBytes,
    delivery: deliveryOf(config),
    logger: log,
    onAnswered: metrics.request,
    checkAnswers: server.checkAnswers,
    ...(server.trustProxy === null ? {} : { trustProxy: server.trustProxy }),
    ...(bot && config.bot ? { miniApp: await miniAppOptions(config.bot, bot, opened.clock) } : {}),
    ...(bot && updates?.kind === "webhook" ? { telegramWebhook: bot.webhookHandler(updates.secret) } : {}),
  });
  const requests = trackRequests(api.server);
  let url: string | null = null;
  // The listener closes; a request arriving on a kept-alive connection is answered 503 with Connection: close.
  lifecycle.add({
    name: "api",
    start: async () => {
      if (listening.on) url = await api.listen({ host: server.host, port: server.port });
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
async function miniAppOptions(config: BotSettings, bot: PurchaseBot, clock: Clock): Promise<MiniAppOptions> {
  const [{ createMiniAppSessions }, { refusalText }] = await Promise.all([import("./api/miniapp/session.js"), import("./bot/refusals.js")]);
  return {
    sessions: createMiniAppSessions({
      botToken: config.api.token,
      initDataMaxAgeMs: config.miniApp.initDataMaxAgeMs,
      sessionTtlMs: config.miniApp.sessionMs,
      clock,
    }),
    support: config.support,
    admins: config.admins,
    // The Mini App's refusals in the bot's words.
    refusal: (language, refusal) => refusalText((key, vars) => bot.i18n.t(language ?? "en", key, vars), refusal),
  };
}

/**
 * The metrics on their own port (METRICS_PORT) as a step; closed before the pools, so they stay scrapable until
 * the end of the stop. Returns the service's `startMetrics`, and what the start's line says of the metrics.
 */
function addMetricsListener(lifecycle: Lifecycle, config: Config["metrics"], { metrics, log }: CoreService, listening: Listening) {
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | null = null;
  let tried = false;
  const startMetrics = async () => {
    if (config.port === null) return null;
    tried = true;
    const served = (metricsServer ??= await serveMetrics(metrics, { host: config.host, port: config.port, token: config.token ?? undefined, log }));
    return served?.url ?? null;
  };
  lifecycle.add({
    name: "metrics listener",
    start: async () => {
      if (listening.on) await startMetrics();
    },
    close: async () => metricsServer?.close(),
  });
  const state = () =>
    config.port === null ? "off" : (metricsServer?.url ?? (tried ? `not served: port ${config.port} is not available` : "not started"));
  return { startMetrics, state };
}

/**
 * The bot as the last step: started once the API listens (Telegram posts to it in webhook mode). Polling is given
 * up at once (another instance takes it), then the updates under way finish; those not started stay in the inbox
 * for another instance. Cut ones keep their lease until it lapses (see the decision record
 * docs/decisions/0023-bot-inbox.md: handing them back could run them twice).
 */
function addBot(lifecycle: Lifecycle, updates: BotSettings["updates"] | null, log: pino.Logger, bot: PurchaseBot | null): void {
  if (!bot) {
    lifecycle.add({
      name: "bot",
      start: () => log.info({}, "bot disabled: set BOT_TOKEN (and TELEGRAM_API_ROOT for the local emulator) to enable it"),
    });
    return;
  }
  lifecycle.add({
    name: "bot",
    start: () => (updates?.kind === "webhook" ? bot.startWebhook(updates.url, updates.secret) : bot.startPolling()),
    stop: async () => {
      await bot.stopPolling().catch((error: unknown) => log.warn({ err: error }, "could not give up polling cleanly"));
      await bot.drain();
    },
    underWay: () => ({ botUpdates: bot.underWay() }),
    close: async () => bot.close(),
  });
}
