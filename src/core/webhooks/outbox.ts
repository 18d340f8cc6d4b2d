import { randomUUID } from "node:crypto";
import type { Executor } from "../../db/database.js";
import { insertEvent } from "../../db/outbox.js";
import { hasEndpoint } from "../../db/webhook-endpoints.js";
import { getAccount, spendable } from "../accounts.js";
import type { Micro } from "../money.js";
import { toUsdt } from "../money.js";
import type { Clock } from "../ports.js";
import type { Order } from "../products/index.js";

export type WebhookEventType = "order.completed" | "order.failed" | "balance.changed" | "ping";

/** How a face shows an order: the events carry the same body as the order's status endpoint (never any codes). */
export type OrderBodyOf = (order: Order, balanceMicro: Micro) => object;

export interface EventEnvelope {
  id: string;
  type: WebhookEventType;
  created_at: string;
  /** True for events of sandbox calls and pings: nothing was charged or delivered. */
  test: boolean;
  data: object;
}

/**
 * Writes events into the outbox, in the caller's transaction: the event commits with the change it reports,
 * or not at all. Only accounts with an endpoint get events (one indexed read otherwise).
 */
export function createOutbox({ clock, orderBody }: { clock: Clock; orderBody: OrderBodyOf }) {
  const wakers: Array<() => void> = [];

  /** The order's body; should a face's view ever throw, a minimal body, so the settlement it rides on still commits. */
  const bodyOf = (order: Order, balanceMicro: Micro): object => {
    try {
      return orderBody(order, balanceMicro);
    } catch {
      return { order_id: order.id, product_type: order.productType, status: order.status };
    }
  };

  function insert(trx: Executor, accountId: number, type: WebhookEventType, data: object, options: { orderId?: number; test?: boolean }) {
    const at = clock.now().toISOString();
    const envelope: EventEnvelope = { id: `evt_${randomUUID().replaceAll("-", "")}`, type, created_at: at, test: options.test ?? false, data };
    return insertEvent(trx, {
      eventId: envelope.id,
      accountId,
      type,
      orderId: options.orderId ?? null,
      test: envelope.test,
      payload: JSON.stringify(envelope),
      at,
    });
  }

  /** An event for the account, or null when it has no endpoint. */
  async function record(trx: Executor, accountId: number, type: WebhookEventType, data: object, options: { orderId?: number; test?: boolean } = {}) {
    return (await hasEndpoint(trx, accountId)) ? insert(trx, accountId, type, data, options) : null;
  }

  return {
    record,

    /** An order that reached completed or failed (and refunded), with the balance of its key right after. */
    async orderFinished(trx: Executor, order: Order) {
      const { accountId } = order;
      if (!(await hasEndpoint(trx, accountId))) return null;
      const funds = await spendable(trx, await getAccount(trx, accountId), clock.now());
      const data = {
        order: bodyOf(order, funds.availableMicro),
        // The codes are never sent: fetch them from the order's status endpoint.
        ...(order.productType === "giftcard" && order.status === "completed" ? { codes_ready: true } : {}),
      };
      return insert(trx, accountId, order.status === "completed" ? "order.completed" : "order.failed", data, { orderId: order.id });
    },

    /** An administrator's credit or debit of the account's balance. */
    balanceChanged(
      trx: Executor,
      accountId: number,
      change: { kind: "credit" | "debit"; amountMicro: Micro; balanceAfterMicro: Micro; note: string | null },
    ) {
      return record(trx, accountId, "balance.changed", {
        kind: change.kind,
        amount_usdt: toUsdt(change.amountMicro),
        balance_usdt: toUsdt(change.balanceAfterMicro),
        note: change.note,
      });
    },

    /** Call after the transaction that recorded events commits: the delivery loop starts at once. */
    committed() {
      for (const wake of wakers) wake();
    },
    onCommitted(wake: () => void) {
      wakers.push(wake);
    },
  };
}

export type Outbox = ReturnType<typeof createOutbox>;
