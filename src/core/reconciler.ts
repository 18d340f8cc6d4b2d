import type { Db } from "../db/database.js";
import type { Clock } from "./ports.js";
import type { Settlement } from "./settlement.js";

export interface ReconcilerLog {
  warn(obj: object, msg: string): void;
}

const BATCH = 50;
const MAX_RECHECK_MS = 5 * 60 * 1000;

/**
 * Drives every `processing` order to a terminal state, so an order nobody polls still completes or is
 * refunded, and an order left behind by a crash is settled after restart. One pass at a time per process;
 * an order still pending is asked again later, each time twice as late (at most 5 minutes).
 */
export function createReconciler(db: Db, clock: Clock, settlement: Settlement, intervalMs: number, log: ReconcilerLog) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const due = () =>
    db
      .selectFrom("orders")
      .selectAll()
      .where("status", "=", "processing")
      .where("check_after", "<=", clock.now().toISOString())
      .orderBy("check_after")
      .limit(BATCH)
      .execute();

  async function reschedule(orderId: number, attempts: number): Promise<void> {
    const now = clock.now();
    const delay = Math.min(intervalMs * 2 ** Math.min(attempts, 16), MAX_RECHECK_MS);
    await db
      .updateTable("orders")
      .set({ check_after: new Date(now.getTime() + delay).toISOString(), check_attempts: attempts + 1, updated_at: now.toISOString() })
      .where("id", "=", orderId)
      .where("status", "=", "processing")
      .execute();
  }

  async function pass(): Promise<number> {
    let settled = 0;
    for (const order of await due()) {
      try {
        const after = await settlement.refresh(order);
        if (after.status === "processing") await reschedule(after.id, after.check_attempts);
        else settled += 1;
      } catch (error) {
        log.warn({ orderId: order.id, err: error }, "reconciler could not refresh an order");
      }
    }
    return settled;
  }

  return {
    /** Runs one pass now (or joins the one under way); resolves to the number of orders it settled. */
    runOnce(): Promise<number> {
      running ??= pass().finally(() => {
        running = undefined;
      });
      return running;
    },
    start() {
      timer ??= setInterval(() => void this.runOnce(), intervalMs);
      timer.unref();
      void this.runOnce();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
