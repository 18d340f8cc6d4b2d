import type { Db } from "../db/database.js";
import type { OneStatementWrites } from "../db/placement.js";
import { createHealth, PROBE_ROUND_MS } from "./health.js";
import type { Micro } from "./model/money.js";
import { createAccounts } from "./accounts.js";
import { createAdmin } from "./admin.js";
import { confirmRule } from "./confirm.js";
import { createContacts } from "./contacts.js";
import { createHeldOrders } from "./held-orders.js";
import type { MarkupDefaults } from "./markup.js";
import { createOrders } from "./order-lookup.js";
import type { CryptoPayPort, Ports, StarPaymentsPort, StatusQuestion, UpstreamStatus } from "./ports.js";
import type { Clock } from "./model/clock.js";
import { createPricing, type Tariffs } from "./pricing.js";
import { createTelegramProducts } from "./products/telegram.js";
import { createGames } from "./products/games.js";
import { createGiftcards } from "./products/giftcards.js";
import { createGifts } from "./products/gifts.js";
import { type Order, PRODUCTS, type ProductType } from "./model/products.js";
import { createStore } from "./products/store.js";
import { createPurchasePipeline } from "./purchase.js";
import { createQuoteBook } from "./quotes.js";
import { createLowBalance } from "./low-balance.js";
import { createRequestCounter } from "./request-counter.js";
import { createSettlement, type StatusLookup } from "./settlement.js";
import { createStarBook } from "./star-book.js";
import { createStatements } from "./statement.js";
import { createTopups } from "./topups.js";
import type { StarsSettings, TopupLimits } from "./topups/context.js";
import type { Vault } from "./vault.js";
import { createWebhooks, type WebhooksOptions } from "./webhooks/index.js";

export interface CoreDeps {
  db: Db;
  clock: Clock;
  /** One port per product, and the TON rate's source. */
  ports: Ports;
  tariffs: Tariffs;
  markups: MarkupDefaults;
  storeEnabled: boolean;
  vault: Vault;
  reconcileAfterMs: number;
  reconcileIntervalMs: number;
  /** How long a binding quote (POST /v1/quotes) holds its charge. */
  quoteTtlMs: number;
  /** Open quotes one key may hold. */
  quotesOpenMax: number;
  /** How often a round of health probes runs (jobs/health-probe.ts), shared by every instance. */
  healthProbeMs: number;
  /** How long this instance keeps a catalogue listing (the gifts, the gift card brands) before reading it again. */
  catalogueCacheMs: number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /**
   * Where request counts shared by every instance live (PostgreSQL, where several instances may run): a pool
   * of its own whose commits need not wait for the disk. Absent on SQLite, whose one instance counts in memory.
   */
  counterDb?: Db;
  /** The rate limit's window: a key's read counts the request in it (with counterDb). */
  rateLimitWindowMs: number;
  /**
   * The storage's one-statement writes (PostgreSQL: placing and finishing a purchase in one round trip each), as
   * db/placement.ts offers them; absent where it has none (SQLite), and the core writes in steps in a transaction.
   */
  oneStatement?: OneStatementWrites;
  /** The signed webhooks: sender, one attempt's bound, the endpoint policy and what each event says (src/wire/events.ts). */
  webhooks: Omit<WebhooksOptions, "db" | "clock" | "vault">;
  /** A purchase that takes a standard balance below this tells its owner (who can turn that off). */
  lowBalanceMicro: Micro;
  /** Crypto Pay, where top-ups by invoice are offered (null: none), and the top-ups' bounds. */
  cryptoPay: CryptoPayPort | null;
  /** Top-ups in Telegram Stars (the bot's XTR invoices), or null where they are not offered. */
  starsTopups: StarsSettings | null;
  /** The bot's Star transactions and balance, for its Star book: null where no bot's Stars are booked. */
  starBook: StarPaymentsPort | null;
  topupLimits: TopupLimits;
  /** Money an administrator moves above this (ADMIN_CONFIRM_ABOVE_USDT) needs their confirmation: core/confirm.ts. */
  adminConfirmAboveMicro: Micro;
  /** The backend each product type sends new orders to (`*_BACKEND`; `protocol` where there is no choice). */
  backends: Readonly<Record<ProductType, string>>;
  /** Where orders still open at a backend that takes no new ones are asked about: by product type, then backend. */
  formerBackends?: Readonly<Partial<Record<ProductType, Readonly<Record<string, StatusQuestion>>>>>;
  /** The bot's contacts: noted only while a Telegram backend is configured; administrators barred unless allowed. */
  contacts: { recording: boolean; admins: readonly number[]; adminsReceive: boolean };
  /** Whether Premium is sent by the bot (PREMIUM_BACKEND=telegram). */
  premiumByBot: boolean;
  /** Whether API keys may send a gift's text where the shop's bot sends it (GIFT_TEXTS_FROM_KEYS). */
  giftTextsFromKeys: boolean;
}

/** The purchase service itself, shared by the HTTP API, the bot and the CLI. Knows nothing of either. */
export function createCore(deps: CoreDeps) {
  const { db, clock, ports } = deps;
  const catalogueCache = { cacheMs: deps.catalogueCacheMs, now: () => clock.now().getTime() };
  // Where each order's asynchronous outcome is asked for: the backend that took it (the product's port serves the
  // configured one; a former backend still settles what it took).
  const lookups: Record<string, StatusLookup> = Object.fromEntries(
    PRODUCTS.map((product) => [
      product.type,
      async (order: Order): Promise<UpstreamStatus> => {
        const configured = deps.backends[product.type];
        const taken = order.backend ?? configured;
        if (taken === configured) return ports[product.port].status(order.upstreamRef, order);
        const former = deps.formerBackends?.[product.type]?.[taken];
        return former ? former(order.upstreamRef, order) : { kind: "unknown", error: `the ${taken} backend that took this order is not configured` };
      },
    ]),
  );
  const webhooks = createWebhooks({ db, clock, vault: deps.vault, ...deps.webhooks });
  // An order younger than RECONCILE_AFTER_MS may still have its provider call in flight (it exceeds the upstream timeout).
  const timing = { recheckMs: deps.reconcileIntervalMs, inFlightMs: deps.reconcileAfterMs };
  const { oneStatement } = deps;
  const settlement = createSettlement({ db, clock, timing, lookups, vault: deps.vault, outbox: webhooks.outbox, oneStatement });
  const quotes = createQuoteBook({ db, clock, ttlMs: deps.quoteTtlMs, openMax: deps.quotesOpenMax });
  const lowBalance = createLowBalance({ thresholdMicro: deps.lowBalanceMicro });
  const pipeline = createPurchasePipeline({
    db,
    clock,
    reconcileAfterMs: deps.reconcileAfterMs,
    settle: settlement.apply,
    log: deps.log,
    quotes,
    lowBalance,
    oneStatement,
    backends: deps.backends,
  });
  const sharedCounter = deps.counterDb ? createRequestCounter({ db: deps.counterDb, clock }) : null;
  const accounts = createAccounts({ db, clock, counting: sharedCounter ? { counter: sharedCounter, windowMs: deps.rateLimitWindowMs } : undefined });
  const pricing = createPricing({ tariffs: deps.tariffs, rates: ports.rates, clock });
  const contacts = createContacts({ db, clock, ...deps.contacts });
  const telegram = createTelegramProducts({ ports, pipeline, pricing, recipients: contacts, premiumByBot: deps.premiumByBot });
  const store = createStore({ store: ports.store, pipeline, markups: deps.markups, enabled: deps.storeEnabled });
  const confirm = confirmRule(deps.adminConfirmAboveMicro);

  const topups = createTopups({
    db,
    clock,
    cryptoPay: deps.cryptoPay,
    stars: deps.starsTopups,
    outbox: webhooks.outbox,
    limits: deps.topupLimits,
    confirm,
    log: deps.log,
  });
  const starBook = createStarBook({
    db,
    clock,
    port: deps.starBook,
    settle: topups.settleStars,
    rateMicro: deps.starsTopups?.rateMicro ?? null,
    tariffs: deps.tariffs,
    log: deps.log,
  });
  // A gift or Premium the bot sent is booked out as it completes (a missed one by the next reconciliation).
  if (deps.starBook) settlement.onSettled((order) => starBook.settled(order));

  return {
    clock,
    accounts,
    orders: createOrders({ db, clock, settlement, vault: deps.vault }),
    /** The caller's ledger statement: pages newest first, and the entries of a range (the wire renders its CSV). */
    statements: createStatements({ db }),
    pricing,
    search: telegram.search,
    stars: telegram.stars,
    premium: telegram.premium,
    store,
    games: createGames({ games: ports.games, pipeline, markups: deps.markups }),
    giftcards: createGiftcards({ giftcards: ports.giftcards, pipeline, markups: deps.markups, ...catalogueCache }),
    gifts: createGifts({
      gifts: ports.gifts,
      pipeline,
      usdtPerStarMicro: deps.tariffs.usdtPerStarMicro,
      recipients: contacts,
      textsFromKeys: deps.giftTextsFromKeys,
      ...catalogueCache,
    }),
    admin: createAdmin({ db, clock, accounts, outbox: webhooks.outbox, confirm }),
    /** Orders whose delivery the backend's records cannot tell, held for an administrator's decision. */
    held: createHeldOrders({ db, clock, settlement }),
    /** The Telegram users the bot has seen, by @username: whom the Telegram backend can send to. */
    contacts,
    /** Money in: Crypto Pay invoices and Stars credited when paid, transfers credited when an administrator approves. */
    topups,
    /** The bot's Star book: its reconciliation with Telegram and the summary the CLI and the desk show. */
    starBook,
    webhooks,
    /** Request counts every instance shares, or null where one instance counts in memory. */
    sharedCounter,
    /** Settles orders: the reconciler job drives the ones nobody polls. */
    settlement,

    /** Purchases whose provider call is under way in this process. */
    pipelineCalls: pipeline.calling,
    /** At a stop: the orders of purchases whose call was cut short are made due again now; returns their ids. */
    releaseCalls: pipeline.release,

    /** The database and every port's own health check, at once. */
    health: createHealth({
      db,
      ports,
      storeEnabled: store.enabled,
      // A few rounds may be missed (a slow round, a busy database) before nothing is reported ready.
      staleAfterMs: 3 * deps.healthProbeMs + PROBE_ROUND_MS,
      now: () => clock.now(),
    }),
    lowBalance,
  };
}

export type Core = ReturnType<typeof createCore>;
