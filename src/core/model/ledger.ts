import type { Micro } from "./money.js";

export type LedgerKind = "credit" | "debit" | "charge" | "refund" | "adjustment" | "topup" | "reversal";

export interface Posting {
  accountId: number;
  /** Signed: positive adds to the balance, negative takes from it. */
  amountMicro: Micro;
  kind: LedgerKind;
  actor: string;
  orderId?: number | null;
  /** The top-up a `topup` entry credits, or a `reversal` entry takes back. */
  topupId?: number | null;
  note?: string | null;
  at: string;
}
