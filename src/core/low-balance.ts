import type { Account } from "./model/account.js";
import type { Micro } from "./model/money.js";

/**
 * The customer's low-balance notice: told once when a purchase takes a balance from at or above the line to
 * below it (so no state is needed, and several instances tell it once: the one that placed the purchase).
 * Owner keys spend the service wallet, which the administrators' alert watches instead.
 */
export function createLowBalance({ thresholdMicro }: { thresholdMicro: Micro }) {
  const listeners: Array<(account: Account, balanceMicro: Micro) => void> = [];
  return {
    thresholdMicro,
    /** After a committed charge of `amountMicro` that left `balanceMicro`. */
    charged(account: Account, amountMicro: Micro, balanceMicro: Micro) {
      const crossed = balanceMicro < thresholdMicro && balanceMicro + amountMicro >= thresholdMicro;
      if (!crossed || account.kind !== "standard" || !account.lowBalanceNotice) return;
      // Never in the way of the purchase it follows.
      for (const listener of listeners) {
        try {
          listener(account, balanceMicro);
        } catch {
          // The listener logs its own failures.
        }
      }
    },
    /** The bot tells the customer. Must not throw. */
    onLow(listener: (account: Account, balanceMicro: Micro) => void) {
      listeners.push(listener);
    },
  };
}

export type LowBalance = ReturnType<typeof createLowBalance>;
