import type { BackgroundScope, CryptoPayPort } from "../core/ports.js";
import type { Clock } from "../core/model/clock.js";
import type { Topups } from "../core/topups.js";
import type { Db } from "../db/database.js";
import { createClaims } from "../db/leases.js";
import { claimDueInvoices, releaseInvoices, rescheduleInvoice } from "../db/topups.js";
import { createLeasedJob, type JobLog, type LeaseState } from "./loop.js";

export interface TopupPollOptions {
  db: Db;
  clock: Clock;
  topups: Topups;
  cryptoPay: CryptoPayPort;
  /** How often a pass runs: every open invoice is looked at once a pass. */
  intervalMs: number;
  /** How long a claim holds an invoice: one provider call's time. */
  leaseMs: number;
  log: JobLog;
  scope?: BackgroundScope;
}

/** Invoices asked about in one call (the provider takes up to 100 ids), and at most per pass. */
const BATCH = 100;
const PASS_MAX = 2_000;

/**
 * The path that never misses a payment: every open invoice is asked about on a schedule (leased, like the
 * reconciler's orders, so of several instances one asks), so an invoice paid while the service was down, or
 * whose webhook was lost, is still credited; an expired one is closed. The webhook is only the fast path.
 */
export function createTopupPoll(options: TopupPollOptions) {
  const { db, clock, topups, cryptoPay, log } = options;
  const claims = createClaims();

  async function pass(state: LeaseState): Promise<number> {
    let seen = 0;
    // A pass takes what was due when it started, and each invoice it looks at is due again half an interval on:
    // in the next pass (a whole interval would miss that by the pass's own length), never again in this one.
    const started = clock.now().getTime();
    const dueBy = new Date(started).toISOString();
    const next = new Date(started + options.intervalMs / 2).toISOString();
    await topups
      .sweepCreating()
      .catch((error: unknown) => log.warn({ err: error }, "topup-poll could not settle invoices cut short; it will try again"));
    while (seen < PASS_MAX && !state.stopping) {
      const until = new Date(clock.now().getTime() + options.leaseMs).toISOString();
      const claimed = await claimDueInvoices(db, claims, { now: dueBy, until, limit: BATCH });
      if (!claimed.length) break;
      seen += claimed.length;
      try {
        const { found, unreadable } = await cryptoPay.invoices(claimed.flatMap((t) => (t.invoiceId === null ? [] : [t.invoiceId])));
        for (const invoice of found) {
          const seenBy = await topups.invoiceSeen(invoice);
          if (seenBy.unknown) log.warn({ invoiceId: invoice.invoiceId }, "an invoice the poll asked about ties to no top-up; ignored");
        }
        // An invoice listed but unreadable is still there: only one not listed at all is gone.
        const known = new Set([...found.map((invoice) => invoice.invoiceId), ...unreadable]);
        for (const topup of claimed) if (topup.invoiceId !== null && !known.has(topup.invoiceId)) await topups.invoiceGone(topup.id);
        if (!state.handedBack) for (const topup of claimed) await rescheduleInvoice(db, topup.id, until, next);
      } catch (error) {
        // The leases lapse and the invoices are asked about again: nothing is missed.
        log.warn({ err: error, invoices: claimed.length }, "topup-poll could not ask about invoices; it will try again");
        break;
      } finally {
        for (const topup of claimed) claims.drop(topup.id);
      }
    }
    return seen;
  }

  // `runOnce` runs one pass now (or joins the one under way) and resolves to the number of invoices asked about.
  return createLeasedJob({
    name: "topup-poll",
    intervalMs: options.intervalMs,
    pass,
    failed: 0,
    failure: "topup-poll pass failed; the next one will try again",
    log,
    scope: options.scope,
    underWay: () => ({ invoiceChecks: claims.size }),
    release: async () => ({ invoices: await releaseInvoices(db, claims, clock.now().toISOString()) }),
  });
}
