import type { Db } from "../db/database.js";
import { unbalancedAccounts } from "./ledger.js";
import { type Micro, toUsdt } from "./money.js";
import { PRODUCTS } from "./products/index.js";
import type { Clock, ProviderName } from "./ports.js";

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
}

export type AlertKind = "provider" | "refunds" | "wallet" | "stuck" | "ledger";

/** One change to tell administrators: a condition started firing, is still firing (a reminder), or stopped. */
export interface Alert {
  key: string;
  kind: AlertKind;
  state: "firing" | "reminder" | "resolved";
  details: Record<string, string | number>;
  /** Alerts held back by the hourly limit since the last one sent. */
  suppressed: number;
}

interface Condition {
  key: string;
  kind: AlertKind;
  firing: boolean;
  details: Record<string, string | number>;
}

export interface MonitorLog {
  warn(obj: object, msg: string): void;
}

const settleWithin = new Map<string, number>(PRODUCTS.map((p) => [p.type, p.settlesWithinMs]));

/**
 * Watches what an operator must hear about, every `intervalMs`: providers down or back, a spike of refunds, the
 * service wallet running low, orders stuck past their provider's time, and the books. Each condition's state
 * lives in the database, and a change is claimed by one guarded update, so of several instances exactly one
 * tells it; a condition is told when it starts, again every `repeatMs` while it lasts, and when it ends.
 */
export function createMonitor(
  db: Db,
  clock: Clock,
  health: () => Promise<{ ready: Record<ProviderName, boolean>; configured: Record<ProviderName, boolean> }>,
  settings: MonitorSettings,
  log: MonitorLog,
) {
  const listeners: Array<(alert: Alert) => void> = [];
  const sentAt: number[] = [];
  let suppressed = 0;
  let lastLedgerCheck = -Infinity;
  let ledgerCondition: Condition | null = null;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function providers(): Promise<Condition[]> {
    const { ready, configured } = await health();
    return (Object.keys(ready) as ProviderName[])
      .filter((name) => configured[name])
      .map((name) => ({ key: `provider:${name}`, kind: "provider" as const, firing: !ready[name], details: { provider: name } }));
  }

  async function refunds(now: Date): Promise<Condition> {
    const since = new Date(now.getTime() - settings.refundWindowMs).toISOString();
    const row = await db
      .selectFrom("orders")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "failed")
      .where("completed_at", ">=", since)
      .executeTakeFirstOrThrow();
    const count = Number(row.n);
    const minutes = Math.round(settings.refundWindowMs / 60_000);
    return {
      key: "refunds",
      kind: "refunds",
      firing: count >= settings.refundThreshold,
      details: { count, minutes, threshold: settings.refundThreshold },
    };
  }

  async function wallet(): Promise<Condition | null> {
    const owner = await db.selectFrom("accounts").select("id").where("kind", "=", "owner").limit(1).executeTakeFirst();
    if (!owner) return null;
    const row = await db.selectFrom("accounts").select("balance_micro").where("kind", "=", "wallet").executeTakeFirstOrThrow();
    const balance = Number(row.balance_micro);
    return {
      key: "wallet",
      kind: "wallet",
      firing: balance < settings.walletBelowMicro,
      details: { balance_usdt: toUsdt(balance), threshold_usdt: toUsdt(settings.walletBelowMicro) },
    };
  }

  async function stuck(now: Date): Promise<Condition> {
    // Processing orders are few (the reconciler settles them); the oldest come first.
    const rows = await db
      .selectFrom("orders")
      .select(["id", "product_type", "created_at"])
      .where("status", "=", "processing")
      .orderBy("created_at")
      .limit(500)
      .execute();
    const late = rows.filter((r) => now.getTime() - Date.parse(r.created_at) > (settleWithin.get(r.product_type) ?? 0));
    const oldest = late[0];
    return {
      key: "stuck",
      kind: "stuck",
      firing: late.length > 0,
      details: oldest ? { count: late.length, order_id: Number(oldest.id), product: oldest.product_type, since: oldest.created_at } : { count: 0 },
    };
  }

  /** The books, at most every `ledgerEveryMs`: between checks the last verdict stands. */
  async function ledger(now: Date): Promise<Condition | null> {
    if (now.getTime() - lastLedgerCheck >= settings.ledgerEveryMs) {
      lastLedgerCheck = now.getTime();
      const broken = await unbalancedAccounts(db);
      ledgerCondition = {
        key: "ledger",
        kind: "ledger",
        firing: broken.length > 0,
        details: broken.length ? { accounts: broken.length, account_id: broken[0].accountId } : { accounts: 0 },
      };
    }
    return ledgerCondition;
  }

  /** Claims the condition's change in the shared state; only the instance whose update changed it tells it. */
  async function transition(condition: Condition, now: Date): Promise<Alert["state"] | null> {
    const at = now.toISOString();
    const details = JSON.stringify(condition.details);
    await db
      .insertInto("alert_states")
      .values({ key: condition.key, firing: false, since: at })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
    const state = db.updateTable("alert_states").where("key", "=", condition.key);
    if (!condition.firing) {
      const ended = await state.where("firing", "=", true).set({ firing: false, since: at, details }).executeTakeFirst();
      return Number(ended.numUpdatedRows) > 0 ? "resolved" : null;
    }
    const started = await state.where("firing", "=", false).set({ firing: true, since: at, last_sent_at: at, details }).executeTakeFirst();
    if (Number(started.numUpdatedRows) > 0) return "firing";
    const due = new Date(now.getTime() - settings.repeatMs).toISOString();
    const again = await state.where("firing", "=", true).where("last_sent_at", "<=", due).set({ last_sent_at: at, details }).executeTakeFirst();
    return Number(again.numUpdatedRows) > 0 ? "reminder" : null;
  }

  function tell(condition: Condition, state: Alert["state"], now: Date) {
    log.warn({ alert: condition.key, state, ...condition.details }, "alert");
    const hourAgo = now.getTime() - 3_600_000;
    while (sentAt.length && sentAt[0] < hourAgo) sentAt.shift();
    if (sentAt.length >= settings.maxPerHour) {
      suppressed += 1;
      return;
    }
    sentAt.push(now.getTime());
    const alert: Alert = { key: condition.key, kind: condition.kind, state, details: condition.details, suppressed };
    suppressed = 0;
    for (const listener of listeners) listener(alert);
  }

  /**
   * A provider's health is this instance's own probe: its verdict counts only once two rounds in a row agree,
   * so one failed probe, or two instances seeing a flapping provider differently, does not flood the admins.
   */
  const verdicts = new Map<string, { firing: boolean; rounds: number }>();
  function settled(condition: Condition): boolean {
    if (condition.kind !== "provider") return true;
    const last = verdicts.get(condition.key);
    const rounds = last && last.firing === condition.firing ? last.rounds + 1 : 1;
    verdicts.set(condition.key, { firing: condition.firing, rounds });
    return rounds >= 2;
  }

  async function check(): Promise<void> {
    const now = clock.now();
    const found = await Promise.all([providers(), refunds(now), wallet(), stuck(now), ledger(now)]);
    const conditions = found.flat().filter((c): c is Condition => c !== null && settled(c));
    for (const condition of conditions) {
      const state = await transition(condition, now);
      if (state) tell(condition, state, now);
    }
  }

  return {
    /** Runs one round of checks now (or joins the one under way). */
    runOnce(): Promise<void> {
      running ??= check()
        .catch((error: unknown) => log.warn({ err: error }, "monitor round failed; the next one will try again"))
        .finally(() => {
          running = undefined;
        });
      return running;
    },
    start() {
      timer ??= setInterval(() => void this.runOnce(), settings.intervalMs);
      timer.unref();
      void this.runOnce();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
    /** Told of every alert to send (the bot sends it to the administrators). Must not throw. */
    onAlert(listener: (alert: Alert) => void) {
      listeners.push(listener);
    },

    /** What the metrics show of the backlog, read when scraped. */
    async backlog() {
      const orders = await db
        .selectFrom("orders")
        .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
        .where("status", "=", "processing")
        .executeTakeFirstOrThrow();
      const events = await db
        .selectFrom("webhook_events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      const oldest = orders.oldest === null ? null : String(orders.oldest);
      return {
        processing: Number(orders.n),
        oldestProcessingSeconds: oldest ? Math.max(0, (clock.now().getTime() - Date.parse(oldest)) / 1000) : 0,
        webhooksPending: Number(events.n),
      };
    },
  };
}

export type Monitor = ReturnType<typeof createMonitor>;
