import { z } from "zod";
import type { GatewayPort, UpstreamOutcome } from "../core/ports.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { lookup, missing, notConfigured, orderReference, read, submit } from "./provider.js";

// What this adapter sends and accepts: the gateway's part of docs/provider-protocol.openapi.json.
export const searchRequest = z.object({
  query: z.string().describe("The recipient's Telegram username, without the @"),
  product_type: z.enum(["stars", "premium", "ads"]).describe("What the recipient is looked up for"),
});
export const profileSchema = z.object({
  username: z.string().describe("The recipient's username as the provider knows it; one that is not a valid username counts as not found"),
  name: z.string().describe("Display name"),
  photo: z.string().describe("Profile photo URL"),
  premium: z.boolean().nullable().describe("Whether the user has Telegram Premium; null when the provider cannot tell"),
});
export const deliveryRequest = z.object({
  reference: orderReference,
  product_type: z.enum(["stars", "premium"]),
  username: z.string().describe("The recipient's Telegram username, without the @"),
  amount: z.number().int().positive().describe("stars: how many stars; premium: how many months"),
});
export const deliverySchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("completed"),
    transaction_id: z.string().describe("The provider's id of the delivery, kept as the order's `transaction_id`"),
  }),
  z.object({ status: z.literal("failed"), error: z.string().describe("Why, kept as the order's `error`; the order is refunded") }),
  z.object({ status: z.literal("processing").describe("Taken, not done yet: the service asks again by reference") }),
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
    search: (query, product) =>
      read(http, "/gateway/search", profileSchema, { query, product_type: product } satisfies z.input<typeof searchRequest>),
    deliver: (order) =>
      submit(
        http,
        "/gateway/deliveries",
        {
          reference: order.reference,
          product_type: order.product,
          username: order.username,
          amount: order.amount,
        } satisfies z.input<typeof deliveryRequest>,
        map,
      ),
    status: (reference) => lookup(http, `/gateway/deliveries/${encodeURIComponent(reference)}`, map),
  };
}
