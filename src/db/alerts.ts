import { micro, type Micro } from "../core/model/money.js";
import type { Executor } from "./database.js";

/** A change of an alerted condition's shared state, as one instance's guarded update claimed it. */
export type AlertTransition = "firing" | "reminder" | "resolved";

/**
 * Claims a condition's change in the state every instance shares (`alert_states`): only the instance whose
 * update changed it gets the transition (and tells it); the others get null. A condition still firing is
 * due a reminder once `repeatBefore` has passed since it was last told.
 */
export async function claimTransition(
  exec: Executor,
  condition: { key: string; firing: boolean; details: object },
  at: { now: string; repeatBefore: string },
): Promise<AlertTransition | null> {
  const details = JSON.stringify(condition.details);
  await exec
    .insertInto("alert_states")
    .values({ key: condition.key, firing: false, since: at.now })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const state = exec.updateTable("alert_states").where("key", "=", condition.key);
  if (!condition.firing) {
    const ended = await state.where("firing", "=", true).set({ firing: false, since: at.now, details }).executeTakeFirst();
    return Number(ended.numUpdatedRows) > 0 ? "resolved" : null;
  }
  const started = await state.where("firing", "=", false).set({ firing: true, since: at.now, last_sent_at: at.now, details }).executeTakeFirst();
  if (Number(started.numUpdatedRows) > 0) return "firing";
  const again = await state
    .where("firing", "=", true)
    .where("last_sent_at", "<=", at.repeatBefore)
    .set({ last_sent_at: at.now, details })
    .executeTakeFirst();
  return Number(again.numUpdatedRows) > 0 ? "reminder" : null;
}

/** Orders refunded (failed) since `since`. */
export async function refundsSince(exec: Executor, since: string): Promise<number> {
  const row = await exec
    .selectFrom("orders")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "failed")
    .where("completed_at", ">=", since)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The service wallet's balance, or null while no owner key exists (nothing spends it then). */
export async function walletWhileOwned(exec: Executor): Promise<Micro | null> {
  const owner = await exec.selectFrom("accounts").select("id").where("kind", "=", "owner").limit(1).executeTakeFirst();
  if (!owner) return null;
  const row = await exec.selectFrom("accounts").select("balance_micro").where("kind", "=", "wallet").executeTakeFirstOrThrow();
  return micro(row.balance_micro);
}

/**
 * Orders still processing, the oldest first (they are few: the reconciler settles them), at most `limit`: those the
 * reconciler works on, or (`held`) those held for an administrator.
 */
export async function processingOrders(
  exec: Executor,
  limit: number,
  held = false,
): Promise<Array<{ id: number; productType: string; createdAt: string }>> {
  const rows = await exec
    .selectFrom("orders")
    .select(["id", "product_type", "created_at"])
    .where("status", "=", "processing")
    .where("held", held ? "is not" : "is", null)
    .orderBy("created_at")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ id: row.id, productType: row.product_type, createdAt: row.created_at }));
}

/** What the metrics show of the backlog: processing orders (and since when the oldest), pending webhook events. */
export async function backlog(exec: Executor): Promise<{ processing: number; oldestProcessing: string | null; webhooksPending: number }> {
  const orders = await exec
    .selectFrom("orders")
    .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
    .where("status", "=", "processing")
    .executeTakeFirstOrThrow();
  const events = await exec
    .selectFrom("webhook_events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  return {
    processing: orders.n,
    oldestProcessing: orders.oldest === null ? null : String(orders.oldest),
    webhooksPending: events.n,
  };
}
