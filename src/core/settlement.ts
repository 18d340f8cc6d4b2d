import type { Db, Executor } from "../db/database.js";
import type { OrderRow } from "../db/schema.js";
import { post } from "./ledger.js";
import type { Clock, UpstreamOutcome, UpstreamStatus } from "./ports.js";
import type { SettledHow } from "./purchase.js";
import { type Order, toOrder } from "./products/index.js";
import type { Vault } from "./vault.js";
import type { Outbox } from "./webhooks/outbox.js";

/** Asks the provider of one product type about an order by our reference. */
export type StatusLookup = (reference: string) => Promise<UpstreamStatus>;

/**
 * Applies provider outcomes to orders: completion, failure with its one refund, and "ask again later".
 * Whichever path sees an outcome first (the purchase itself, a client poll, the reconciler) applies it;
 * the others find the order final.
 */
export function createSettlement(
  db: Db,
  clock: Clock,
  timing: { recheckMs: number; inFlightMs: number },
  lookups: Record<string, StatusLookup>,
  vault: Vault,
  outbox: Outbox,
) {
  const { recheckMs } = timing;
  const listeners: Array<(order: Order, how: SettledHow) => void> = [];
  const byId = (id: number) => db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  /** Only a `processing` order changes, so a failure is refunded once however many paths see it. */
  async function settle(orderId: number, outcome: UpstreamOutcome, how: SettledHow = { inline: false }): Promise<OrderRow> {
    if (outcome.kind === "unknown") return byId(orderId);
    const at = clock.now().toISOString();
    const provider = {
      ...(outcome.providerOrderId === undefined ? {} : { provider_order_id: outcome.providerOrderId }),
      ...(outcome.providerStatus === undefined ? {} : { provider_status: outcome.providerStatus }),
    };
    // The webhook event is written in the same transaction: it commits with the final state, or neither does.
    const withEvent = async (trx: Executor, row: OrderRow) => ({ row, event: await outbox.orderFinished(trx, row) });
    // The order as this call finished it (and its event), or undefined when it was not this call (pending, or already final).
    const finishing = await db.transaction().execute(async (trx) => {
      const processing = trx.updateTable("orders").where("id", "=", orderId).where("status", "=", "processing");
      if (outcome.kind === "pending") {
        // The provider has the order: ask again soon (the long first wait only guards "never received").
        const soon = new Date(clock.now().getTime() + recheckMs).toISOString();
        await processing.set({ ...provider, updated_at: at }).execute();
        await processing.where("check_after", ">", soon).set({ check_after: soon }).execute();
        return undefined;
      }
      if (outcome.kind === "completed") {
        const completed = await processing
          .set({
            ...provider,
            status: "completed",
            transaction_id: outcome.transactionId ?? null,
            sealed_codes: outcome.codes ? vault.seal(outcome.codes) : null,
            completed_at: at,
            updated_at: at,
            check_after: null,
          })
          .returningAll()
          .executeTakeFirst();
        return completed && withEvent(trx, completed);
      }
      const failed = await processing
        .set({
          ...provider,
          status: "failed",
          error: outcome.error,
          error_code: outcome.reason ?? "provider_error",
          refunded: true,
          completed_at: at,
          updated_at: at,
          check_after: null,
        })
        .returningAll()
        .executeTakeFirst();
      if (!failed) return undefined;
      await post(trx, {
        accountId: Number(failed.funding_account_id),
        amountMicro: Number(failed.charge_micro),
        kind: "refund",
        orderId,
        actor: "system",
        note: outcome.error,
        at,
      });
      return withEvent(trx, failed);
    });
    if (!finishing) return byId(orderId);
    const { row: finished, event } = finishing;
    if (event) outbox.committed();
    const order = toOrder(finished);
    for (const listener of listeners) listener(order, how);
    return finished;
  }

  /**
   * Brings a `processing` order up to date with its provider. "No such order" counts as a failure only
   * once the order is older than any in-flight call could be (check_after has passed).
   */
  async function refresh(row: OrderRow): Promise<OrderRow> {
    if (row.status !== "processing") return row;
    const lookup = lookups[row.product_type];
    if (!lookup) return row;
    let status: UpstreamStatus;
    try {
      status = await lookup(row.upstream_ref);
    } catch (error) {
      status = { kind: "unknown", error: String(error) };
    }
    if (status.kind === "not_found") {
      // Only an order the provider never acknowledged, and older than any call in flight could be, was never
      // received. Judged by its age, not by check_after, which claims and a stop's hand-back move.
      const old = Date.parse(row.created_at) + timing.inFlightMs <= clock.now().getTime();
      if (!old || row.provider_order_id !== null) return row;
      status = { kind: "failed", error: "The provider never received the order", reason: "order_not_found" };
    }
    return settle(row.id, status);
  }

  return {
    settle,
    refresh,
    /** Called once per order when it reaches `completed` or `failed` (the bot's notifications). Must not throw. */
    onSettled(listener: (order: Order, how: SettledHow) => void) {
      listeners.push(listener);
    },
  };
}

export type Settlement = ReturnType<typeof createSettlement>;
