import { z } from "zod";
import type { GatewayPort, UpstreamOutcome } from "../core/ports.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { lookup, missing, notConfigured, read, submit } from "./provider.js";

const profileSchema = z.object({ username: z.string(), name: z.string(), photo: z.string(), premium: z.boolean().nullable() });

const deliverySchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("completed"), transaction_id: z.string() }),
  z.object({ status: z.literal("failed"), error: z.string() }),
  z.object({ status: z.literal("processing") }),
]);

/** The stars/premium delivery gateway over HTTP. */
export function createGatewayAdapter(http: HttpClient | null): GatewayPort {
  if (!http) return { ...notConfigured, search: missing, deliver: missing, status: missing };
  const map = (response: UpstreamResponse): UpstreamOutcome => {
    const delivery = http.parse(deliverySchema, response);
    if (delivery.status === "completed") return { kind: "completed", transactionId: delivery.transaction_id };
    if (delivery.status === "failed") return { kind: "failed", error: delivery.error };
    return { kind: "pending" };
  };
  return {
    configured: true,
    ready: () => http.ready("/gateway/health"),
    search: (query, product) => read(http, "/gateway/search", profileSchema, { query, product_type: product }),
    deliver: (order) =>
      submit(
        http,
        "/gateway/deliveries",
        { reference: order.reference, product_type: order.product, username: order.username, amount: order.amount },
        map,
      ),
    status: (reference) => lookup(http, `/gateway/deliveries/${encodeURIComponent(reference)}`, map),
  };
}
