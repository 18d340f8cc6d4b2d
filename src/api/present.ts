import type { z } from "zod";
import { percentNumber, type StoreQuote } from "../core/markup.js";
import { type Micro, toUsdt } from "../core/money.js";
import type { Order, OrderOfType } from "../core/products/index.js";
import type { StoreDetails } from "../core/products/store.js";
import type { Quote } from "../core/purchase.js";
import type {
  gameOrderResponse,
  giftcardOrderResponse,
  giftOrderResponse,
  orderSummary,
  purchaseResponse,
  storeOrderResponse,
  storeQuoteSchema,
} from "./schemas.js";

// Orders as the contract shows them, one shape per product. Amounts leave as USDT numbers here and only here.

type Delivery = OrderOfType<"stars" | "premium">;

export function purchaseView(order: Delivery, balanceMicro: Micro): z.infer<typeof purchaseResponse> {
  const stars = order.productType === "stars" ? order.details.stars : null;
  const months = order.productType === "premium" ? order.details.months : null;
  return {
    success: order.status === "completed",
    order_id: order.id,
    idempotency_key: order.idempotencyKey,
    product_type: order.productType,
    username: order.recipient,
    amount: stars ?? months ?? 0,
    stars,
    months,
    usdt_charged: toUsdt(order.chargeMicro),
    status: order.status,
    transaction_id: order.transactionId,
    error: order.error,
    balance_remaining_usdt: toUsdt(balanceMicro),
    created_at: order.createdAt,
    completed_at: order.completedAt,
  };
}

export function quoteView(quote: StoreQuote): z.infer<typeof storeQuoteSchema> {
  return {
    amount_usd: toUsdt(quote.amountMicro),
    provider_fee_usd: toUsdt(quote.feeMicro),
    cost_usd: toUsdt(quote.costMicro),
    markup_percent: percentNumber(quote.markupBp),
    markup_usdt: toUsdt(quote.markupMicro),
    total_usdt: toUsdt(quote.totalMicro),
  };
}

/** A store quote of the core (what the sandbox and the confirmation show) in the contract's StoreQuote terms. */
export const storeQuoteOf = (quote: Quote<StoreDetails>): StoreQuote => ({
  amountMicro: quote.details.amount_micro,
  feeMicro: quote.details.fee_micro,
  costMicro: quote.details.cost_micro,
  markupBp: quote.details.markup_bp,
  markupMicro: quote.details.markup_micro,
  totalMicro: quote.chargeMicro,
});

export function storeView(order: OrderOfType<"store">, balanceMicro: Micro): z.infer<typeof storeOrderResponse> {
  const { details } = order;
  return {
    success: order.status === "completed",
    order_id: order.id,
    idempotency_key: order.idempotencyKey,
    product_type: "store",
    store_login: details.store_login,
    store_amount_usd: toUsdt(details.amount_micro),
    store_markup_usdt: toUsdt(details.markup_micro),
    amount: toUsdt(details.amount_micro),
    usdt_charged: toUsdt(order.chargeMicro),
    status: order.status,
    transaction_id: order.providerOrderId ?? order.transactionId,
    error: order.error,
    balance_remaining_usdt: toUsdt(balanceMicro),
    pending: order.status === "processing" ? true : null,
    refunded: order.status === "failed" ? order.refunded : null,
    error_code: order.status === "failed" ? order.reason : null,
    created_at: order.createdAt,
    completed_at: order.completedAt,
  };
}

/** `refunded` only on failed, `poll` only on processing, as the contract has them. */
const asyncFlags = (order: Order) => ({
  ...(order.status === "failed" ? { refunded: order.refunded } : {}),
  ...(order.status === "processing" ? { poll: true } : {}),
});

export function gameView(order: OrderOfType<"game">, balanceMicro: Micro): z.infer<typeof gameOrderResponse> {
  const { details } = order;
  return {
    success: order.status !== "failed",
    order_id: order.id,
    idempotency_key: order.idempotencyKey,
    product_type: "game",
    game_code: details.game_code,
    denomination: details.denomination,
    player_id: details.player_id,
    server_id: details.server_id,
    player_name: details.player_name,
    usdt_charged: toUsdt(order.chargeMicro),
    balance_after: toUsdt(balanceMicro),
    status: order.status,
    provider_order_id: order.providerOrderId === null ? null : Number(order.providerOrderId),
    provider_status: order.providerStatus,
    ...asyncFlags(order),
    error: order.error,
    created_at: order.createdAt,
    completed_at: order.completedAt,
  };
}

/** Codes are passed only by the order's own status endpoint; every other view leaves them out. */
export function giftcardView(order: OrderOfType<"giftcard">, balanceMicro: Micro, codes?: string[]): z.infer<typeof giftcardOrderResponse> {
  const { details } = order;
  return {
    success: order.status !== "failed",
    order_id: order.id,
    idempotency_key: order.idempotencyKey,
    product_type: "giftcard",
    category_id: details.category_id,
    card_id: details.card_id,
    denomination: details.denomination,
    quantity: details.quantity,
    usdt_charged: toUsdt(order.chargeMicro),
    balance_after: toUsdt(balanceMicro),
    status: order.status,
    codes_count: order.status === "completed" ? details.quantity : 0,
    ...(codes === undefined ? {} : { codes }),
    provider_order_id: order.providerOrderId,
    provider_status: order.providerStatus,
    ...asyncFlags(order),
    error: order.error,
    created_at: order.createdAt,
    completed_at: order.completedAt,
  };
}

export function giftView(order: OrderOfType<"gift">): z.infer<typeof giftOrderResponse> {
  const { details } = order;
  return {
    success: order.status === "completed",
    order_id: order.id,
    status: order.status,
    recipient: order.recipient,
    gift_id: details.gift_id,
    stars: details.stars,
    emoji: details.emoji,
    hide_name: details.hide_name,
    message: details.message,
    usdt_charged: toUsdt(order.chargeMicro),
    error: order.error,
    error_code: order.status === "failed" ? order.reason : null,
    refunded: order.refunded,
    created_at: order.createdAt,
  };
}

/** The list's `amount`: stars, months, the store nominal, 1 for a game order, the gift card quantity, the gift's stars. */
function listAmount(order: Order): number {
  switch (order.productType) {
    case "stars":
      return order.details.stars;
    case "premium":
      return order.details.months;
    case "store":
      return toUsdt(order.details.amount_micro);
    case "game":
      return 1;
    case "giftcard":
      return order.details.quantity;
    case "gift":
      return order.details.stars;
  }
}

/** The list item: one shape for every product, never any gift card code. */
export function summaryView(order: Order): z.infer<typeof orderSummary> {
  const store = order.productType === "store" ? order.details : null;
  return {
    order_id: order.id,
    product_type: order.productType,
    username: order.recipient,
    amount: listAmount(order),
    store_login: store ? store.store_login : null,
    store_amount_usd: store ? toUsdt(store.amount_micro) : null,
    usdt_charged: toUsdt(order.chargeMicro),
    status: order.status,
    transaction_id: order.providerOrderId ?? order.transactionId,
    created_at: order.createdAt,
    completed_at: order.completedAt,
  };
}

/** GET /v1/orders/{id}: a stars or premium order in the contract's shape, any other product in its own. */
export function anyOrderView(order: Order, balanceMicro: Micro) {
  switch (order.productType) {
    case "store":
      return storeView(order, balanceMicro);
    case "game":
      return gameView(order, balanceMicro);
    case "giftcard":
      return giftcardView(order, balanceMicro);
    case "gift":
      return giftView(order);
    default:
      return purchaseView(order, balanceMicro);
  }
}

/** HTTP status of an asynchronous order's creation: replay 200, processing 202, failed (refunded) 502, done 200. */
export function asyncOrderStatus(order: Order, replay: boolean): 200 | 202 | 502 {
  if (replay) return 200;
  return order.status === "processing" ? 202 : order.status === "failed" ? 502 : 200;
}
