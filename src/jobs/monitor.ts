import { unbalancedAccounts } from "../db/ledger.js";
import { type Micro, micro } from "../core/model/money.js";
import { PRODUCTS } from "../core/model/products.js";
import { type BackgroundScope, type Funds, PORT_NAMES, type PortName } from "../core/ports.js";
import type { Clock } from "../core/model/clock.js";
import { backlog, claimTransition, processingOrders, refundsSince, walletWhileOwned } from "../db/alerts.js";
import type { Db } from "../db/database.js";
import type { FaultLog } from "../db/faults.js";
import { anomaliesSince, unpaidInvoicesSince } from "../db/topups.js";
import { lastStarCheck, shortRefundsSince, unmatchedPaymentsSince } from "../db/star-book.js";
import type { StarReconciliation } from "../core/model/star-book.js";
import { differenceLine } from "../wire/star-book.js";
import type { Alert, AlertDetails } from "../wire/alerts.js";
import { createLoop, type Job, type JobLog } from "./loop.js";

export interface MonitorSettings {
  intervalMs: number;
  /** Refunds (failed orders) in the window at or above the threshold fire `refunds`. */
  refundWindowMs: number;
  refundThreshold: number;
  /** The service wallet (what owner keys spend) under this fires `wallet`; checked only while an owner key exists. */
  walletBelowMicro: Micro;
  /** How often the books are checked (every balance against the sum of its entries). */
  ledgerEveryMs: number;
  /** A condition still firing is told again this long after it was last told. */
  repeatMs: number;
  /** Messages one instance sends at most per hour; the rest are counted and said with the next one. */
  maxPerHour: number;
  /** Invoices made in the last day and left unpaid (expired or cancelled), at or above this, fire `invoices`. */
  unpaidInvoices: number;
}

export interface MonitorOptions {
  db: Db;
  clock: Clock;
  /** Each port's own health check and backend (the core's probe, shared with the health endpoint). */
  health: () => Promise<{ ready: Record<PortName, boolean>; configured: Record<PortName, boolean>; backends: Record<PortName, string> }>;
  /** The backends paying from a balance of their own, each with the line under which it fires `funds:<source>`. */
  funds?: Array<{ source: "stars" | "reloadly"; threshold: number; read(): Promise<Funds> }>;
  /** Crypto Pay, where top-ups by invoice are offered: its own check fires `cryptopay` (as a provider's does). */
  cryptoPay?: { ready(): Promise<boolean> } | null;
  settings: MonitorSettings;
  /** Whether the bot's Stars are booked here: the last reconciliation, unmatched payments and short refunds are checked. */
  starBook?: boolean;
  /** The faults this instance's statements met (db/faults.ts): any since the last round fires `database`. */
  faults?: Pick<FaultLog, "take">;
  log: JobLog;
  scope?: BackgroundScope;
}

interface Condition {
  key: string;
  firing: boolean;
  details: AlertDetails;
}

/** Processing orders looked at for `stuck` (the oldest first). */
const STUCK_SCAN = 500;
const settleWithin = new Map<string, number>(PRODUCTS.map((p) => [p.type, p.settlesWithinMs]));

/** The checks of one round, each a condition (or none); `now` is the round's time. */
function createChecks(options: MonitorOptions) {
  return { ...purchaseChecks(options), ...topupChecks(options), ...starChecks(options) };
}

/** Orders waiting (stuck past their time, or held), the oldest first, as the condition that names the oldest. */
function waiting(kind: "stuck" | "held", orders: Array<{ id: number; productType: string; createdAt: string }>): Condition {
  const oldest = orders[0];
  const details = { count: orders.length, oldest: oldest ? { orderId: oldest.id, product: oldest.productType, since: oldest.createdAt } : null };
  return { key: kind, firing: orders.length > 0, details: { kind, ...details } };
}

/** What purchases stand on and leave behind: the providers, refunds, the service wallet, stuck orders, the books. */
function purchaseChecks(options: MonitorOptions) {
  const { db, settings } = options;
  let lastLedgerCheck = -Infinity;
  let ledgerCondition: Condition | null = null;

  return {
    async providers(): Promise<Condition[]> {
      // Per product and backend: Premium on the bot and stars on a protocol gateway are told apart.
      const { ready, configured, backends } = await options.health();
      return PORT_NAMES.filter((name) => configured[name]).map((product) => ({
        key: `provider:${product}`,
        firing: !ready[product],
        details: { kind: "provider", product, backend: backends[product] },
      }));
    },

    /** A balance a backend pays from (one unreadable is the provider's own alert, not this one). */
    async funds(): Promise<Condition[]> {
      const readings = await Promise.all(
        (options.funds ?? []).map(async ({ source, threshold, read }) => {
          const funds = await read().catch(() => null);
          if (!funds) return null;
          const details: AlertDetails = { kind: "funds", source, amount: funds.amount, unit: funds.unit, threshold };
          return { key: `funds:${source}`, firing: funds.amount < threshold, details };
        }),
      );
      return readings.filter((reading) => reading !== null);
    },

    async refunds(now: Date): Promise<Condition> {
      const count = await refundsSince(db, new Date(now.getTime() - settings.refundWindowMs).toISOString());
      const minutes = Math.round(settings.refundWindowMs / 60_000);
      return {
        key: "refunds",
        firing: count >= settings.refundThreshold,
        details: { kind: "refunds", count, minutes, threshold: settings.refundThreshold },
      };
    },

    async wallet(): Promise<Condition | null> {
      const balanceMicro = await walletWhileOwned(db);
      if (balanceMicro === null) return null;
      return {
        key: "wallet",
        firing: balanceMicro < settings.walletBelowMicro,
        details: { kind: "wallet", balanceMicro, thresholdMicro: settings.walletBelowMicro },
      };
    },

    /** Orders held for an administrator: their delivery cannot be told without guessing (admin `resolve`). */
    held: async (): Promise<Condition> => waiting("held", await processingOrders(db, STUCK_SCAN, true)),

    stuck: async (now: Date): Promise<Condition> =>
      waiting(
        "stuck",
        (await processingOrders(db, STUCK_SCAN)).filter(
          (order) => now.getTime() - Date.parse(order.createdAt) > (settleWithin.get(order.productType) ?? 0),
        ),
      ),

    /** The books, at most every `ledgerEveryMs`: between checks the last verdict stands. */
    async ledger(now: Date): Promise<Condition | null> {
      if (now.getTime() - lastLedgerCheck >= settings.ledgerEveryMs) {
        lastLedgerCheck = now.getTime();
        const broken = await unbalancedAccounts(db);
        ledgerCondition = {
          key: "ledger",
          firing: broken.length > 0,
          details: { kind: "ledger", accounts: broken.length, accountId: broken.length ? broken[0].accountId : null },
        };
      }
      return ledgerCondition;
    },
  };
}

/** Crypto Pay's, when top-ups by invoice are offered (none otherwise). */
function topupChecks(options: MonitorOptions) {
  const { db, settings } = options;
  return {
    /** Crypto Pay's own check: top-ups by invoice cannot be made or read while it fails. */
    async cryptoPay(): Promise<Condition | null> {
      if (!options.cryptoPay) return null;
      return { key: "cryptopay", firing: !(await options.cryptoPay.ready()), details: { kind: "cryptopay" } };
    },

    /** Invoices left unpaid in an unusual number (the last day's expired or cancelled): a broken pay link, or someone probing. */
    async invoices(now: Date): Promise<Condition | null> {
      if (!options.cryptoPay) return null;
      const unpaid = await unpaidInvoicesSince(db, new Date(now.getTime() - 86_400_000).toISOString());
      return {
        key: "invoices",
        firing: unpaid >= settings.unpaidInvoices,
        details: { kind: "invoices", unpaid, hours: 24, threshold: settings.unpaidInvoices },
      };
    },

    /** What Crypto Pay reported that matches no top-up as made (never credited) in the last day: a leaked token, or a bug. */
    async anomalies(now: Date): Promise<Condition | null> {
      if (!options.cryptoPay) return null;
      const { count, latest } = await anomaliesSince(db, new Date(now.getTime() - 86_400_000).toISOString());
      return { key: "anomalies", firing: count > 0, details: { kind: "anomalies", count, hours: 24, latest } };
    },
  };
}

/** The bot's Star book, where its Stars are booked: the last reconciliation (the star-book job's), and what it cannot fix. */
function starChecks(options: MonitorOptions) {
  const { db } = options;
  const DAY_MS = 86_400_000;
  return {
    async starBook(): Promise<Condition | null> {
      if (!options.starBook) return null;
      const last = (await lastStarCheck(db)) as StarReconciliation | null;
      if (!last) return null;
      const first = last.differences[0];
      return {
        key: "starbook",
        firing: last.differenceCount > 0,
        details: {
          kind: "starbook",
          differences: last.differenceCount,
          first: first ? differenceLine(first) : null,
          balance: last.balance,
          book: last.book,
        },
      };
    },

    /** Payments no top-up took (a payload not ours, a top-up paid twice): Stars in that credited nobody. */
    async unmatched(now: Date): Promise<Condition | null> {
      if (!options.starBook) return null;
      const { count, latest } = await unmatchedPaymentsSince(db, new Date(now.getTime() - DAY_MS).toISOString());
      return { key: "unmatched", firing: count > 0, details: { kind: "unmatched", count, hours: 24, latest } };
    },

    /** Refunds Telegram made whose credit the balance could no longer give back: the rest is lost. */
    async shortRefunds(now: Date): Promise<Condition | null> {
      if (!options.starBook) return null;
      const short = await shortRefundsSince(db, new Date(now.getTime() - DAY_MS).toISOString());
      return {
        key: "shortrefunds",
        firing: short.count > 0,
        details: { kind: "shortrefunds", count: short.count, hours: 24, shortMicro: micro(short.shortMicro), topupId: short.latest },
      };
    },
  };
}

/**
 * A provider's health is this instance's own probe: its verdict counts only once two rounds in a row agree,
 * so one failed probe, or two instances seeing a flapping provider differently, does not flood the admins.
 */
function createProviderVerdicts() {
  const verdicts = new Map<string, { firing: boolean; rounds: number }>();
  return (condition: Condition): boolean => {
    if (condition.details.kind !== "provider" && condition.details.kind !== "cryptopay") return true;
    const last = verdicts.get(condition.key);
    const rounds = last && last.firing === condition.firing ? last.rounds + 1 : 1;
    verdicts.set(condition.key, { firing: condition.firing, rounds });
    return rounds >= 2;
  };
}

/** Alerts told to the listeners, at most `maxPerHour` an hour; those held back are counted into the next one. */
function createTeller(settings: MonitorSettings, log: JobLog) {
  const listeners: Array<(alert: Alert) => void> = [];
  const sentAt: number[] = [];
  let suppressed = 0;
  return {
    listeners,
    tell(condition: Condition, state: Alert["state"], now: Date) {
      log.warn({ alert: condition.key, state, ...condition.details }, "alert");
      const hourAgo = now.getTime() - 3_600_000;
      while (sentAt.length && sentAt[0] < hourAgo) sentAt.shift();
      if (sentAt.length >= settings.maxPerHour) {
        suppressed += 1;
        return;
      }
      sentAt.push(now.getTime());
      const alert: Alert = { key: condition.key, state, details: condition.details, suppressed };
      suppressed = 0;
      for (const listener of listeners) listener(alert);
    },
  };
}

/**
 * The database's own condition, kept by this instance in memory and told without the shared state: what failed may
 * be that very database (full, hung, gone). Each instance tells of its own faults; a reminder every `repeatMs`.
 */
function createDatabaseWatch(faults: Pick<FaultLog, "take">, settings: MonitorSettings) {
  let firing = false;
  let toldAt = 0;
  return (now: Date): { condition: Condition; state: Alert["state"] } | null => {
    const { count, last } = faults.take();
    const condition: Condition = {
      key: "database",
      firing: count > 0,
      details: { kind: "database", fault: last?.kind ?? null, count, cause: last ? `${last.code}: ${last.message}` : null },
    };
    let state: Alert["state"] | null = null;
    if (condition.firing && !firing) state = "firing";
    else if (condition.firing && now.getTime() - toldAt >= settings.repeatMs) state = "reminder";
    else if (!condition.firing && firing) state = "resolved";
    firing = condition.firing;
    if (state && state !== "resolved") toldAt = now.getTime();
    return state ? { condition, state } : null;
  };
}

/**
 * Watches what an operator must hear about, every `intervalMs`: providers down or back, a spike of refunds, the
 * service wallet running low, orders stuck past their provider's time, and the books. Each condition's state
 * lives in the database, and a change is claimed by one guarded update (db/alerts.ts), so of several instances
 * exactly one tells it; a condition is told when it starts, again every `repeatMs` while it lasts, and when it ends.
 */
export function createMonitor(options: MonitorOptions) {
  const { db, clock, settings, log } = options;
  const checks = createChecks(options);
  const settled = createProviderVerdicts();
  const teller = createTeller(settings, log);
  const database = options.faults ? createDatabaseWatch(options.faults, settings) : null;

  async function round(): Promise<void> {
    const now = clock.now();
    // First, and whatever the checks below meet: they read (and claim through) the database that may have failed.
    const told = database?.(now);
    if (told) teller.tell(told.condition, told.state, now);
    const found = await Promise.all([
      checks.providers(),
      checks.refunds(now),
      checks.wallet(),
      checks.stuck(now),
      checks.held(),
      checks.ledger(now),
      checks.cryptoPay(),
      checks.invoices(now),
      checks.anomalies(now),
      checks.starBook(),
      checks.unmatched(now),
      checks.shortRefunds(now),
    ]);
    const conditions = found.flat().filter((c): c is Condition => c !== null && settled(c));
    const at = { now: now.toISOString(), repeatBefore: new Date(now.getTime() - settings.repeatMs).toISOString() };
    for (const condition of conditions) {
      const state = await claimTransition(db, condition, at);
      if (state) teller.tell(condition, state, now);
    }
  }

  const loop = createLoop({
    name: "monitor",
    intervalMs: settings.intervalMs,
    run: round,
    failed: undefined,
    failure: "monitor round failed; the next one will try again",
    log,
    scope: options.scope,
  });

  const job = {
    name: "monitor",
    /** Runs one round of checks now (or joins the one under way). */
    runOnce: loop.runOnce,
    start: loop.start,
    stop: loop.stop,
    /** A round holds no lease. */
    underWay: () => ({}),
    handBack: async () => ({}),
    /** Told of every alert to send (the bot sends it to the administrators). Must not throw. */
    onAlert(listener: (alert: Alert) => void) {
      teller.listeners.push(listener);
    },
    /** What the metrics show of the backlog, read when scraped. */
    backlog: () => readBacklog(db, clock),
  };
  return job satisfies Job;
}

/** What the metrics show of the backlog: processing orders (and the oldest one's age), webhook events waiting. */
export async function readBacklog(db: Db, clock: Clock) {
  const read = await backlog(db);
  return {
    processing: read.processing,
    oldestProcessingSeconds: read.oldestProcessing ? Math.max(0, (clock.now().getTime() - Date.parse(read.oldestProcessing)) / 1000) : 0,
    webhooksPending: read.webhooksPending,
  };
}
