import type { FastifyReply } from "fastify";
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

/**
 * On a purchase's answer about its order: `true` when the order is an earlier one, answered again (same key, same
 * identifying fields), `false` when this request placed it. Refusals that placed nothing carry none (decision 0032).
 */
export const markReplay = (reply: FastifyReply, replay: boolean) => reply.header("idempotent-replayed", replay ? "true" : "false");

/** A purchase route's schema mark: the OpenAPI document adds Idempotent-Replayed to its order answers (src/api/openapi.ts). */
export const REPLAYS = { "x-idempotent-replayed": true } as const;
