import type { BackgroundScope } from "../core/ports.js";
import type { StarBook } from "../core/star-book.js";
import type { Topups } from "../core/topups.js";
import { createTimedJob, type JobLog } from "./loop.js";

// The bot's Stars, looked at on a schedule. Every step is once-only in the database, so instances running these at
// the same time do no harm.

interface Options {
  intervalMs: number;
  log: JobLog;
  scope?: BackgroundScope;
}

/**
 * The path that never misses a Stars payment: the bot's Star transactions are read, so a payment whose
 * successful_payment was lost (or came while no instance ran) is credited, a refund Telegram made is taken back,
 * and unpaid Stars top-ups past their time expire.
 */
export const createStarsSettle = (options: Options & { topups: Topups }) =>
  createTimedJob({
    name: "stars-settle",
    run: () => options.topups.settleStars(),
    failed: { credited: 0, refunded: 0, expired: 0 },
    failure: "stars-settle could not read the bot's Star transactions; it will try again",
    ...options,
  });

/**
 * The bot's Star book reconciled with Telegram's transactions and balance; the result is kept in the database,
 * where the monitor reads it (the `starbook` alert).
 */
export const createStarBookCheck = (options: Options & { starBook: StarBook }) =>
  createTimedJob({
    name: "star-book",
    run: () => options.starBook.reconcile(),
    failed: null,
    failure: "star-book could not reconcile the bot's Stars; it will try again",
    ...options,
  });
