import type { Orders } from "./orders.js";

export interface ReconcilerLog {
  warn(obj: object, msg: string): void;
}

/**
 * Drives every `processing` order to a terminal state, so an order nobody polls still completes or is
 * refunded, and an order left behind by a crash is settled after restart. One pass at a time per process.
 */
export function createReconciler(orders: Orders, intervalMs: number, log: ReconcilerLog) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  async function pass(): Promise<number> {
    let settled = 0;
    for (const order of await orders.due(50)) {
      try {
        const after = await orders.refresh(order);
        if (after.status === "processing") await orders.reschedule(after);
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
