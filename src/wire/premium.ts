import { z } from "zod";
import type { Priced } from "../core/purchase.js";
import { PREMIUM_MONTHS } from "../core/formats.js";
import type { Micro } from "../core/model/money.js";
import type { OrderOfType } from "../core/model/products.js";
import { expect, purchaseBody, sandboxOrder, usernameField } from "./common.js";
import { purchaseSandboxView, purchaseView } from "./stars.js";

// Premium: its body; its answer is the PurchaseResponse it shares with stars (wire/stars.ts).

export const premiumBody = purchaseBody({
  username: usernameField,
  months: z.literal(PREMIUM_MONTHS, expect("months", `one of ${PREMIUM_MONTHS.join(", ")}`)),
});

export const premiumView = (order: OrderOfType<"premium">, balanceMicro: Micro) => purchaseView(order, balanceMicro);

export const premiumSandboxView = (
  price: Priced<OrderOfType<"premium">["details"]>,
  context: { idempotencyKey: string | null; now: Date },
  balanceMicro: Micro,
) => purchaseSandboxView(sandboxOrder("premium", price, context), balanceMicro);

export const premiumRequestOf = (body: z.infer<typeof premiumBody>) => ({ username: body.username, months: body.months });

/** Premium's 502 is the Error body (the contract says so), naming the order and the refunded amount, and why. */
export const premiumFailedBody = (order: OrderOfType<"premium">, usdtCharged: number) => ({
  success: false as const,
  error: `Premium delivery failed (${order.error ?? "provider error"}); order ${order.id} was refunded ${usdtCharged} USDT`,
  error_code: order.reason ?? "provider_error",
});
