import { z } from "zod";
import { GIFT_MESSAGE_MAX } from "../core/formats.js";
import { type Micro, toUsdt } from "../core/model/money.js";
import type { GiftRequest } from "../core/products/gifts.js";
import type { OrderOfType } from "../core/model/products.js";
import { dateTime, expect, orderStatus, purchaseBody, reason, usernameOf } from "./common.js";

// Messaging-platform gifts: the live catalogue and the order (GiftOrder, the contract's own shape: no
// idempotency_key, product_type or completed_at).

const giftIdField = z
  .string(expect("gift_id", "a string of digits"))
  .regex(/^\d{1,20}$/, "gift_id must be a string of digits (a 64-bit id: never send it as a number)");

export const giftsResponse = z.object({
  success: z.literal(true),
  count: z.number().int(),
  stars_range: z.object({ min: z.number().int(), max: z.number().int() }),
  gifts: z.array(
    z
      .object({ gift_id: z.string(), stars: z.number().int(), price_usdt: z.number(), emoji: z.string(), limited: z.boolean() })
      .meta({ id: "GiftCatalogueItem" }),
  ),
});

export const giftBody = purchaseBody({
  recipient: usernameOf("recipient"),
  gift_id: giftIdField,
  hide_name: z.boolean(expect("hide_name", "true or false")).optional(),
  message: z.string(expect("message", "a string")).max(GIFT_MESSAGE_MAX, `message must be at most ${GIFT_MESSAGE_MAX} characters`).optional(),
});

export const giftIdParams = z.object({ gift_id: z.string().regex(/^\d{1,20}$/, "gift_id must be a string of digits") });

export const giftOrderResponse = z
  .object({
    success: z.boolean(),
    order_id: z.number().int(),
    status: orderStatus,
    recipient: z.string(),
    gift_id: z.string(),
    stars: z.number().int(),
    emoji: z.string(),
    hide_name: z.boolean(),
    message: z.string(),
    usdt_charged: z.number(),
    error: z.string().nullable(),
    error_code: reason.nullable(),
    refunded: z.boolean(),
    created_at: dateTime,
  })
  .meta({ id: "GiftOrder" });

/** The core's request of a gift body. */
export const giftRequestOf = (body: { recipient: string; gift_id: string; hide_name?: boolean; message?: string }): GiftRequest => ({
  recipient: body.recipient,
  giftId: body.gift_id,
  hideName: body.hide_name ?? false,
  message: body.message ?? "",
});

export function giftsView(
  items: Array<{ giftId: string; stars: number; priceMicro: Micro; emoji: string; limited: boolean }>,
): z.infer<typeof giftsResponse> {
  const stars = items.map((g) => g.stars);
  return {
    success: true as const,
    count: items.length,
    stars_range: { min: stars.length ? Math.min(...stars) : 0, max: stars.length ? Math.max(...stars) : 0 },
    gifts: items.map((g) => ({ gift_id: g.giftId, stars: g.stars, price_usdt: toUsdt(g.priceMicro), emoji: g.emoji, limited: g.limited })),
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

/** A send the recipient refused comes back refunded, as a 400 naming the recipient's choice. */
export const recipientRefusesBody = (order: OrderOfType<"gift">) => ({
  success: false as const,
  error: `${order.error} (refunded)`,
  error_code: "recipient_refuses" as const,
});
