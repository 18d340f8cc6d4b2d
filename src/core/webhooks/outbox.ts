import type { Executor } from "../../db/database.js";
import { type EventTarget, eventTarget, insertEvent } from "../../db/outbox.js";
import { countDropped } from "../../db/webhook-endpoints.js";
import { spendable } from "../accounts.js";
import type { Account } from "../model/account.js";
import type { Micro } from "../model/money.js";
import type { Clock } from "../model/clock.js";
import type { Order } from "../model/products.js";

export type WebhookEventType = "order.completed" | "order.failed" | "balance.changed" | "ping";

/** An event's type and body, before it is given an id and a time. */
export interface EventBody<T extends WebhookEventType = WebhookEventType, D extends object = object> {
  type: T;
  data: D;
}

/** What is POSTed, byte for byte on every attempt. */
export interface EventEnvelope {
  id: string;
  type: WebhookEventType;
  created_at: string;
  /** True for events of sandbox calls and pings: nothing was charged or delivered. */
  test: boolean;
  data: object;
}

export interface BalanceChange {
  /** An administrator's credit or debit, a top-up credited, or a refunded top-up's credit taken back. */
  kind: "credit" | "debit" | "topup" | "reversal";
  amountMicro: Micro;
  balanceAfterMicro: Micro;
  note: string | null;
}

/**
 * What each event says on the wire (src/wire/events.ts, handed in at the composition root): the core decides
 * when an event happens and stores what these render, in the transaction of the change it reports.
 */
export interface EventWriter {
  order(order: Order, balanceMicro: Micro): EventBody<"order.completed" | "order.failed">;
  balanceChanged(change: BalanceChange): EventBody<"balance.changed">;
  ping(): EventBody<"ping">;
  sandbox(answer: object): EventBody<"order.completed">;
  /** The envelope of an event made at `at`, with a fresh `evt_` id. */
  envelope(event: EventBody, at: string, test: boolean): EventEnvelope;
}

/**
 * Writes events into the outbox, in the caller's transaction: the event commits with the change it reports,
 * or not at all. Only accounts with an endpoint get events (one indexed read otherwise). An account with
 * `pendingMax` events waiting gets no more queued: each further one is counted as dropped (the partner sees the
 * count and the last time on GET /v1/webhook, and catches up from the orders and the statement), so no key can
 * grow the outbox without bound.
 */
export function createOutbox({ clock, events, pendingMax }: { clock: Clock; events: EventWriter; pendingMax: number }) {
  const wakers: Array<() => void> = [];

  /**
   * An event for the account, rendered from the account as this transaction reads it (or as the statement of the
   * change already read it: `read`), or null when it has no endpoint; a full outbox counts it as dropped instead.
   */
  async function write(
    trx: Executor,
    accountId: number,
    render: (account: Account) => Promise<EventBody> | EventBody,
    options: { orderId?: number; test?: boolean } = {},
    read?: EventTarget | null,
  ) {
    const target = read === undefined ? await eventTarget(trx, accountId, pendingMax) : read;
    if (!target) return null;
    const at = clock.now().toISOString();
    if (target.full) {
      await countDropped(trx, accountId, at);
      return null;
    }
    const envelope = events.envelope(await render(target.account), at, options.test ?? false);
    return insertEvent(trx, {
      eventId: envelope.id,
      accountId,
      type: envelope.type,
      orderId: options.orderId ?? null,
      test: envelope.test,
      payload: JSON.stringify(envelope),
      at: envelope.created_at,
    });
  }

  /** An event for the account, or null when it has no endpoint. */
  const record = (trx: Executor, accountId: number, body: EventBody, options: { orderId?: number; test?: boolean } = {}) =>
    write(trx, accountId, () => body, options);

  return {
    record,

    /** The bound on an account's waiting events, for a statement that reads the event's target itself. */
    pendingMax,

    /**
     * An order that reached completed or failed (and refunded), with the balance of its key right after; `target`
     * when the statement that finished it read it (see db/placement.ts's finishAtOnce).
     */
    orderFinished: (trx: Executor, order: Order, target?: EventTarget | null) =>
      write(
        trx,
        order.accountId,
        async (account) => events.order(order, (await spendable(trx, account, clock.now(), false)).availableMicro),
        { orderId: order.id },
        target,
      ),

    /** An administrator's credit or debit of the account's balance. */
    balanceChanged: (trx: Executor, accountId: number, change: BalanceChange) => record(trx, accountId, events.balanceChanged(change)),

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
