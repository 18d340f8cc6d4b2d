import { unbalancedAccounts } from "../../src/db/ledger.js";
import type { Executor } from "../../src/db/database.js";

/** The books hold: balances equal their entries, one charge per order, one refund per failed order and none otherwise. */
export async function assertBooks(db: Executor): Promise<void> {
  const unbalanced = await unbalancedAccounts(db);
  if (unbalanced.length) throw new Error(`unbalanced accounts: ${JSON.stringify(unbalanced)}`);
  const orders = await db.selectFrom("orders").select(["id", "status", "refunded", "charge_micro"]).execute();
  const entries = await db.selectFrom("ledger_entries").select(["order_id", "kind", "amount_micro"]).where("order_id", "is not", null).execute();
  for (const order of orders) {
    const own = entries.filter((e) => Number(e.order_id) === Number(order.id));
    const charges = own.filter((e) => e.kind === "charge");
    const refunds = own.filter((e) => e.kind === "refund");
    if (charges.length !== 1 || Number(charges[0].amount_micro) !== -Number(order.charge_micro)) {
      throw new Error(`order ${order.id}: expected one charge of ${order.charge_micro}, found ${JSON.stringify(charges)}`);
    }
    const expectedRefunds = order.status === "failed" ? 1 : 0;
    if (refunds.length !== expectedRefunds || (order.status === "failed") !== order.refunded) {
      throw new Error(`order ${order.id} (${order.status}): expected ${expectedRefunds} refund, found ${refunds.length}`);
    }
    if (refunds.length && Number(refunds[0].amount_micro) !== Number(order.charge_micro)) {
      throw new Error(`order ${order.id}: refund ${refunds[0].amount_micro} differs from the charge ${order.charge_micro}`);
    }
  }
}
