import { formatUsdt, type Micro } from "../core/money.js";
import type { Order } from "../core/products/index.js";

/** A translation function: the context's `t`, or a locale's outside any update (notifications). */
export type Translate = (key: string, vars?: Record<string, string | number>) => string;

/** One number format for USDT in every message. */
export const usdt = (micro: Micro) => formatUsdt(micro);

/** One line about an order, for lists and notifications. */
export function orderLine(t: Translate, order: Order): string {
  return t("order-line", {
    id: String(order.id),
    product: t(`product-${order.productType}`),
    recipient: order.recipient,
    charged: usdt(order.chargeMicro),
    status: t(`status-${order.status}`),
  });
}

/** Why an order failed: a reason of ours in the user's language; a plain provider error keeps the provider's own note. */
export function failureReason(t: Translate, order: Order): string {
  return order.reason && order.reason !== "provider_error" ? t(`reason-${order.reason}`) : (order.error ?? "");
}
