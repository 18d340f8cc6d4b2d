import { z } from "zod";
import { fromUsd } from "../core/model/money.js";
import type { StorePort, UpstreamOutcome } from "../core/ports.js";
import { reasonOf } from "../core/model/reasons.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { lookup, missing, notConfigured, providerUsd, readAlways, submit } from "./provider.js";

const limitsSchema = z.object({ min_usd: providerUsd, max_usd: providerUsd, fee_ratio: z.number().min(0).max(1) });
const orderSchema = z.object({
  status: z.enum(["completed", "failed", "processing"]),
  order_uuid: z.string().optional(),
  code: z.string().optional(),
  error: z.string().optional(),
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
      submit(http, "/store/orders", { reference: order.reference, login: order.login, amount_usd: order.amountMicro / 1_000_000 }, map),
    status: (reference) => lookup(http, `/store/orders/${encodeURIComponent(reference)}`, map),
  };
}
