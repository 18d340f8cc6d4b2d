import { z } from "zod";
import type { Priced } from "../core/purchase.js";
import { STARS_MAX, STARS_MIN, USERNAME_PATTERN, USERNAME_RULE } from "../core/formats.js";
import { type Micro, toUsdt } from "../core/model/money.js";
import type { OrderOfType } from "../core/model/products.js";
import { expect, orderEnvelope, orderStatus, purchaseBody, reason, sandboxOrder, usernameField, envelopeHead, envelopeTail } from "./common.js";

// Stars, and the answer stars and premium share (the contract's PurchaseResponse), with its sandbox twin.

export const starsBody = purchaseBody({
  username: usernameField,
  stars: z
    .number(expect("stars", "a whole number"))
    .int("stars must be a whole number")
    .min(STARS_MIN, `stars must be at least ${STARS_MIN}`)
    .max(STARS_MAX, `stars must be at most ${STARS_MAX}`),
});

export const purchaseResponse = orderEnvelope(z.enum(["stars", "premium"]), {
  username: z.string(),
  amount: z.number().int(),
  stars: z.number().int().nullable(),
  months: z.number().int().nullable(),
  usdt_charged: z.number(),
  status: orderStatus,
  transaction_id: z.string().nullable(),
  error: z.string().nullable(),
  error_code: reason.nullable().describe("Only when failed: why (provider_error, …); null otherwise"),
  balance_remaining_usdt: z.number(),
}).meta({ id: "PurchaseResponse" });

export const sandboxResponse = purchaseResponse.extend({ test: z.literal(true) }).meta({ id: "SandboxPurchaseResponse" });

export type PurchaseAnswer = z.infer<typeof purchaseResponse>;
type Telegram = OrderOfType<"stars" | "premium">;

/** A stars or premium order with the key's balance right after. */
export function purchaseView(order: Telegram, balanceMicro: Micro): PurchaseAnswer {
  const stars = order.productType === "stars" ? order.details.stars : null;
  const months = order.productType === "premium" ? order.details.months : null;
  return {
    success: order.status === "completed",
    ...envelopeHead(order),
    username: order.recipient,
    amount: stars ?? months ?? 0,
    stars,
    months,
    usdt_charged: toUsdt(order.chargeMicro),
    status: order.status,
    transaction_id: order.transactionId,
    error: order.error,
    error_code: order.status === "failed" ? order.reason : null,
    balance_remaining_usdt: toUsdt(balanceMicro),
    ...envelopeTail(order),
  };
}

export const starsView = (order: OrderOfType<"stars">, balanceMicro: Micro) => purchaseView(order, balanceMicro);

/** The sandbox answer of stars and premium: the order a real purchase would make, marked `test`. */
export const purchaseSandboxView = (order: Telegram, balanceMicro: Micro): z.infer<typeof sandboxResponse> =>
  // Marked last, as the schema has it (a test event's payload is this object as it is), on the view's own object.
  Object.assign(purchaseView(order, balanceMicro), { test: true as const });

export const starsSandboxView = (
  price: Priced<OrderOfType<"stars">["details"]>,
  context: { idempotencyKey: string | null; now: Date },
  balanceMicro: Micro,
) => purchaseSandboxView(sandboxOrder("stars", price, context), balanceMicro);

export const starsRequestOf = (body: z.infer<typeof starsBody>) => ({ username: body.username, stars: body.stars });

// ---- Search (the recipient of a stars or premium purchase) -----------------------------------------------

const digits = (name: string) =>
  z.union([z.string().regex(/^\d{1,9}$/, `${name} must be a whole number`), z.number().int().min(0).max(999_999_999)]).optional();

export const searchBody = z.object({
  product_type: z.enum(["stars", "premium", "ads"], expect("product_type", "one of stars, premium, ads")),
  query: z
    .string(expect("query", "a string"))
    .trim()
    .min(1, "query must not be empty")
    .regex(USERNAME_PATTERN, `query must be a username: ${USERNAME_RULE}`)
    .describe("A username, as the purchase endpoints take it"),
  quantity: digits("quantity"),
  months: digits("months"),
  amount: digits("amount"),
});

export const searchResponse = z.object({
  success: z.literal(true),
  found: z.object({
    myself: z.boolean(),
    name: z.string(),
    photo: z.string(),
    recipient: z.string(),
    premium: z.boolean().nullable(),
  }),
});

export const searchView = (found: { myself: boolean; name: string; photo: string; username: string; premium: boolean | null }) => ({
  success: true as const,
  found: { myself: found.myself, name: found.name, photo: found.photo, recipient: found.username, premium: found.premium },
});
