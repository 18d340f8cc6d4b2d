import type { Db } from "../db/database.js";
import type { EventTarget } from "../db/outbox.js";
import type { OneStatementWrites } from "../db/placement.js";
import { type Finish, isUniqueViolation, markFinished, markHeld, markPending, orderById } from "../db/orders.js";
import { transaction, type Trx } from "../db/transaction.js";
import { post } from "./ledger.js";
import type { Micro } from "./model/money.js";
import type { UpstreamOutcome, UpstreamStatus } from "./ports.js";
import type { Clock } from "./model/clock.js";
import type { SettledHow } from "./purchase.js";
import type { Order } from "./model/products.js";
import type { Vault } from "./vault.js";
import type { Outbox } from "./webhooks/outbox.js";

/** Asks the provider of one product type about an order by our reference. */
/** Asks the order's provider about it (by its reference; a backend without lookups matches by the order itself). */
export type StatusLookup = (order: Order) => Promise<UpstreamStatus>;

/** An order after an outcome was applied, and the balance its refund left (when this call refunded it). */
export interface Applied {
  order: Order;
  /** The funding account's balance right after the refund this call posted; null when it posted none. */
  refundBalanceMicro: Micro | null;
}

export interface SettlementOptions {
  db: Db;
  clock: Clock;
  /** recheckMs: how soon a pending order is asked again; inFlightMs: how long a provider call may still land. */
  timing: { recheckMs: number; inFlightMs: number };
  /** Each product type's status lookup at its provider. */
  lookups: Record<string, StatusLookup>;
  vault: Vault;
  outbox: Outbox;
  /** The storage's one-statement writes where it has them (PostgreSQL): a finish is then one round trip. */
  oneStatement?: OneStatementWrites;
}

/** A one-statement finish's work where the storage has no one statement for it (SQLite): the final state, then a failure's refund. */
async function finishInSteps(trx: Trx, orderId: number, finish: Finish, at: string): Promise<Applied | undefined> {
  const order = await markFinished(trx, orderId, finish, at);
  if (!order) return undefined;
  if (finish.status === "completed") return { order, refundBalanceMicro: null };
  const refundBalanceMicro = await post(trx, {
    accountId: order.fundingAccountId,
    amountMicro: order.chargeMicro,
    kind: "refund",
    orderId,
    actor: "system",
    note: finish.error,
    at,
  });
  return { order, refundBalanceMicro };
}

/** The final state a provider's completion or failure makes of an order (a gift card's codes sealed). */
function finishOf(
  outcome: Extract<UpstreamOutcome, { kind: "completed" | "failed" }>,
  provider: Pick<Finish, "providerOrderId" | "providerStatus">,
  vault: Vault,
): Finish {
  return outcome.kind === "completed"
    ? {
        status: "completed",
        ...provider,
        transactionId: outcome.transactionId ?? null,
        sealedCodes: outcome.codes ? vault.seal(outcome.codes) : null,
      }
    : { status: "failed", ...provider, error: outcome.error, reason: outcome.reason ?? "provider_error" };
}

/**
 * Writes the final state (and a failure's refund) with the order's event; undefined when it was not this call
 * that finished the order (already final). `endpoint`: the account's webhook endpoint, when the placement read it.
 */
async function writeFinish(
  { db, outbox, oneStatement }: SettlementOptions,
  orderId: number,
  finish: Finish,
  at: string,
  endpoint: boolean | undefined,
): Promise<Applied | undefined> {
  // An account without a webhook endpoint has no event to write: one statement does it (on PostgreSQL).
  const atOnce = endpoint || !oneStatement ? undefined : await oneStatement.finish(db, orderId, finish, at);
  if (atOnce) return atOnce;
  // The order's event is written in the same transaction: it commits with the final state, or neither does.
  const finishing = await transaction(db, async (trx) => {
    const applied: (Applied & { eventTarget?: EventTarget | null }) | undefined = oneStatement
      ? await oneStatement.finish(trx, orderId, finish, at, { pendingMax: outbox.pendingMax })
      : await finishInSteps(trx, orderId, finish, at);
    return applied && { event: await outbox.orderFinished(trx, applied.order, applied.eventTarget), ...applied };
  });
  if (!finishing) return undefined;
  if (finishing.event) outbox.committed();
  return finishing;
}

/**
 * Applies provider outcomes to orders: completion, failure with its one refund, and "ask again later".
 * Whichever path sees an outcome first (the purchase itself, a client poll, the reconciler) applies it;
 * the others find the order final.
 */
export function createSettlement(options: SettlementOptions) {
  const { db, clock, timing, lookups, vault } = options;
  const { recheckMs } = timing;
  const listeners: Array<(order: Order, how: SettledHow) => void> = [];
  const byId = async (id: number): Promise<Order> => {
    const order = await orderById(db, id);
    if (!order) throw new Error(`order ${id} does not exist`);
    return order;
  };

  /** Only a `processing` order changes, so a failure is refunded once however many paths see it. */
  async function apply(orderId: number, outcome: UpstreamOutcome, how: SettledHow = { inline: false }): Promise<Applied> {
    const unchanged = async (): Promise<Applied> => ({ order: await byId(orderId), refundBalanceMicro: null });
    if (outcome.kind === "unknown") return unchanged();
    const at = clock.now().toISOString();
    const provider = { providerOrderId: outcome.providerOrderId, providerStatus: outcome.providerStatus };
    if (outcome.kind === "pending") {
      // The provider has the order: ask again soon (the long first wait only guards "never received").
      const soon = new Date(clock.now().getTime() + recheckMs).toISOString();
      const order = await markPending(db, orderId, { provider, soon, at });
      return order ? { order, refundBalanceMicro: null } : unchanged();
    }
    const finish: Finish = { ...finishOf(outcome, provider, vault), decided: how.decided };
    const applied = await writeFinish(options, orderId, finish, at, how.endpoint).catch(async (error: unknown) => {
      // Another order holds that transaction already (two settled at once): this delivery stands without it.
      if (finish.status !== "completed" || finish.transactionId === null || !isUniqueViolation(error)) throw error;
      return writeFinish(options, orderId, { ...finish, transactionId: null }, at, how.endpoint);
    });
    return applied ? finished(applied, how) : unchanged();
  }

  /** Tells the listeners of an order this call finished. */
  function finished(applied: Applied, how: SettledHow): Applied {
    for (const listener of listeners) listener(applied.order, how);
    return { order: applied.order, refundBalanceMicro: applied.refundBalanceMicro };
  }

  /**
   * Brings a `processing` order up to date with its provider. "No such order" counts as a failure only
   * once the order is older than any in-flight call could be (check_after has passed).
   */
  async function refresh(order: Order): Promise<Order> {
    // A held order waits for an administrator's decision (admin `resolve`), whoever asks.
    if (order.status !== "processing" || order.held !== null) return order;
    const lookup = lookups[order.productType];
    if (!lookup) return order;
    let status: UpstreamStatus;
    try {
      status = await lookup(order);
    } catch (error) {
      status = { kind: "unknown", error: String(error) };
    }
    if (status.kind === "not_found") {
      // Only an order the provider never acknowledged, and older than any call in flight could be, was never
      // received. Judged by its age, not by check_after, which claims and a stop's hand-back move.
      const old = Date.parse(order.createdAt) + timing.inFlightMs <= clock.now().getTime();
      if (!old || order.providerOrderId !== null) return order;
      status = { kind: "failed", error: "The provider never received the order", reason: "order_not_found" };
    }
    if (status.kind === "ambiguous") {
      // Neither completed nor refunded by a guess: an administrator decides (the `held` alert says so).
      return (await markHeld(db, order.id, status.error, clock.now().toISOString())) ?? byId(order.id);
    }
    return settle(order.id, status);
  }

  /** Applies an outcome; returns the order as it is now. */
  const settle = async (orderId: number, outcome: UpstreamOutcome, how?: SettledHow): Promise<Order> => (await apply(orderId, outcome, how)).order;

  return {
    settle,
    apply,
    refresh,
    /** Called once per order when it reaches `completed` or `failed` (the bot's notifications). Must not throw. */
    onSettled(listener: (order: Order, how: SettledHow) => void) {
      listeners.push(listener);
    },
  };
}

export type Settlement = ReturnType<typeof createSettlement>;
