import type { Micro } from "./money.js";

/** A top-up as the faces see it. */
export interface Topup {
  id: number;
  accountId: number;
  method: TopupMethod;
  status: TopupStatus;
  /** What was asked for. */
  amountMicro: Micro;
  /** What was credited (an invoice: the amount received), once credited. */
  creditedMicro: Micro | null;
  invoiceId: number | null;
  payUrl: string | null;
  webAppUrl: string | null;
  expiresAt: string | null;
  /** A transfer's reference, as the user gave it. */
  reference: string | null;
  /** Who decided a transfer (the administrator's Telegram id), and a rejection's reason. */
  decidedBy: string | null;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
  creditedAt: string | null;
  /** A Stars top-up: the Stars its invoice asks, Telegram's charge id once paid, who paid (Telegram user id). */
  stars: number | null;
  chargeId: string | null;
  payerId: string | null;
  /** What a refund took back from the balance (a refund Telegram made may take less than was credited). */
  reversedMicro: Micro | null;
}

export type TopupMethod = "invoice" | "transfer" | "stars";

/**
 * `creating` (the invoice is being made), `active` (an invoice waiting to be paid), `pending` (a transfer
 * waiting for an administrator), then `credited`, `expired`, `cancelled`, `rejected`, or `failed` (the provider
 * refused to make the invoice); a credited Stars top-up may go on to `refunding` (an administrator's refund under
 * way) and `refunded` (the Stars given back, the credit reversed).
 */
export type TopupStatus = "creating" | "active" | "pending" | "credited" | "expired" | "cancelled" | "rejected" | "failed" | "refunding" | "refunded";
