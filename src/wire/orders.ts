import { z } from "zod";
import { type Micro, toUsdt } from "../core/model/money.js";
import { type ListedOrder, type Order, PRODUCT_TYPES } from "../core/model/products.js";
import { dateTime, limitField, orderStatus } from "./common.js";
import { gameOrderResponse, gameView } from "./games.js";
import { giftcardOrderResponse, giftcardView } from "./giftcards.js";
import { giftOrderResponse, giftView } from "./gifts.js";
import { purchaseResponse, purchaseView } from "./stars.js";
import { storeOrderResponse, storeView } from "./store.js";

// Orders of every product: the key's list, and one order in its product's shape (what GET /v1/orders/{id}
// answers and what order events carry).

export const ordersQuery = z.object({
  limit: limitField,
  // Additions: a client that sends none of these sees the list exactly as before.
  before: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "before must be an order id: a whole number of at least 1")
    .transform(Number)
    .optional()
    .describe("Optional: only orders with a smaller order_id; pass the last order_id of the page you have to get the next one"),
  product_type: z
    .enum(PRODUCT_TYPES, { error: `product_type must be one of ${PRODUCT_TYPES.join(", ")}` })
    .optional()
    .describe("Optional: only orders of this product"),
  status: z
    .enum(["processing", "completed", "failed"], { error: "status must be one of processing, completed, failed" })
    .optional()
    .describe("Optional: only orders in this status"),
});

export const orderSummary = z
  .object({
    order_id: z.number().int(),
    product_type: z.enum(PRODUCT_TYPES),
    username: z.string().describe("Recipient: username, store login, player ID, or gift card brand"),
    amount: z.number().describe("Stars count, premium months, store nominal in USD, gift card quantity, gift stars; 1 for a game order"),
    store_login: z.string().nullable(),
    store_amount_usd: z.number().nullable(),
    brand: z
      .string()
      .nullable()
      .describe("The gift card's brand or the game, by the provider's name; null for other products and for orders placed before names were kept"),
    item: z
      .string()
      .nullable()
      .describe("The gift card's card or the game's denomination, by the catalogue's name; the gift's emoji; null otherwise"),
    usdt_charged: z.number(),
    status: orderStatus,
    transaction_id: z.string().nullable(),
    created_at: dateTime,
    completed_at: dateTime.nullable(),
  })
  .meta({ id: "OrderSummary" });

export const ordersResponse = z.object({ success: z.literal(true), count: z.number().int(), orders: z.array(orderSummary) });

/** Any order's answer: stars and premium in the PurchaseResponse shape, any other product in its own. */
export const anyOrderResponse = z.union([purchaseResponse, storeOrderResponse, gameOrderResponse, giftcardOrderResponse, giftOrderResponse]);

/** The list's `amount`: stars, months, the store nominal, 1 for a game order, the gift card quantity, the gift's stars. */
function listAmount(order: ListedOrder): number {
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

/** What a list names an order by: the brand or game and the card, denomination or gift, as the catalogue named them. */
function namesOf(order: ListedOrder): { brand: string | null; item: string | null } {
  switch (order.productType) {
    case "giftcard":
      return { brand: order.details.brand ?? null, item: order.details.denomination };
    case "game":
      return { brand: order.details.game_name ?? null, item: order.details.denomination };
    case "gift":
      return { brand: null, item: order.details.emoji };
    default:
      return { brand: null, item: null };
  }
}

/** The list item: one shape for every product, never any gift card code. */
export function summaryView(order: ListedOrder): z.infer<typeof orderSummary> {
  const store = order.productType === "store" ? order.details : null;
  return {
    order_id: order.id,
    product_type: order.productType,
    username: order.recipient,
    amount: listAmount(order),
    store_login: store ? store.store_login : null,
    store_amount_usd: store ? toUsdt(store.amount_micro) : null,
    ...namesOf(order),
    usdt_charged: toUsdt(order.chargeMicro),
    status: order.status,
    transaction_id: order.providerOrderId ?? order.transactionId,
    created_at: order.createdAt,
    completed_at: order.completedAt,
  };
}

export const ordersView = (orders: ListedOrder[]): z.infer<typeof ordersResponse> => ({
  success: true as const,
  count: orders.length,
  orders: orders.map(summaryView),
});

/** One order in its product's shape, with the key's balance; never any gift card code. */
export function orderView(order: Order, balanceMicro: Micro): z.infer<typeof anyOrderResponse> {
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
