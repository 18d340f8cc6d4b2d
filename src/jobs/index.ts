import type { Config } from "../config.js";
import type { Core } from "../core/index.js";
import type { Clock } from "../core/model/clock.js";
import type { CryptoPayPort } from "../core/ports.js";
import { botInbox } from "../db/bot-inbox.js";
import { botStateStore } from "../db/bot-state.js";
import type { Db } from "../db/database.js";
import type { FaultLog } from "../db/faults.js";
import { withRequestId } from "../observability/context.js";
import type { FundsSource } from "../upstream/products.js";
import { createHealthProbe } from "./health-probe.js";
import type { JobLog } from "./loop.js";
import { createMonitor } from "./monitor.js";
import { createPurges } from "./purges.js";
import { createReconciler } from "./reconciler.js";
import { createStarBookCheck, createStarsSettle } from "./stars.js";
import { createTopupPoll } from "./topup-poll.js";
import { createWebhookDispatch } from "./webhook-dispatch.js";

/** The sections of the deployment the jobs read. */
type JobsConfig = Pick<Config, "sales" | "webhooks" | "alerts" | "upstream" | "topups" | "starBook" | "bot">;

export interface JobsOptions {
  core: Core;
  db: Db;
  /** The request counters' own pool (PostgreSQL), purged of windows past. */
  counterDb: Db | undefined;
  /** The rate limit's window (src/api/plugins/rate-limit.ts): counts older than it are purged. */
  rateLimitWindowMs: number;
  clock: Clock;
  log: JobLog;
  cryptoPay: CryptoPayPort | null;
  faults: FaultLog;
  /** The balances backends pay deliveries from (src/upstream/products.ts), each alerted under its own line. */
  funds: FundsSource[];
  linkDeliveries: (() => Promise<number>) | undefined;
}

/**
 * The background jobs over the core, built but not started. A job has one name, its file's, in code, logs and the
 * lifecycle; each run is logged under an id made of it (reconciler-<n>, webhook-dispatch-<event id>, monitor-<n>,
 * purges-quotes-<n>, …).
 */
export function openJobs(config: JobsConfig, on: JobsOptions) {
  const { core, db, clock, log } = on;
  const scope = withRequestId;
  const { reconcile } = config.sales;
  const jobs = {
    // An order younger than RECONCILE_AFTER_MS may still have its provider call in flight: a claim leases it that long.
    reconciler: createReconciler({
      db,
      clock,
      settlement: core.settlement,
      intervalMs: reconcile.intervalMs,
      leaseMs: reconcile.afterMs,
      log,
      scope,
      linkDeliveries: on.linkDeliveries,
    }),
    webhookDispatch: createWebhookDispatch({ db, clock, send: core.webhooks.send, settings: config.webhooks, log, scope }),
    healthProbe: createHealthProbe({ db, clock, health: core.health, intervalMs: config.upstream.healthProbeMs, log, scope }),
    monitor: createMonitor({
      db,
      clock,
      health: core.health.current,
      settings: config.alerts,
      cryptoPay: on.cryptoPay,
      funds: on.funds.map(({ source, unit, read }) => ({ source, threshold: config.alerts.fundsBelow[unit], read })),
      faults: on.faults,
      starBook: core.starBook.active(),
      log,
      scope,
    }),
    purges: createPurges({
      db,
      clock,
      requestCounts: on.counterDb ? { db: on.counterDb, windowMs: on.rateLimitWindowMs } : undefined,
      webhookRetentionMs: config.webhooks.retentionMs,
      contactsRetentionMs: config.sales.recipients.contactsRetentionMs,
      botSessions: config.bot ? botStateStore(db, clock) : undefined,
      botInbox: config.bot ? botInbox(db) : undefined,
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
        intervalMs: config.topups.limits.pollMs,
        leaseMs: config.upstream.timeoutMs + 5_000,
        log,
        scope,
      })
    : null;
  // The bot's Star transactions are read on a schedule, so a Stars payment whose update was lost is still credited.
  const starsSettle = core.topups.methods().stars
    ? createStarsSettle({ topups: core.topups, intervalMs: config.topups.limits.pollMs, log, scope })
    : null;
  // The bot's Star book against Telegram's transactions and balance (a difference is the monitor's `starbook` alert).
  const starBook = config.starBook ? createStarBookCheck({ starBook: core.starBook, intervalMs: config.starBook.checkMs, log, scope }) : null;
  return { ...jobs, ...(topupPoll ? { topupPoll } : {}), ...(starsSettle ? { starsSettle } : {}), ...(starBook ? { starBook } : {}) };
}

export type Jobs = ReturnType<typeof openJobs>;
