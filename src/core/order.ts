import type { z } from "zod";
import type { OrderRow } from "../db/schema.js";
import type { Micro } from "./money.js";
import type { OrderProviderName } from "./ports.js";
import { reasonOf, type Reason } from "./reasons.js";

export type OrderStatus = "processing" | "completed" | "failed";

/** What every order has, whatever its product: plain JSON data (a conversation replay keeps it as it is). */
export interface OrderBase {
  id: number;
  accountId: number;
  status: OrderStatus;
  idempotencyKey: string | null;
  /** Username, store login, player ID, gift card brand or gift recipient. */
  recipient: string;
  chargeMicro: Micro;
  transactionId: string | null;
  providerOrderId: string | null;
  providerStatus: string | null;
  error: string | null;
  reason: Reason | null;
  refunded: boolean;
  createdAt: string;
  completedAt: string | null;
}

/** An order of one product: its type and its typed details (the product's fields and the prices it was charged at). */
export type OrderOf<T extends string, D> = OrderBase & { productType: T; details: D };

export const MINUTE = 60_000;

/** What the core knows of a product without running it: its type, who settles it, and the shape of its details. */
export interface ProductDefinition<T extends string = string, D = unknown> {
  type: T;
  provider: OrderProviderName;
  details: z.ZodType<D>;
  /** How long its provider normally takes at most: an order `processing` longer than this is stuck (an alert). */
  settlesWithinMs: number;
}

/** A stored order as the domain object of its product; details are checked against the product's schema. */
export function orderOf<T extends string, D>(row: OrderRow, product: ProductDefinition<T, D>): OrderOf<T, D> {
  if (row.product_type !== product.type) throw new Error(`order ${row.id} is a ${row.product_type} order, not ${product.type}`);
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    productType: product.type,
    status: row.status,
    idempotencyKey: row.idempotency_key,
    recipient: row.recipient,
    chargeMicro: Number(row.charge_micro),
    transactionId: row.transaction_id,
    providerOrderId: row.provider_order_id,
    providerStatus: row.provider_status,
    error: row.error,
    reason: row.error_code === null ? null : reasonOf(row.error_code),
    refunded: row.refunded,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    details: product.details.parse(JSON.parse(row.details)),
  };
}
