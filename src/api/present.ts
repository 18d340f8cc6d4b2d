import type { Order } from "../db/schema.js";
import { orderDetails } from "../core/orders.js";
import { type Micro, toUsdt } from "../core/money.js";
import type { PremiumDetails, StarsDetails } from "../core/purchases.js";
import type { z } from "zod";
import type { orderSummary, purchaseResponse } from "./schemas.js";

function amountOf(order: Order): { stars: number | null; months: number | null; amount: number } {
  if (order.product_type === "stars") {
    const { stars } = orderDetails<StarsDetails>(order);
    return { stars, months: null, amount: stars };
  }
  const { months } = orderDetails<PremiumDetails>(order);
  return { stars: null, months, amount: months };
}

/** A stars or premium order as the contract's PurchaseResponse. */
export function purchaseView(order: Order, balanceMicro: Micro): z.infer<typeof purchaseResponse> {
  return {
    success: order.status === "completed",
    order_id: Number(order.id),
    idempotency_key: order.idempotency_key,
    product_type: order.product_type as "stars" | "premium",
    username: order.recipient,
    ...amountOf(order),
    usdt_charged: toUsdt(Number(order.charge_micro)),
    status: order.status,
    transaction_id: order.transaction_id,
    error: order.error,
    balance_remaining_usdt: toUsdt(balanceMicro),
    created_at: order.created_at,
    completed_at: order.completed_at,
  };
}

export function summaryView(order: Order): z.infer<typeof orderSummary> {
  return {
    order_id: Number(order.id),
    product_type: order.product_type,
    username: order.recipient,
    amount: amountOf(order).amount,
    store_login: null,
    store_amount_usd: null,
    usdt_charged: toUsdt(Number(order.charge_micro)),
    status: order.status,
    transaction_id: order.transaction_id,
    created_at: order.created_at,
    completed_at: order.completed_at,
  };
}
