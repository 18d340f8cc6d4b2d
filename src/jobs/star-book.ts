import type { BackgroundScope } from "../core/ports.js";
import type { StarBook } from "../core/star-book.js";
import { createLoop, type Job, type JobLog } from "./loop.js";

/**
 * The bot's Star book reconciled with Telegram's transactions and balance on a schedule; the result is kept in the
 * database, where the monitor reads it (the `starbook` alert). Each instance may run it: what it books is once-only.
 */
export function createStarBookCheck(options: { starBook: StarBook; intervalMs: number; log: JobLog; scope?: BackgroundScope }) {
  const loop = createLoop({
    name: "star-book",
    intervalMs: options.intervalMs,
    run: () => options.starBook.reconcile(),
    failed: null,
    failure: "star-book could not reconcile the bot's Stars; it will try again",
    log: options.log,
    scope: options.scope,
  });
  return {
    name: "star-book",
    runOnce: loop.runOnce,
    start: loop.start,
    stop: loop.stop,
    underWay: () => ({}),
    handBack: async () => ({}),
  } satisfies Job & { runOnce: unknown };
}
