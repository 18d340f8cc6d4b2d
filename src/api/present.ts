import type { z } from "zod";
import type { GameDetails } from "../core/games.js";
import type { GiftcardDetails } from "../core/giftcards.js";
import type { GiftDetails } from "../core/gifts.js";
import { percentNumber, type StoreQuote } from "../core/markup.js";
import { type Micro, toUsdt } from "../core/money.js";
import { orderDetails } from "../core/orders.js";
import type { PremiumDetails, StarsDetails } from "../core/purchases.js";
import type { StoreDetails } from "../core/store.js";
import type { Order } from "../db/schema.js";
import type {
  gameOrderResponse,
  giftcardOrderResponse,
  giftOrderResponse,
  orderSummary,
  PRODUCT_TYPES,
  purchaseResponse,
  storeOrderResponse,
  storeQuoteSchema,
} from "./schemas.js";

// Orders as the contract shows them, one shape per product. Amounts leave as USDT numbers here and only here.

const charged = (order: Order) => toUsdt(Number(order.charge_micro));
const orderId = (order: Order) => Number(order.id);

export function purchaseView(order: Order, balanceMicro: Micro): z.infer<typeof purchaseResponse> {
  const stars = order.product_type === "stars" ? orderDetails<StarsDetails>(order).stars : null;
  const months = order.product_type === "premium" ? orderDetails<PremiumDetails>(order).months : null;
  return {
    success: order.status === "completed",
    order_id: orderId(order),
    idempotency_key: order.idempotency_key,
    product_type: order.product_type as "stars" | "premium",
    username: order.recipient,
    amount: (stars ?? months) as number,
    stars,
    months,
    usdt_charged: charged(order),
    status: order.status,
    transaction_id: order.transaction_id,
    error: order.error,
    balance_remaining_usdt: toUsdt(balanceMicro),
    created_at: order.created_at,
    completed_at: order.completed_at,
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

export function storeView(order: Order, balanceMicro: Micro): z.infer<typeof storeOrderResponse> {
  const details = orderDetails<StoreDetails>(order);
  return {
    success: order.status === "completed",
    order_id: orderId(order),
    idempotency_key: order.idempotency_key,
    product_type: "store",
    store_login: details.store_login,
    store_amount_usd: toUsdt(details.amount_micro),
    store_markup_usdt: toUsdt(details.markup_micro),
    amount: toUsdt(details.amount_micro),
    usdt_charged: charged(order),
    status: order.status,
    transaction_id: order.provider_order_id ?? order.transaction_id,
    error: order.error,
    balance_remaining_usdt: toUsdt(balanceMicro),
    pending: order.status === "processing" ? true : null,
    refunded: order.status === "failed" ? order.refunded === 1 : null,
    error_code: order.error_code,
    created_at: order.created_at,
    completed_at: order.completed_at,
  };
}

/** `refunded` only on failed, `poll` only on processing, as the contract has them. */
const asyncFlags = (order: Order) => ({
  ...(order.status === "failed" ? { refunded: order.refunded === 1 } : {}),
  ...(order.status === "processing" ? { poll: true } : {}),
});

export function gameView(order: Order, balanceMicro: Micro): z.infer<typeof gameOrderResponse> {
  const details = orderDetails<GameDetails>(order);
  return {
    success: order.status !== "failed",
    order_id: orderId(order),
    idempotency_key: order.idempotency_key,
    product_type: "game",
    game_code: details.game_code,
    denomination: details.denomination,
    player_id: details.player_id,
    server_id: details.server_id,
    player_name: details.player_name,
    usdt_charged: charged(order),
    balance_after: toUsdt(balanceMicro),
    status: order.status,
    provider_order_id: order.provider_order_id === null ? null : Number(order.provider_order_id),
    provider_status: order.provider_status,
    ...asyncFlags(order),
    error: order.error,
    created_at: order.created_at,
    completed_at: order.completed_at,
  };
}

/** Codes are passed only by the order's own status endpoint; every other view leaves them out. */
export function giftcardView(order: Order, balanceMicro: Micro, codes?: string[]): z.infer<typeof giftcardOrderResponse> {
  const details = orderDetails<GiftcardDetails>(order);
  return {
    success: order.status !== "failed",
    order_id: orderId(order),
    idempotency_key: order.idempotency_key,
    product_type: "giftcard",
    category_id: details.category_id,
    card_id: details.card_id,
    denomination: details.denomination,
    quantity: details.quantity,
    usdt_charged: charged(order),
    balance_after: toUsdt(balanceMicro),
    status: order.status,
    codes_count: order.status === "completed" ? details.quantity : 0,
    ...(codes === undefined ? {} : { codes }),
    provider_order_id: order.provider_order_id,
    provider_status: order.provider_status,
    ...asyncFlags(order),
    error: order.error,
    created_at: order.created_at,
    completed_at: order.completed_at,
  };
}

export function giftView(order: Order): z.infer<typeof giftOrderResponse> {
  const details = orderDetails<GiftDetails>(order);
  return {
    success: order.status === "completed",
    order_id: orderId(order),
    status: order.status,
    recipient: order.recipient,
    gift_id: details.gift_id,
    stars: details.stars,
    emoji: details.emoji,
    hide_name: details.hide_name,
    message: details.message,
    usdt_charged: charged(order),
    error: order.error,
    error_code: order.error_code,
    refunded: order.refunded === 1,
    created_at: order.created_at,
  };
}

/** The list item: one shape for every product, never any gift card code. */
export function summaryView(order: Order): z.infer<typeof orderSummary> {
  const type = order.product_type as (typeof PRODUCT_TYPES)[number];
  const store = type === "store" ? orderDetails<StoreDetails>(order) : null;
  const amount = {
    stars: () => orderDetails<StarsDetails>(order).stars,
    premium: () => orderDetails<PremiumDetails>(order).months,
    store: () => toUsdt(store!.amount_micro),
    game: () => 1,
    giftcard: () => orderDetails<GiftcardDetails>(order).quantity,
    gift: () => orderDetails<GiftDetails>(order).stars,
  }[type]();
  return {
    order_id: orderId(order),
    product_type: type,
    username: order.recipient,
    amount,
    store_login: store ? store.store_login : null,
    store_amount_usd: store ? toUsdt(store.amount_micro) : null,
    usdt_charged: charged(order),
    status: order.status,
    transaction_id: order.provider_order_id ?? order.transaction_id,
    created_at: order.created_at,
    completed_at: order.completed_at,
  };
}

/** GET /v1/orders/{id}: a stars or premium order in the contract's shape, any other product in its own. */
export function anyOrderView(order: Order, balanceMicro: Micro) {
  switch (order.product_type) {
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
