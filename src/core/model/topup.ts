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
}

export type TopupMethod = "invoice" | "transfer";

/**
 * `creating` (the invoice is being made), `active` (an invoice waiting to be paid), `pending` (a transfer
 * waiting for an administrator), then `credited`, `expired`, `cancelled`, `rejected`, or `failed` (the provider
 * refused to make the invoice).
 */
export type TopupStatus = "creating" | "active" | "pending" | "credited" | "expired" | "cancelled" | "rejected" | "failed";
