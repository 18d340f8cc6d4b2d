import { sql } from "kysely";
import type { Executor } from "../db/database.js";
import type { LedgerKind } from "../db/schema.js";
import { DomainError, invalid } from "./errors.js";
import { MAX_MICRO, MAX_USDT, type Micro } from "./money.js";

export interface Posting {
  accountId: number;
  /** Signed: positive adds to the balance, negative takes from it. */
  amountMicro: Micro;
  kind: LedgerKind;
  actor: string;
  orderId?: number | null;
  note?: string | null;
  at: string;
}

/**
 * The only way a balance changes: a guarded update and its ledger entry, in the caller's transaction.
 * The guard (0 <= balance + amount <= MAX_MICRO) and the table's CHECKs say the same thing; a short balance
 * throws insufficient_funds, one that would pass the bound invalid_input, and the caller's transaction rolls back.
 */
export async function post(trx: Executor, posting: Posting): Promise<Micro> {
  if (!Number.isSafeInteger(posting.amountMicro) || Math.abs(posting.amountMicro) > MAX_MICRO) {
    throw invalid(`An amount is at most ${MAX_USDT} USDT`, { rule: "amount_bound", maxMicro: MAX_MICRO });
  }
  const updated = await trx
    .updateTable("accounts")
    .set({ balance_micro: sql<number>`balance_micro + ${posting.amountMicro}` })
    .where("id", "=", posting.accountId)
    .where(sql<boolean>`balance_micro + ${posting.amountMicro} between 0 and ${MAX_MICRO}`)
    .returning("balance_micro")
    .executeTakeFirst();
  if (!updated) {
    const account = await trx.selectFrom("accounts").select("balance_micro").where("id", "=", posting.accountId).executeTakeFirst();
    if (!account) throw new Error(`ledger: account ${posting.accountId} does not exist`);
    if (posting.amountMicro > 0) {
      throw invalid(`A balance is at most ${MAX_USDT} USDT: this would take it past that`, { rule: "balance_bound", maxMicro: MAX_MICRO });
    }
    throw new DomainError("insufficient_funds", "Insufficient balance", {
      requiredMicro: -posting.amountMicro,
      balanceMicro: Number(account.balance_micro),
    });
  }
  const balanceAfter = Number(updated.balance_micro);
  await trx
    .insertInto("ledger_entries")
    .values({
      account_id: posting.accountId,
      order_id: posting.orderId ?? null,
      kind: posting.kind,
      amount_micro: posting.amountMicro,
      balance_after_micro: balanceAfter,
      actor: posting.actor,
      note: posting.note ?? null,
      created_at: posting.at,
    })
    .execute();
  return balanceAfter;
}

/** Accounts whose balance differs from the sum of their entries; empty when the books hold. */
export async function unbalancedAccounts(db: Executor) {
  const rows = await db
    .selectFrom("accounts")
    .leftJoin("ledger_entries", "ledger_entries.account_id", "accounts.id")
    .select(["accounts.id", "accounts.balance_micro", sql<number | null>`sum(ledger_entries.amount_micro)`.as("entries_micro")])
    .groupBy(["accounts.id", "accounts.balance_micro"])
    .execute();
  return rows
    .map((r) => ({ accountId: Number(r.id), balanceMicro: Number(r.balance_micro), entriesMicro: Number(r.entries_micro ?? 0) }))
    .filter((r) => r.balanceMicro !== r.entriesMicro);
}
