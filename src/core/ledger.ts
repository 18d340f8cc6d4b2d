import type { Executor } from "../db/database.js";
import { balanceOf, postEntry } from "../db/ledger.js";
import { DomainError, invalid } from "./model/errors.js";
import { MAX_MICRO, MAX_USDT, type Micro, micro } from "./model/money.js";
import type { Posting } from "./model/ledger.js";

/** An amount a ledger entry can carry: a whole number of micro-USDT, at most MAX_MICRO either way. */
export function checkAmount(amountMicro: number): void {
  if (!Number.isSafeInteger(amountMicro) || Math.abs(amountMicro) > MAX_MICRO) {
    throw invalid(`An amount is at most ${MAX_USDT} USDT`, { rule: "amount_bound", maxMicro: MAX_MICRO });
  }
}

/**
 * The only way a balance changes: a guarded update and its ledger entry, in the caller's transaction.
 * The guard (0 <= balance + amount <= MAX_MICRO) and the table's CHECKs say the same thing; a short balance
 * throws insufficient_funds, one that would pass the bound invalid_input, and the caller's transaction rolls back.
 */
export async function post(trx: Executor, posting: Posting): Promise<Micro> {
  checkAmount(posting.amountMicro);
  const balanceAfter = await postEntry(trx, posting);
  if (balanceAfter !== null) return balanceAfter;
  const balance = await balanceOf(trx, posting.accountId);
  if (balance === undefined) throw new Error(`ledger: account ${posting.accountId} does not exist`);
  if (posting.amountMicro > 0) {
    throw invalid(`A balance is at most ${MAX_USDT} USDT: this would take it past that`, { rule: "balance_bound", maxMicro: MAX_MICRO });
  }
  throw new DomainError("insufficient_funds", "Insufficient balance", { requiredMicro: micro(-posting.amountMicro), balanceMicro: balance });
}
