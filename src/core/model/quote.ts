import type { Micro } from "./money.js";

/** A binding quote as the faces see it: the exact charge of one purchase, for one account, until it expires. */
export interface BindingQuote<D = unknown> {
  id: string;
  productType: string;
  recipient: string;
  chargeMicro: Micro;
  /** The product's details as quoted: the order that uses the quote carries them with its charge. */
  details: D;
  createdAt: string;
  expiresAt: string;
}

/** A quote as stored: whose it is, what it is for, and the order that spent it (null while unused). */
export interface StoredQuote extends BindingQuote {
  accountId: number;
  requestHash: string;
  orderId: number | null;
}
