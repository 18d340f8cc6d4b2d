import { fromUsdt } from "../core/model/money.js";
import type { PurchaseOptions } from "../core/purchase.js";

/** What every purchase body carries beside its product fields: the idempotency key, the optional max_usdt guard and quote. */
export function purchaseOptions(body: { idempotency_key?: string | null; max_usdt?: number; quote_id?: string | null }): PurchaseOptions {
  return {
    idempotencyKey: body.idempotency_key ?? null,
    ...(body.max_usdt === undefined ? {} : { guard: { confirmedMicro: fromUsdt(body.max_usdt) } }),
    ...(body.quote_id ? { quoteId: body.quote_id } : {}),
  };
}
