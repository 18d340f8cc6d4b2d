import { z } from "zod";
import { fromUsd, toUsd } from "../core/model/money.js";
import type { StorePort, UpstreamOutcome } from "../core/ports.js";
import { reasonOf } from "../core/model/reasons.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import {
  lookup,
  missing,
  notConfigured,
  orderReference,
  orderStatus,
  PROVIDER_ORDER_ID_MEANING,
  providerUsd,
  readAlways,
  submit,
} from "./provider.js";

// What this adapter sends and accepts: the store's part of docs/provider-protocol.openapi.json.
export const limitsSchema = z.object({
  min_usd: providerUsd.describe("The smallest top-up, in USD"),
  max_usd: providerUsd.describe("The largest top-up, in USD"),
  fee_ratio: z.number().min(0).max(1).describe("The provider's fee as a fraction of the amount (0.03 is 3 %)"),
});
export const storeOrderRequest = z.object({
  reference: orderReference,
  login: z.string().describe("The account login to top up, as the partner gave it"),
  amount_usd: z.number().positive().describe("The top-up in USD, whole cents"),
});
export const orderSchema = z.object({
  status: orderStatus,
  order_uuid: z.string().optional().describe(PROVIDER_ORDER_ID_MEANING),
  code: z
    .string()
    .optional()
    .describe(
      "A failure's reason: kept as the order's `error_code` when it is one of the service's reasons (`invalid_amount`, `provider_balance`, `expired`, `login_not_supported`, …); anything else is `provider_error`",
    ),
  error: z.string().optional().describe("A failure's message, kept as the order's `error`"),
});

/** The game-store wallet provider over HTTP. */
export function createStoreAdapter(http: HttpClient | null): StorePort {
  if (!http) return { ...notConfigured, limits: missing, order: missing, status: missing };
  const map = (response: UpstreamResponse): UpstreamOutcome => {
    const answer = http.parse(orderSchema, response);
    const provider = { providerOrderId: answer.order_uuid, providerStatus: answer.status };
    if (answer.status === "completed") return { kind: "completed", ...provider };
    if (answer.status === "failed")
      return { kind: "failed", error: answer.error ?? "The provider rejected the order", reason: reasonOf(answer.code), ...provider };
    return { kind: "pending", ...provider };
  };
  return {
    configured: true,
    ready: () => http.ready("/store/health"),
    async limits() {
      const limits = await readAlways(http, "/store/limits", limitsSchema);
      return { minMicro: fromUsd(limits.min_usd), maxMicro: fromUsd(limits.max_usd), feePpm: Math.round(limits.fee_ratio * 1_000_000) };
    },
    order: (order) =>
      submit(
        http,
        "/store/orders",
        { reference: order.reference, login: order.login, amount_usd: toUsd(order.amountMicro) } satisfies z.input<typeof storeOrderRequest>,
        map,
      ),
    status: (reference) => lookup(http, `/store/orders/${encodeURIComponent(reference)}`, map),
  };
}
