import type { z } from "zod";
import type { Micro } from "../core/model/money.js";
import type { envSchema } from "./env.js";

/** The environment as its variables parse, before it is read into the deployment's map. */
type Env = z.output<typeof envSchema>;

/** Telegram's own Bot API server (grammY's default too). */
const TELEGRAM_API = "https://api.telegram.org";
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A provider speaking our protocol (docs/provider-protocol.md) at its base URL; null: none, its products answer 503. */
export interface ProtocolBackend {
  kind: "protocol";
  url: string | null;
}

/** The bot's own Bot API: a product it delivers is paid from the bot's Star balance. */
export interface BotApi {
  token: string;
  /** Telegram's server, a self-hosted one, or the local emulator (`emulator: true`). */
  apiRoot: string;
  emulator: boolean;
}

interface TelegramBackend {
  kind: "telegram";
  bot: BotApi;
}

/** Reloadly's Gift Cards API in one of its environments. */
export interface ReloadlyBackend {
  kind: "reloadly";
  environment: "sandbox" | "production";
  /** Null only under UPSTREAM=simulator before src/main.ts fills in the simulated Reloadly's. */
  credentials: { clientId: string; clientSecret: string } | null;
  /** Another token or gift-card host (the simulator's); null: Reloadly's own for the environment. */
  authUrl: string | null;
  giftcardsUrl: string | null;
  senderName: string;
}

/** What delivers each product: a discriminated variant per backend it may have. */
export interface ProductBackends {
  stars: ProtocolBackend;
  premium: ProtocolBackend | TelegramBackend;
  store: ProtocolBackend;
  games: ProtocolBackend;
  giftcards: ProtocolBackend | ReloadlyBackend;
  gifts: ProtocolBackend | TelegramBackend;
}
export type ProductName = keyof ProductBackends;

/** How the bot takes its updates. */
type BotUpdates = { kind: "polling" } | { kind: "webhook"; url: string; secret: string };

export interface BotSettings {
  api: BotApi;
  updates: BotUpdates;
  admins: number[];
  support: string | null;
  paymentHelp: { support: string | null; terms: string | null };
  inboxLeaseMs: number;
  /** The Mini App's address (null: the bot does not offer it; its routes still sign in by the bot's token). */
  miniApp: { url: string | null; initDataMaxAgeMs: number; sessionMs: number };
}

/** The bot, where BOT_TOKEN turns it on. */
function botOf(env: Env): BotSettings | null {
  if (!env.BOT_TOKEN) return null;
  return {
    api: { token: env.BOT_TOKEN, apiRoot: env.TELEGRAM_API_ROOT ?? TELEGRAM_API, emulator: env.TELEGRAM_API_EMULATOR },
    updates:
      env.BOT_WEBHOOK_URL && env.BOT_WEBHOOK_SECRET
        ? { kind: "webhook", url: env.BOT_WEBHOOK_URL, secret: env.BOT_WEBHOOK_SECRET }
        : { kind: "polling" },
    admins: env.ADMIN_TELEGRAM_IDS,
    support: env.SUPPORT_CONTACT ?? null,
    paymentHelp: { support: env.PAYMENT_SUPPORT_TEXT ?? null, terms: env.PAYMENT_TERMS_TEXT ?? null },
    inboxLeaseMs: env.BOT_INBOX_LEASE_MS,
    miniApp: {
      url: env.MINIAPP_URL ?? null,
      initDataMaxAgeMs: env.MINIAPP_INIT_DATA_MAX_AGE_SECONDS * 1000,
      sessionMs: env.MINIAPP_SESSION_MINUTES * MINUTE_MS,
    },
  };
}

const protocol = (url: string | undefined): ProtocolBackend => ({ kind: "protocol", url: url ?? null });

/** Reloadly's account as the RELOADLY_* variables set it up. */
const reloadlyOf = (env: Env): ReloadlyBackend => ({
  kind: "reloadly",
  environment: env.RELOADLY_ENVIRONMENT,
  credentials:
    env.RELOADLY_CLIENT_ID && env.RELOADLY_CLIENT_SECRET ? { clientId: env.RELOADLY_CLIENT_ID, clientSecret: env.RELOADLY_CLIENT_SECRET } : null,
  authUrl: env.RELOADLY_AUTH_URL ?? null,
  giftcardsUrl: env.RELOADLY_GIFTCARDS_URL ?? null,
  senderName: env.RELOADLY_SENDER_NAME,
});

/** Each product's backend, by its `*_BACKEND` variable (the env's checks made sure a telegram backend has its bot). */
function productsOf(env: Env, bot: BotSettings | null): ProductBackends {
  const telegram = (): TelegramBackend => ({ kind: "telegram", bot: bot!.api });
  return {
    stars: protocol(env.GATEWAY_URL),
    premium: env.PREMIUM_BACKEND === "telegram" ? telegram() : protocol(env.GATEWAY_URL),
    store: protocol(env.STORE_URL),
    games: protocol(env.GAMES_URL),
    giftcards: env.GIFTCARDS_BACKEND === "reloadly" ? reloadlyOf(env) : protocol(env.GIFTCARDS_URL),
    gifts: env.GIFTS_BACKEND === "telegram" ? telegram() : protocol(env.GIFTS_URL),
  };
}

/** Backends no product sends new orders to, set up still: opened only to settle the orders they took before. */
function retiredOf(env: Env, products: ProductBackends, bot: BotSettings | null) {
  const reloadly = reloadlyOf(env);
  return {
    /** The protocol's addresses of the products now on another backend (gifts, gift cards). */
    protocol: {
      gifts: products.gifts.kind === "protocol" ? null : (env.GIFTS_URL ?? null),
      giftcards: products.giftcards.kind === "protocol" ? null : (env.GIFTCARDS_URL ?? null),
    } as Partial<Record<ProductName, string | null>>,
    telegram: products.premium.kind !== "telegram" && products.gifts.kind !== "telegram" ? (bot?.api ?? null) : null,
    reloadly: products.giftcards.kind !== "reloadly" && reloadly.credentials ? reloadly : null,
  };
}

/**
 * The deployment as one typed map: each section goes to the subsystem that owns it (src/root.ts hands them out).
 * Amounts are micro-USDT (`…Micro`), markups basis points, every duration milliseconds (`…Ms`).
 */
export function deploymentOf(env: Env) {
  const bot = botOf(env);
  const products = productsOf(env, bot);
  // Where the bot's Stars are booked: it pays deliveries from them, or takes top-ups in them.
  const paysInStars = products.premium.kind === "telegram" || products.gifts.kind === "telegram";
  const starsRateMicro: Micro | null = env.STARS_TOPUPS && bot ? (env.STARS_TOPUP_USDT_PER_STAR ?? env.STAR_COST_USDT ?? null) : null;
  return {
    logLevel: env.LOG_LEVEL,
    server: {
      host: env.HOST,
      port: env.PORT,
      bodyLimitBytes: env.BODY_LIMIT_BYTES,
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
      trustProxy: env.TRUST_PROXY ?? null,
      checkAnswers: env.RESPONSE_CHECK,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    },
    metrics: { port: env.METRICS_PORT, host: env.METRICS_HOST, token: env.METRICS_TOKEN ?? null },
    database: { url: env.DATABASE_URL, poolMax: env.DATABASE_POOL_MAX, timeoutMs: env.DATABASE_TIMEOUT_MS, codesKey: env.CODES_KEY ?? null },
    upstream: {
      /** `simulator`: src/main.ts started the simulator and pointed every unset address at it. */
      source: env.UPSTREAM,
      simulator: { port: env.SIMULATOR_PORT, timeScale: env.SIMULATOR_TIME_SCALE },
      timeoutMs: env.UPSTREAM_TIMEOUT_MS,
      healthProbeMs: env.HEALTH_PROBE_MS,
      catalogueCacheMs: env.CATALOGUE_CACHE_SECONDS * 1000,
    },
    products,
    retired: retiredOf(env, products, bot),
    /** The TON rate's source (a protocol provider) and the UZS shown beside USDT. */
    rates: { backend: protocol(env.RATES_URL), tonCacheMs: env.TON_RATE_CACHE_SECONDS * 1000, uzsPerUsd: env.UZS_PER_USD },
    bot,
    sales: {
      tariffs: {
        usdtPerStarMicro: env.STARS_USDT_PER_STAR,
        premiumMicro: { 3: env.PREMIUM_USDT_3, 6: env.PREMIUM_USDT_6, 12: env.PREMIUM_USDT_12 },
      },
      /** What one Star costs the operator (required where the bot pays in Stars). */
      starCostMicro: env.STAR_COST_USDT ?? null,
      markups: { store: env.STORE_MARKUP_PERCENT, games: env.GAMES_MARKUP_PERCENT, giftcards: env.GIFTCARDS_MARKUP_PERCENT },
      storeEnabled: env.STORE_ENABLED,
      lowBalanceMicro: env.LOW_BALANCE_USDT,
      quotes: { ttlMs: env.QUOTE_TTL_SECONDS * 1000, openMax: env.QUOTES_OPEN_MAX },
      reconcile: { afterMs: env.RECONCILE_AFTER_MS, intervalMs: env.RECONCILE_INTERVAL_MS },
      recipients: { contactsRetentionMs: env.CONTACTS_RETENTION_DAYS * DAY_MS, adminsReceive: env.GIFTS_TO_ADMINS },
      giftTextsFromKeys: env.GIFT_TEXTS_FROM_KEYS,
    },
    admin: { confirmAboveMicro: env.ADMIN_CONFIRM_ABOVE_USDT },
    topups: {
      limits: {
        minMicro: env.TOPUP_MIN_USDT,
        maxMicro: env.TOPUP_MAX_USDT,
        invoiceTtlMs: env.TOPUP_INVOICE_MINUTES * MINUTE_MS,
        openInvoicesMax: env.TOPUP_OPEN_INVOICES_MAX,
        pendingTransfersMax: env.TOPUP_PENDING_TRANSFERS_MAX,
        dailyMax: env.TOPUP_DAILY_MAX,
        transfers: env.TOPUP_TRANSFERS,
        pollMs: env.TOPUP_POLL_MS,
        // An invoice still `creating` after the provider call's own bound (and a margin) was cut short.
        creatingStaleMs: env.UPSTREAM_TIMEOUT_MS + 10_000,
      },
      cryptoPay: env.CRYPTO_PAY_URL && env.CRYPTO_PAY_TOKEN ? { url: env.CRYPTO_PAY_URL, token: env.CRYPTO_PAY_TOKEN } : null,
      /** Top-ups in Stars: offered with a bot and a rate; null where not. */
      stars:
        starsRateMicro === null ? null : { rateMicro: starsRateMicro, packs: env.STARS_TOPUP_PACKS, dailyMaxMicro: env.STARS_TOPUP_DAILY_MAX_USDT },
    },
    /** The bot's Star book: kept where the bot pays deliveries in Stars or takes them in; null where not. */
    starBook: bot && (paysInStars || starsRateMicro !== null) ? { bot: bot.api, checkMs: env.STARS_BOOK_CHECK_MINUTES * MINUTE_MS } : null,
    webhooks: {
      allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === "true",
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: env.WEBHOOK_RETRY_MAX_MS,
      retryForMs: env.WEBHOOK_RETRY_FOR_MS,
      pollMs: env.WEBHOOK_POLL_MS,
      pendingMax: env.WEBHOOK_PENDING_MAX,
      retentionMs: env.WEBHOOK_RETENTION_DAYS * DAY_MS,
      secretOverlapMs: env.WEBHOOK_SECRET_OVERLAP_HOURS * HOUR_MS,
    },
    alerts: {
      intervalMs: env.ALERT_CHECK_INTERVAL_MS,
      refundWindowMs: env.ALERT_REFUND_WINDOW_MINUTES * MINUTE_MS,
      refundThreshold: env.ALERT_REFUNDS,
      walletBelowMicro: env.ALERT_WALLET_BELOW_USDT,
      ledgerEveryMs: env.ALERT_LEDGER_CHECK_SECONDS * 1000,
      repeatMs: env.ALERT_REPEAT_HOURS * HOUR_MS,
      maxPerHour: env.ALERT_MAX_PER_HOUR,
      unpaidInvoices: env.ALERT_UNPAID_INVOICES,
      /** Below these a backend's own balance alerts (`funds:<product>`), in its unit. */
      fundsBelow: { stars: env.ALERT_STARS_BELOW, USD: env.ALERT_RELOADLY_BELOW_USD },
    },
  };
}

export type Config = ReturnType<typeof deploymentOf>;
