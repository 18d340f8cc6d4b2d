import type { Micro } from "./model/money.js";

/**
 * The administrators' confirmation rule, decided once (ADMIN_CONFIRM_ABOVE_USDT): money an administrator moves
 * above the threshold (a credit, a debit, the service wallet set, a transfer approved) takes a second, confirmed
 * step. The core refuses such a move unconfirmed; the faces ask `needed` before, and render the question.
 */
export interface ConfirmRule {
  /** A move of more than this needs confirming. */
  readonly aboveMicro: Micro;
  needed(amountMicro: Micro): boolean;
}

export function confirmRule(aboveMicro: Micro): ConfirmRule {
  return { aboveMicro, needed: (amountMicro) => Math.abs(amountMicro) > aboveMicro };
}
