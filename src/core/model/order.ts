import type { z } from "zod";
import type { Micro } from "./money.js";
import type { Reason } from "./reasons.js";

export type OrderStatus = "processing" | "completed" | "failed";

/** What every order has, whatever its product: plain JSON data (a conversation replay keeps it as it is). */
export interface OrderBase {
  id: number;
  accountId: number;
  /** Who pays: the account itself, or for an owner key the service wallet. */
  fundingAccountId: number;
  status: OrderStatus;
  idempotencyKey: string | null;
  /** Username, store login, player ID, gift card brand or gift recipient. */
  recipient: string;
  chargeMicro: Micro;
  /** Our reference at the provider (what its status lookup is asked by). */
  upstreamRef: string;
  transactionId: string | null;
  providerOrderId: string | null;
  providerStatus: string | null;
  error: string | null;
  reason: Reason | null;
  refunded: boolean;
  /** When a `processing` order is next asked about (a lease while claimed); null once final. */
  checkAfter: string | null;
  /** How many times the reconciler has asked about it. */
  checkAttempts: number;
  createdAt: string;
  completedAt: string | null;
  /** The backend that took it and settles it; null for orders placed before backends were recorded. */
  backend: string | null;
  /** The recipient as that backend addresses them (Telegram: the user id), fixed before the charge. */
  recipientId: string | null;
  /** Why it waits for an administrator (its delivery cannot be told without guessing); null when it does not. */
  held: string | null;
}

/** An order of one product: its type and its typed details (the product's fields and the prices it was charged at). */
export type OrderOf<T extends string, D> = OrderBase & { productType: T; details: D };

/** An order whose delivery no backend transaction is linked to yet (Telegram's Star transactions; db/orders.ts). */
export interface UnlinkedDelivery {
  id: number;
  /** Our reference (upstream_ref): how a send knows its own order among them. */
  reference: string;
  productType: string;
  status: "processing" | "completed";
  details: unknown;
  createdAt: string;
  recipientId: string;
}

export const MINUTE = 60_000;

/**
 * The ports that settle orders, one per product: each answers "what happened to the order with this reference?"
 * (src/core/ports.ts checks that this is exactly the ports that are an order status source).
 */
export type OrderPortName = "stars" | "premium" | "store" | "games" | "giftcards" | "gifts";

/** What the core knows of a product without running it: its type, who settles it, and the shape of its details. */
export interface ProductDefinition<T extends string = string, D = unknown> {
  type: T;
  port: OrderPortName;
  details: z.ZodType<D>;
  /** How long its provider normally takes at most: an order `processing` longer than this is stuck (an alert). */
  settlesWithinMs: number;
}
