import { insertAudit } from "../../db/accounts.js";
import type { Executor } from "../../db/database.js";
import { moveTopup, topupById } from "../../db/topups.js";
import { transaction } from "../../db/transaction.js";
import { post } from "../ledger.js";
import { type Micro, micro } from "../model/money.js";
import type { Topup, TopupStatus } from "../model/topup.js";
import { emit, nowIso, type TopupContext } from "./context.js";

/**
 * Credits the top-up with `amountMicro` once, in one transaction with its ledger entry, audit and webhook event;
 * null when it was no longer in a `from` state (credited or decided meanwhile). Every kind ends here: a paid
 * invoice, an approved transfer, a Stars payment.
 */
export async function credit(
  ctx: TopupContext,
  topup: Topup,
  from: TopupStatus[],
  amountMicro: Micro,
  entry: {
    actor: string;
    note: string;
    decidedBy?: string;
    invoiceId?: number;
    /** A Stars payment: its charge and payer kept on the top-up, and `also` written in the same transaction (the Star book). */
    charge?: { chargeId: string; payerId: string; also(trx: Executor): Promise<void> };
  },
): Promise<Topup | null> {
  const { db, outbox } = ctx;
  const when = nowIso(ctx);
  const done = await transaction(db, async (trx) => {
    const moved = await moveTopup(trx, topup.id, from, "credited", {
      credited_micro: amountMicro,
      credited_at: when,
      at: when,
      ...(entry.decidedBy ? { decided_by: entry.decidedBy } : {}),
      // An invoice whose answer was lost when it was made is tied to its top-up now.
      ...(entry.invoiceId ? { invoice_id: entry.invoiceId } : {}),
      ...(entry.charge ? { charge_id: entry.charge.chargeId, payer_id: entry.charge.payerId } : {}),
    });
    if (!moved) return null;
    await entry.charge?.also(trx);
    const balance = await post(trx, {
      accountId: topup.accountId,
      amountMicro: micro(amountMicro),
      kind: "topup",
      actor: entry.actor,
      topupId: topup.id,
      note: entry.note,
      at: when,
    });
    // Who approved is the audit's to keep, not the customer's note nor the partner's event.
    if (entry.decidedBy) {
      await insertAudit(trx, {
        actor: entry.actor,
        action: "approve_transfer",
        accountId: topup.accountId,
        details: { topup_id: topup.id, amount_micro: amountMicro },
        at: when,
      });
    }
    const event = await outbox.balanceChanged(trx, topup.accountId, {
      kind: "topup",
      amountMicro: micro(amountMicro),
      balanceAfterMicro: balance,
      note: entry.note,
    });
    return { balance, event };
  });
  if (!done) return null;
  if (done.event) outbox.committed();
  const credited = (await topupById(db, topup.id))!;
  if (credited.method !== "transfer") emit(ctx, "paid", credited);
  emit(ctx, "credited", credited);
  for (const listener of ctx.listeners.credited) listener(credited, done.balance);
  return credited;
}
