import { insertAudit } from "../db/accounts.js";
import type { Db } from "../db/database.js";
import { heldOrders, orderById } from "../db/orders.js";
import { invalid, notFound } from "./model/errors.js";
import type { Clock } from "./model/clock.js";
import type { Order } from "./model/products.js";
import type { Settlement } from "./settlement.js";

/** What an administrator decides of a held order: it was delivered (the charge stands), or it was not (refunded). */
export type HeldDecision = "delivered" | "refund";

/**
 * Orders held because the backend's records cannot tell whether they were delivered (two orders to one user for the
 * same gift or months, fewer transactions than orders): the reconciler never guesses; an administrator decides.
 */
export function createHeldOrders({ db, clock, settlement }: { db: Db; clock: Clock; settlement: Settlement }) {
  return {
    /** The held orders, the oldest first. */
    list: (limit = 100): Promise<Order[]> => heldOrders(db, limit),

    /** Completes or refunds one held order (once: a second decision finds it final), with an audit entry. */
    async resolve(orderId: number, decision: HeldDecision, actor: string): Promise<Order> {
      const order = await orderById(db, orderId);
      if (!order) throw notFound(`No order #${orderId}`);
      if (order.status !== "processing" || order.held === null)
        throw invalid(`Order #${orderId} is not held (it is ${order.status}): only a held order is decided by hand`);
      const settled = await settlement.settle(
        orderId,
        decision === "delivered"
          ? { kind: "completed" }
          : { kind: "failed", error: "Refunded by an administrator: its delivery could not be confirmed", reason: "provider_error" },
        { inline: false, decided: true },
      );
      await insertAudit(db, {
        actor,
        action: "order_resolved",
        accountId: order.accountId,
        details: { orderId, decision, held: order.held },
        at: clock.now().toISOString(),
      });
      return settled;
    },
  };
}
