import ipaddr from "ipaddr.js";
import { z } from "zod";
import { fromUsdt, parseBasisPoints, parseUsdt } from "../core/model/money.js";
import { PROVIDER_NAMES, type ProviderName } from "../core/ports.js";

/** A USDT amount above 0 and at most `max`, read into micro-USDT. */
const usdtAmount = (max: number) =>
  z
    .string()
    .refine((v) => {
      const micro = parseUsdt(v);
      return micro !== null && micro > 0 && micro <= fromUsdt(max);
    }, `must be a USDT amount above 0, at most ${max}, with at most 6 decimals`)
    .transform((v) => parseUsdt(v)!);

/** A tariff in USDT, bounded so that the largest order it prices stays far inside MAX_USDT. */
const usdt = (fallback: string, max: number) => z.string().default(fallback).pipe(usdtAmount(max));

const percent = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => parseBasisPoints(v) !== null, "must be a percentage 0..100 with at most 2 decimals")
    .transform((v) => parseBasisPoints(v) as number);

const integer = (fallback: string, min: number, max: number) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, `must be a whole number ${min}..${max}`)
    .transform(Number);

const url = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional();
/** A text the bot sends as it is (a Telegram message holds 4096 characters); `\n` typed in it is a new line. */
const botText = z
  .string()
  .trim()
  .min(1)
  .max(3500)
  .transform((text) => text.replaceAll("\\n", "\n"))
  .optional();

/** One entry of TRUST_PROXY: an address, a CIDR, or one of proxy-addr's presets. */
function isProxyAddress(entry: string): boolean {
  if (["loopback", "linklocal", "uniquelocal"].includes(entry)) return true;
  const [address, bits] = entry.split("/");
  const plain = ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
  if (!plain || bits === undefined) return plain;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** The setting that holds a provider's base URL: GATEWAY_URL, RATES_URL, … */
export const providerUrl = <N extends ProviderName>(name: N) => `${name.toUpperCase()}_URL` as `${Uppercase<N>}_URL`;
export const PROVIDER_URLS = PROVIDER_NAMES.map(providerUrl);
export type ProviderUrlName = (typeof PROVIDER_URLS)[number];
const providerUrls = Object.fromEntries(
  PROVIDER_URLS.map((name) => [
    name,
    url.describe(
      `Base URL of the ${name.slice(0, -4).toLowerCase()} provider under UPSTREAM=external; a product whose provider has none answers 503.`,
    ),
  ]),
) as Record<ProviderUrlName, typeof url>;

/**
 * Every variable of the service's environment, each checked on its own (./env.ts then checks them together): its
 * type, default, bounds and description (scripts/config-doc.ts writes docs/configuration.md from them).
 */
export const variables = z.object({
  PORT: integer("8080", 0, 65535).describe("Port the partner API listens on (`0`: a free port)."),
  HOST: z.string().min(1).default("127.0.0.1").describe("Address the partner API listens on."),
  DATABASE_URL: z
    .string()
    .min(1)
    .default("./data/partner.db")
    .describe(
      "A SQLite file (the embedded default: one instance), or `postgres://user@host:5432/database` for PostgreSQL and several instances (docs/operations.md).",
    ),
  /** At least 3: the bot's polling role pins one connection for its lock while the others do the work. */
  DATABASE_POOL_MAX: integer("10", 3, 200).describe(
    "PostgreSQL: connections each instance keeps at most in its main pool; the request counters use 4 more, so plan `max_connections` for this plus 4 per instance.",
  ),
  DATABASE_TIMEOUT_MS: integer("5000", 100, 600_000).describe(
    "PostgreSQL: how long a statement may wait for its answer, and a request for a connection; past it the connection is closed and the request answers 503 `database_unavailable` (at most about twice this after it began waiting).",
  ),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino's level for the JSON log lines on stdout."),
  RESPONSE_CHECK: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .describe(
      "`true` checks every answer against its schema with zod and demands the same JSON from the production serializer (the tests set it); off, answers are written by fast-json-stringify alone.",
    ),
  UPSTREAM: z
    .enum(["simulator", "external"])
    .default("simulator")
    .describe("`simulator` starts the upstream simulator in-process and points every provider at it; `external` uses the `*_URL` settings."),
  ...providerUrls,
  PREMIUM_BACKEND: z
    .enum(["protocol", "telegram"])
    .default("protocol")
    .describe(
      "What delivers Premium: `protocol`, the gateway provider at `GATEWAY_URL` (docs/provider-protocol.md), or `telegram`, the bot itself through the Bot API's `giftPremiumSubscription`, paid from its Star balance (needs `BOT_TOKEN`; docs/go-live.md).",
    ),
  GIFTS_BACKEND: z
    .enum(["protocol", "telegram"])
    .default("protocol")
    .describe(
      "What sends gifts: `protocol`, the gifts provider at `GIFTS_URL`, or `telegram`, the bot through the Bot API's `sendGift`, paid from its Star balance (needs `BOT_TOKEN`).",
    ),
  GIFTCARDS_BACKEND: z
    .enum(["protocol", "reloadly"])
    .default("protocol")
    .describe(
      "What sells gift cards: `protocol`, the gift card provider at `GIFTCARDS_URL`, or `reloadly`, Reloadly's Gift Cards API (`RELOADLY_*`).",
    ),
  RELOADLY_ENVIRONMENT: z
    .enum(["sandbox", "production"])
    .default("sandbox")
    .describe("Reloadly's sandbox (test credentials, test codes) or production (real money, real codes)."),
  RELOADLY_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{8,200}$/, "must be the client id from Reloadly's dashboard (Developers, API settings)")
    .optional()
    .describe("Reloadly's client id for `RELOADLY_ENVIRONMENT` (its dashboard: Developers, API settings); with `RELOADLY_CLIENT_SECRET`."),
  RELOADLY_CLIENT_SECRET: z
    .string()
    .min(8, "must be the client secret from Reloadly's dashboard")
    .max(500)
    .optional()
    .describe("Reloadly's client secret for `RELOADLY_ENVIRONMENT`."),
  RELOADLY_AUTH_URL: url.describe(
    "Another token host for Reloadly (the simulator's under `UPSTREAM=simulator`). Unset: `https://auth.reloadly.com`.",
  ),
  RELOADLY_GIFTCARDS_URL: url.describe(
    "Another gift-card host for Reloadly (the simulator's under `UPSTREAM=simulator`). Unset: Reloadly's, by `RELOADLY_ENVIRONMENT`.",
  ),
  RELOADLY_SENDER_NAME: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .default("Gift cards")
    .describe("The sender's name Reloadly puts on every order (it requires one)."),
  ALERT_STARS_BELOW: integer("2500", 0, 1_000_000_000).describe(
    "With a `telegram` backend: the bot's Star balance below this alerts the administrators (`stars`); 2500 pays one 12-month Premium.",
  ),
  STARS_BOOK_CHECK_MINUTES: integer("15", 1, 1440).describe(
    "How often the bot's Star book is reconciled with its Star transactions and balance (with a `telegram` backend or Stars top-ups; also at start and with `npm run admin -- stars reconcile`); a difference alerts the administrators (`starbook`).",
  ),
  ALERT_RELOADLY_BELOW_USD: integer("100", 0, 1_000_000_000).describe(
    "With `GIFTCARDS_BACKEND=reloadly`: the Reloadly account's balance below this many USD alerts the administrators (`reloadly`).",
  ),
  STORE_ENABLED: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true")
    .describe("`false` turns store top-ups off: 503 with `error_code: disabled`, the provider kept."),
  CODES_KEY: z
    .string()
    .optional()
    .refine((v) => v === undefined || Buffer.from(v, "base64").length === 32, "must be base64 of exactly 32 bytes")
    .describe(
      "Base64 of 32 bytes sealing gift card codes and webhook secrets. Unset: `codes.key` beside the SQLite database, made on first start (keep a copy apart from the backups). Required with PostgreSQL, the same on every instance.",
    ),
  UPSTREAM_TIMEOUT_MS: integer("20000", 100, 600000).describe("Bound on every provider call (health probes: 2 s at most)."),
  RATE_LIMIT_PER_MINUTE: integer("60", 1, 1_000_000).describe(
    "Requests a minute per account (failed authentication: per IPv4 address or IPv6 /64), counted across every instance.",
  ),
  QUOTE_TTL_SECONDS: integer("60", 1, 3600).describe(
    "How long a binding quote (`POST /v1/quotes`) holds its charge; the service carries any price move meanwhile.",
  ),
  QUOTES_OPEN_MAX: integer("100", 1, 100_000).describe(
    "Open (unused, unexpired) quotes one key may hold; past it `POST /v1/quotes` answers 429 until one expires or is used.",
  ),
  HEALTH_PROBE_MS: integer("3000", 50, 600_000).describe(
    "How often one round of provider health probes runs, for every instance together; `GET /v1/health` answers from the last round. Each instance also checks its own database twice an interval (at least every 250 ms) for `db_ready` and `GET /readyz`.",
  ),
  BODY_LIMIT_BYTES: integer("16384", 1024, 1048576).describe("Larger request bodies answer 413."),
  STARS_USDT_PER_STAR: usdt("0.015", 100).describe("Stars tariff, USDT a star."),
  PREMIUM_USDT_3: usdt("11.99", 100_000).describe("Premium tariff for 3 months, USDT."),
  PREMIUM_USDT_6: usdt("15.99", 100_000).describe("Premium tariff for 6 months, USDT."),
  PREMIUM_USDT_12: usdt("28.99", 100_000).describe("Premium tariff for 12 months, USDT."),
  STAR_COST_USDT: usdtAmount(100)
    .optional()
    .describe(
      "What one Telegram Star costs you, USDT. Required with a `telegram` backend (the bot pays gifts and Premium from its Stars): start-up and `preflight` refuse `STARS_USDT_PER_STAR` (gifts) and `PREMIUM_USDT_*` (1000, 1500, 2500 Stars) at or below it, and `preflight` prints each product's margin.",
    ),
  STARS_TOPUPS: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true")
    .describe(
      "Whether the bot and the Mini App take top-ups in Telegram Stars (XTR invoices), with `BOT_TOKEN` and a rate (`STARS_TOPUP_USDT_PER_STAR`, or `STAR_COST_USDT`).",
    ),
  STARS_TOPUP_USDT_PER_STAR: usdtAmount(100)
    .optional()
    .describe(
      "USDT credited for each Star paid. Default: `STAR_COST_USDT` (a Star taken in pays for a Star the bot would otherwise buy at that cost); never above it, so no top-up credits more than its Stars are worth to you.",
    ),
  STARS_TOPUP_PACKS: z
    .string()
    .default("100,250,500,1000,2500")
    .refine((v) => /^\d{1,5}(,\s*\d{1,5})*$/.test(v), "must be whole numbers of Stars separated by commas")
    .transform((v) => v.split(",").map((n) => Number(n.trim())))
    .describe("The Stars packs offered (those within `TOPUP_MIN_USDT`..`TOPUP_MAX_USDT` at the rate are shown); any other amount can be typed."),
  STARS_TOPUP_DAILY_MAX_USDT: usdt("500", 1_000_000_000).describe(
    "The most one key may have credited by Stars top-ups in 24 hours: a payment past it is refused at Telegram's checkout, before any Star is taken.",
  ),
  UZS_PER_USD: integer("12800", 1, 1_000_000).describe("UZS equivalents in `/v1/rates` and the bot."),
  TON_RATE_CACHE_SECONDS: integer("60", 0, 3600).describe("How long the live TON rate is cached."),
  CATALOGUE_CACHE_SECONDS: integer("60", 0, 3600).describe(
    "How long each instance keeps a catalogue listing before reading it again: the gifts (`GET /v1/gifts`, the bot, the Mini App; Telegram's `getAvailableGifts`) and the gift card brands (`GET /v1/giftcards`; Reloadly's whole product list). Concurrent reads share one call and a failed read is not kept. A purchase still reads its gift or card live, so a gift sold out meanwhile is refused before the charge. `0`: read on every listing.",
  ),
  STORE_MARKUP_PERCENT: percent("3").describe("Default markup on store top-ups (a personal markup overrides it)."),
  GAMES_MARKUP_PERCENT: percent("5").describe("Default markup on game credit."),
  GIFTCARDS_MARKUP_PERCENT: percent("5").describe("Default markup on gift cards."),
  RECONCILE_AFTER_MS: integer("60000", 100, 86_400_000).describe(
    "A `processing` order older than this is asked about by the reconciler, and a provider that does not know it is then refunded; must exceed `UPSTREAM_TIMEOUT_MS`.",
  ),
  RECONCILE_INTERVAL_MS: integer("5000", 50, 3_600_000).describe(
    "How often the reconciler looks; also the first wait before asking again about a still-pending order (doubling, at most 5 minutes).",
  ),
  SHUTDOWN_GRACE_MS: integer("10000", 0, 600_000).describe(
    "On `SIGTERM`/`SIGINT`, how long requests, bot updates and background work under way get to finish before they are cut (docs/operations.md, Stopping).",
  ),
  BOT_TOKEN: z
    .string()
    .regex(/^\d+:[A-Za-z0-9_-]{20,}$/, "must look like 123456:ABC-DEF… (from @BotFather)")
    .optional()
    .describe("Turns the Telegram bot on (from @BotFather); without it the service runs the API alone."),
  SUPPORT_CONTACT: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("Who users can write to (an @username, a link or an address); the bot shows it with refusals and to blocked users."),
  PAYMENT_SUPPORT_TEXT: botText.describe(
    "What the bot's /paysupport answers, in every language (Telegram asks bots that take payments to answer it); `\\n` starts a new line. Unset: a text in the user's language naming `SUPPORT_CONTACT`.",
  ),
  PAYMENT_TERMS_TEXT: botText.describe(
    "What the bot's /terms answers, in every language (Telegram asks bots that take payments to answer it); `\\n` starts a new line. Unset: a text in the user's language on what a top-up in Stars buys and how a refund goes.",
  ),
  ADMIN_CONFIRM_ABOVE_USDT: usdt("1000", 1_000_000_000).describe(
    "Admin credits, debits and wallet settings above this ask the admin to confirm first (bot and Mini App).",
  ),
  TELEGRAM_API_ROOT: url.describe(
    "Another Bot API server for the bot: a self-hosted Bot API server (a real bot, spending real Stars), or the local emulator in tests and `npm run chat` (then with `TELEGRAM_API_EMULATOR=true`). `https://` unless on this machine. Unset: Telegram's.",
  ),
  TELEGRAM_API_EMULATOR: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .describe(
      "`true` marks `TELEGRAM_API_ROOT` (on this machine) as the Bot API emulator: only then is the bot simulated and may run beside the simulated providers and Crypto Pay. Any other bot, a self-hosted Bot API server on loopback included, is real.",
    ),
  ADMIN_TELEGRAM_IDS: z
    .string()
    .default("")
    .refine((v) => v === "" || /^\d{1,20}(,\s*\d{1,20})*$/.test(v), "must be Telegram user ids separated by commas")
    .transform((v) => (v === "" ? [] : v.split(",").map((id) => Number(id.trim()))))
    .describe("Comma-separated Telegram user ids of the administrators: admin commands, the Mini App's desk, alerts."),
  CONTACTS_RETENTION_DAYS: integer("90", 1, 3650).describe(
    "With a Telegram backend the bot keeps who wrote to it (id, @username) so a gift or Premium can reach them; a user not seen for this many days is deleted (hourly). 90: a recipient asked to open the bot stays reachable for a season, and someone who left is not kept.",
  ),
  GIFTS_TO_ADMINS: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .describe(
      "`true` lets gifts and Premium be bought for the administrators (`ADMIN_TELEGRAM_IDS`). Unset: `false`, they are answered as unknown recipients, so no key holder can send them a gift's text.",
    ),
  GIFT_TEXTS_FROM_KEYS: z
    .enum(["true", "false"])
    .default("false")
    .transform((v) => v === "true")
    .describe(
      "`true` lets API keys send a gift's text where the shop's bot sends the gift (`GIFTS_BACKEND=telegram`); always labelled with the buyer and under the text rules. Unset: `false`, only people in the bot and the Mini App write one.",
    ),
  BOT_INBOX_LEASE_MS: integer("10000", 500, 600_000).describe(
    "How long an instance holds a bot update it handles (renewed while it runs); a dead instance's updates are taken over once it lapses.",
  ),
  BOT_WEBHOOK_URL: url.describe(
    "Webhook mode: the public HTTPS address Telegram posts to (it must reach `POST /telegram/webhook`). Unset: long polling.",
  ),
  BOT_WEBHOOK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,256}$/, "must be 16 to 256 letters, digits, _ or -")
    .optional()
    .describe("Webhook mode: the secret Telegram sends with every update (16 to 256 letters, digits, `_` or `-`); updates without it answer 401."),
  WEBHOOK_ALLOW_LOOPBACK: z
    .enum(["true", "false"])
    .optional()
    .describe(
      "`true` allows partner webhooks to this machine (and `http://` to it): development only (`npm run chat` and the tests set it). Unset: `false`.",
    ),
  WEBHOOK_TIMEOUT_MS: integer("10000", 100, 60_000).describe("One webhook delivery attempt's bound, the whole exchange (connection included)."),
  WEBHOOK_RETRY_BASE_MS: integer("10000", 10, 3_600_000).describe(
    "A failing endpoint's first wait before its probe (its breaker); each later wait doubles, up to `WEBHOOK_RETRY_MAX_MS`.",
  ),
  WEBHOOK_RETRY_MAX_MS: integer("3600000", 10, 86_400_000).describe("The longest wait between a failing endpoint's probes."),
  WEBHOOK_RETRY_FOR_MS: integer("93600000", 100, 7 * 86_400_000).describe(
    "How long a failing endpoint is probed before it is disabled and its owner told (26 hours: at least a day).",
  ),
  WEBHOOK_POLL_MS: integer("1000", 20, 60_000).describe(
    "How often each instance looks for due webhook events, beside being woken by its own commits.",
  ),
  WEBHOOK_PENDING_MAX: integer("1000", 1, 1_000_000).describe(
    "Events a key may have waiting; past it new events are not queued but counted as dropped (`dropped_events` on `GET /v1/webhook`).",
  ),
  WEBHOOK_RETENTION_DAYS: integer("30", 1, 3650).describe(
    "Delivered and given-up webhook events and their attempts are deleted after this many days (hourly).",
  ),
  WEBHOOK_SECRET_OVERLAP_HOURS: integer("24", 0, 720).describe(
    "After a secret rotation, how long the previous secret keeps signing beside the new one.",
  ),
  METRICS_PORT: z
    .string()
    .default("9464")
    .refine((v) => v === "off" || (/^\d+$/.test(v) && Number(v) <= 65535), "must be a port 0..65535, or off")
    .transform((v) => (v === "off" ? null : Number(v)))
    .describe("Prometheus metrics on a listener of their own, never the API's port: `0` picks a free port, `off` serves none."),
  METRICS_HOST: z.string().min(1).default("127.0.0.1").describe("Address of the metrics listener; beyond loopback it needs `METRICS_TOKEN`."),
  TRUST_PROXY: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^\d{1,2}$/.test(v) || v.split(",").every((part) => isProxyAddress(part.trim())), {
      message: "must be a hop count, or addresses, CIDRs and loopback/linklocal/uniquelocal separated by commas",
    })
    .transform((v) => (v === undefined ? undefined : /^\d{1,2}$/.test(v) ? Number(v) : v))
    .describe(
      "Behind a load balancer: the proxies whose `X-Forwarded-For` names the client (comma-separated addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal`), or how many hops to trust. Unset: the socket's address, the header ignored (and a warning, once per start, names an address that sends one).",
    ),
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters")
    .optional()
    .describe(
      "When set, a scrape must send `Authorization: Bearer <token>` (at least 16 characters); required with a `METRICS_HOST` beyond loopback.",
    ),
  ALERT_UNPAID_INVOICES: integer("20", 1, 1_000_000).describe(
    "Top-up invoices made in the last day and left unpaid (expired or cancelled), at or above this, alert the administrators (`invoices`).",
  ),
  ALERT_CHECK_INTERVAL_MS: integer("30000", 100, 3_600_000).describe(
    "How often each instance checks the alert conditions (docs/operations.md, Runbook).",
  ),
  ALERT_REFUNDS: integer("10", 1, 1_000_000).describe("Refunds within `ALERT_REFUND_WINDOW_MINUTES`, at or above this, are a spike (`refunds`)."),
  ALERT_REFUND_WINDOW_MINUTES: integer("15", 1, 1440).describe("The window the refund spike is counted in."),
  ALERT_WALLET_BELOW_USDT: usdt("100", 1_000_000_000).describe(
    "The service wallet (what owner keys spend) below this is told (`wallet`), while an owner key exists.",
  ),
  ALERT_LEDGER_CHECK_SECONDS: integer("3600", 1, 604_800).describe(
    "How often the books are checked in full, every balance against the sum of its entries (`ledger`).",
  ),
  ALERT_REPEAT_HOURS: integer("6", 1, 720).describe("A condition that keeps firing is told again after this long."),
  ALERT_MAX_PER_HOUR: integer("20", 1, 1000).describe("Alert messages one instance sends at most per hour; the rest are counted in the next one."),
  LOW_BALANCE_USDT: usdt("5", 1_000_000_000).describe(
    "A purchase that takes a customer's balance below this tells them in the bot, once (they can turn it off under /balance).",
  ),
  MINIAPP_URL: z
    .url({ protocol: /^https$/, error: "must be an https:// URL (Telegram opens Mini Apps over HTTPS only)" })
    .optional()
    .describe(
      "The Mini App's public HTTPS address (ending in `/app/`): the chat's menu button and the bot's \"Open the shop\". Unset: the bot does not offer it.",
    ),
  MINIAPP_INIT_DATA_MAX_AGE_SECONDS: integer("3600", 30, 86_400).describe("The Mini App's sign-in: Telegram init data older than this is refused."),
  MINIAPP_SESSION_MINUTES: integer("60", 1, 1440).describe("How long a Mini App session lasts."),
  CRYPTO_PAY_URL: url
    .optional()
    .describe(
      "Crypto Pay (@CryptoBot's API) for top-ups by invoice: `https://pay.crypt.bot` or `https://testnet-pay.crypt.bot`; set with `CRYPTO_PAY_TOKEN`. Under `npm start` with `UPSTREAM=simulator`: the simulator's. Unset with `UPSTREAM=external`: no invoices.",
    ),
  CRYPTO_PAY_TOKEN: z
    .string()
    .regex(/^\d{1,12}:[A-Za-z0-9_-]{10,100}$/, "must be a Crypto Pay app token (<app id>:<letters and digits>)")
    .optional()
    .describe("The Crypto Pay app's token (made in @CryptoBot with /pay); its SHA-256 also checks the webhook's signature."),
  TOPUP_MIN_USDT: usdt("1", 1_000_000_000).describe("The smallest top-up, USDT."),
  TOPUP_MAX_USDT: usdt("10000", 1_000_000_000).describe("The largest top-up, USDT."),
  TOPUP_INVOICE_MINUTES: integer("60", 1, 44_640).describe("How long a top-up invoice may be paid."),
  TOPUP_OPEN_INVOICES_MAX: integer("3", 1, 100).describe("Unpaid invoices one key may hold."),
  TOPUP_PENDING_TRANSFERS_MAX: integer("3", 1, 100).describe("Transfers waiting for an administrator's decision one key may have."),
  TOPUP_DAILY_MAX: integer("10", 1, 10_000).describe("Top-ups (invoices and transfers, cancelled ones too) one key may start in 24 hours."),
  TOPUP_TRANSFERS: z
    .enum(["true", "false"])
    .default("true")
    .transform((v) => v === "true")
    .describe('Whether users may state a transfer for an administrator to approve ("I paid by transfer").'),
  TOPUP_POLL_MS: integer("30000", 50, 3_600_000).describe(
    "How often every open invoice is asked about (the path that never misses a payment; Crypto Pay's webhook is the fast one).",
  ),
  SIMULATOR_PORT: integer("9090", 0, 65535).describe(
    "Port of the in-process simulator under `UPSTREAM=simulator`, and its fault switch; `0` picks a free one (the start's log line names it).",
  ),
  SIMULATOR_TIME_SCALE: z
    .string()
    .default("1")
    .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) <= 100, "must be a number above 0, at most 100")
    .transform(Number)
    .describe("Multiplies the in-process simulator's delays (games about 1 to 2 minutes, gift cards about 23 s at 1)."),
});

export type Variables = z.output<typeof variables>;
