import type { Order } from "../core/model/products.js";
import type { Settlement } from "../core/settlement.js";
import type { BackgroundScope } from "../core/ports.js";
import type { Clock } from "../core/model/clock.js";
import type { Db } from "../db/database.js";
import { claimDueOrders, createClaims, releaseOrders, rescheduleOrder } from "../db/leases.js";
import { createLeasedJob, type JobLog, type LeaseState } from "./loop.js";

export interface ReconcilerOptions {
  db: Db;
  clock: Clock;
  settlement: Settlement;
  /** How often a pass runs, and the first re-check's delay (each later one doubles, up to 5 minutes). */
  intervalMs: number;
  /** How long a claim holds an order: one upstream call's time. */
  leaseMs: number;
  log: JobLog;
  scope?: BackgroundScope;
  /** Links transactions to completed orders that could not read theirs when sent (the Telegram backend's); how many. */
  linkDeliveries?: () => Promise<number>;
}

/** Orders claimed and asked about at once. */
const CLAIM = 8;
/** Orders one pass handles at most, so a pass ends and the next interval starts afresh. */
const PASS_MAX = 400;
export const MAX_RECHECK_MS = 5 * 60 * 1000;

/**
 * Drives every `processing` order to a terminal state, so an order nobody polls still completes or is
 * refunded, and an order left behind by a crash is settled after restart. An order still pending is asked
 * again later, each time twice as late (at most 5 minutes). Several instances share the work through leases
 * (db/leases.ts): each order is asked about by the instance that claimed it.
 */
export function createReconciler(options: ReconcilerOptions) {
  const { db, clock, settlement, intervalMs, log } = options;
  const claims = createClaims();

  const claim = () => {
    const now = clock.now();
    return claimDueOrders(db, claims, { now: now.toISOString(), until: new Date(now.getTime() + options.leaseMs).toISOString(), limit: CLAIM });
  };

  async function reschedule(order: Order): Promise<void> {
    const now = clock.now();
    const delay = Math.min(intervalMs * 2 ** Math.min(order.checkAttempts, 16), MAX_RECHECK_MS);
    await rescheduleOrder(db, order.id, {
      checkAfter: new Date(now.getTime() + delay).toISOString(),
      attempts: order.checkAttempts + 1,
      now: now.toISOString(),
    });
  }

  /** Asks about one claimed order; true when it settled. */
  async function check(order: Order, state: LeaseState): Promise<boolean> {
    try {
      const after = await settlement.refresh(order);
      if (after.status !== "processing") return true;
      // Held for an administrator: never asked about again.
      if (after.held !== null) return false;
      // Rescheduled from the claimed row: a check changes no `check_attempts`.
      if (!state.handedBack) await reschedule(order);
    } catch (error) {
      log.warn({ orderId: order.id, err: error }, "reconciler could not refresh an order");
    } finally {
      claims.drop(order.id);
    }
    return false;
  }

  async function pass(state: LeaseState): Promise<number> {
    if (options.linkDeliveries) {
      // Before the claims: an order linked now is one fewer another order's lost answer could be mistaken for.
      await options.linkDeliveries().catch((error: unknown) => log.warn({ err: error }, "could not link delivered orders to their transactions"));
    }
    let settled = 0;
    for (let seen = 0; seen < PASS_MAX && !state.stopping;) {
      const claimed = await claim();
      if (!claimed.length) break;
      seen += claimed.length;
      settled += (await Promise.all(claimed.map((order) => check(order, state)))).filter(Boolean).length;
    }
    return settled;
  }

  // `runOnce` runs one pass now (or joins the one under way) and resolves to the number of orders it settled.
  return createLeasedJob({
    name: "reconciler",
    intervalMs,
    pass,
    failed: 0,
    failure: "reconciler pass failed; the next one will try again",
    log,
    scope: options.scope,
    /** Orders claimed and being asked about now. */
    underWay: () => ({ reconcilerChecks: claims.size }),
    /** After `stop`: the orders still claimed (checks cut short) are made due again now. */
    release: async () => ({ orders: await releaseOrders(db, claims, clock.now().toISOString()) }),
  });
}
