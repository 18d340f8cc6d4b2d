import { z } from "zod";
import {
  type GatewayPort,
  type RecipientProfile,
  type SearchProduct,
  UpstreamError,
  type UpstreamOutcome,
  type UpstreamStatus,
} from "../core/ports.js";
import { type HttpClient, NotSentError } from "./http.js";

const profileSchema = z.object({
  username: z.string(),
  name: z.string(),
  photo: z.string(),
  premium: z.boolean().nullable(),
});

const deliverySchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("completed"), transaction_id: z.string() }),
  z.object({ status: z.literal("failed"), error: z.string() }),
  z.object({ status: z.literal("processing") }),
]);

function toOutcome(delivery: z.infer<typeof deliverySchema>): UpstreamOutcome {
  if (delivery.status === "completed") return { kind: "completed", transactionId: delivery.transaction_id };
  if (delivery.status === "failed") return { kind: "failed", error: delivery.error };
  return { kind: "pending" };
}

/** The stars/premium delivery gateway over HTTP. Never throws from deliver/status: it reports what it knows. */
export function createGatewayAdapter(http: HttpClient | null): GatewayPort {
  if (!http) {
    return {
      configured: false,
      ready: async () => false,
      search: async () => {
        throw new UpstreamError("not configured");
      },
      deliver: async () => ({ kind: "failed", error: "delivery backend not configured" }),
      status: async () => ({ kind: "unknown", error: "delivery backend not configured" }),
    };
  }
  return {
    configured: true,
    ready: () => http.ready("/gateway/health"),

    async search(query: string, product: SearchProduct): Promise<RecipientProfile | null> {
      try {
        const response = await http.call("POST", "/gateway/search", { query, product_type: product });
        if (response.status === 404) return null;
        if (response.status !== 200) throw new UpstreamError(`HTTP ${response.status}`);
        return http.parse(profileSchema, response);
      } catch (error) {
        if (error instanceof UpstreamError) throw error;
        throw new UpstreamError((error as Error).message, error);
      }
    },

    async deliver(order): Promise<UpstreamOutcome> {
      try {
        const response = await http.call("POST", "/gateway/deliveries", {
          reference: order.reference,
          product_type: order.product,
          username: order.username,
          amount: order.amount,
        });
        if (response.status >= 500) return { kind: "unknown", error: `provider answered HTTP ${response.status}` };
        return toOutcome(http.parse(deliverySchema, response));
      } catch (error) {
        // Never sent: nothing can have been delivered, so it is a definite failure and the charge is refunded.
        if (error instanceof NotSentError) return { kind: "failed", error: "The delivery provider is unreachable" };
        return { kind: "unknown", error: (error as Error).message };
      }
    },

    async status(reference: string): Promise<UpstreamStatus> {
      try {
        const response = await http.call("GET", `/gateway/deliveries/${encodeURIComponent(reference)}`);
        if (response.status === 404) return { kind: "not_found" };
        if (response.status !== 200) return { kind: "unknown", error: `provider answered HTTP ${response.status}` };
        return toOutcome(http.parse(deliverySchema, response));
      } catch (error) {
        return { kind: "unknown", error: (error as Error).message };
      }
    },
  };
}
