import type { Core } from "../core/index.js";
import { formatUsd, formatUsdt, type MicroUsd } from "../core/model/money.js";
import type { ListedOrder, Order } from "../core/model/products.js";

/** A translation function: the context's `t`, or a locale's outside any update (notifications). */
export type Translate = (key: string, vars?: Record<string, string | number>) => string;

/** One number format for USDT in every message: at least 2 decimals, and every decimal a charge has. */
export const usdt = (micro: number) => formatUsdt(micro);

/** A stored time to the minute, as the bot shows times (UTC). */
export const minute = (at: string) => at.slice(0, 16).replace("T", " ");

/** One number format for USD (store nominals): always 2 decimals, then "USD". */
export const usd = (amount: MicroUsd) => `${formatUsd(amount)} USD`;

/** Gift card brands' names by id: an order keeps the brand's id, a person reads its name. */
export type Brands = ReadonlyMap<string, string>;

/**
 * The brands' names where `orders` hold a gift card order without its brand's name kept; none when the provider's
 * list cannot be read just now.
 */
export async function brandsOf(core: Core, orders: readonly ListedOrder[]): Promise<Brands> {
  if (!orders.some((order) => order.productType === "giftcard" && order.details.brand === undefined)) return new Map();
  return core.giftcards.brandNames().catch(() => new Map());
}

/** Whom or what an order was for, as a person reads it: a gift card order names its brand and cards, never the brand's id. */
function forWhom(t: Translate, order: ListedOrder, brands: Brands): string {
  if (order.productType !== "giftcard") return order.recipient;
  const { quantity, denomination: name, category_id: id } = order.details;
  // The name kept on the order; the provider's list for orders placed before names were kept.
  const brand = order.details.brand ?? brands.get(id);
  return brand ? t("giftcard-cards", { quantity, name, brand }) : t("giftcard-cards-unnamed", { quantity, name });
}

/** One line about an order: with its status for lists, without it where the message says it already (notifications). */
export function orderLine(t: Translate, order: ListedOrder, brands: Brands, withStatus = true): string {
  const vars = {
    id: String(order.id),
    product: t(`product-${order.productType}`),
    recipient: forWhom(t, order, brands),
    charged: usdt(order.chargeMicro),
  };
  return withStatus ? t("order-line", { status: t(`status-${order.status}`), ...vars }) : t("order-line-short", vars);
}

/**
 * Why an order failed: a reason of ours in the user's language; for a plain provider error, the provider's own
 * note, quoted on a line of its own so that it never sits inside a sentence of the other language.
 */
export function failureReason(t: Translate, order: Order): string {
  if (order.reason && order.reason !== "provider_error") return t(`reason-${order.reason}`);
  return order.error ? t("provider-note", { note: order.error }) : t("reason-provider_error");
}

/**
 * A number as people type it, as a plain decimal: "10 000" and "10,000" (thousands, also in the bot's own
 * format), "10,5" (a decimal comma), "1 000,50". Null when it is not a number.
 */
export function plainNumber(text: string): string | null {
  let value = text.trim();
  if (/^\d{1,3}([\s\u00a0\u202f]\d{3})+([.,]\d+)?$/.test(value)) value = value.replace(/[\s\u00a0\u202f]/g, "").replace(",", ".");
  else if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(value)) value = value.replace(/,/g, "");
  else if (/^\d+,\d+$/.test(value)) value = value.replace(",", ".");
  return /^\d+(\.\d+)?$/.test(value) ? value : null;
}
