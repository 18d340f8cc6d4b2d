import type { BackgroundScope } from "../core/ports.js";
import type { Topups } from "../core/topups.js";
import { createLoop, type Job, type JobLog } from "./loop.js";

/**
 * The path that never misses a Stars payment: the bot's Star transactions are read on a schedule, so a payment
 * whose successful_payment was lost (or came while no instance ran) is credited, a refund Telegram made is taken
 * back, and unpaid Stars top-ups past their time expire. Each step is once-only in the database, so two instances
 * running it at once do no harm.
 */
export function createStarsSettle(options: { topups: Topups; intervalMs: number; log: JobLog; scope?: BackgroundScope }) {
  const loop = createLoop({
    name: "stars-settle",
    intervalMs: options.intervalMs,
    run: () => options.topups.settleStars(),
    failed: { credited: 0, refunded: 0, expired: 0 },
    failure: "stars-settle could not read the bot's Star transactions; it will try again",
    log: options.log,
    scope: options.scope,
  });
  return {
    name: "stars-settle",
    runOnce: loop.runOnce,
    start: loop.start,
    stop: loop.stop,
    underWay: () => ({}),
    handBack: async () => ({}),
  } satisfies Job & { runOnce: unknown };
}
