import type { Funds, GatewayPort, Precheck, RecipientProfile, UpstreamOutcome, UpstreamStatus, SentOrder } from "../core/ports.js";
import { UpstreamError } from "../core/ports.js";

/** What each product is delivered by (config's `*_BACKEND`); stars, the store and games always by the protocol. */
export interface Backends {
  premium: "protocol" | "telegram";
  gifts: "protocol" | "telegram";
  giftcards: "protocol" | "reloadly";
}

/** Premium from a backend of its own (the bot's Bot API), beside the gateway that delivers stars. */
export interface PremiumBackend {
  ready(): Promise<boolean>;
  funds(): Promise<Funds>;
  search(username: string): Promise<RecipientProfile | null>;
  precheck(order: { username: string; amount: number }): Promise<Precheck>;
  deliver(order: { reference: string; username: string; amount: number }): Promise<UpstreamOutcome>;
  status(reference: string, order?: SentOrder): Promise<UpstreamStatus>;
}

/**
 * One gateway port over two backends: Premium (its search, precheck, delivery and lookups) from `premium`, stars
 * and the other searches from the protocol's gateway. Ready only when both are: `delivery_ready` covers both.
 */
export function premiumVia(gateway: GatewayPort, premium: PremiumBackend): GatewayPort {
  return {
    configured: true,
    ready: async () => (await Promise.all([gateway.ready(), premium.ready()])).every(Boolean),
    funds: () => premium.funds(),
    search: (query, product) => (product === "premium" ? premium.search(query) : gateway.search(query, product)),
    async precheck(order) {
      if (order.product === "premium") return premium.precheck(order);
      // Stars still go to the gateway: without one, refused before the charge.
      if (!gateway.configured) throw new UpstreamError("no gateway is configured for stars");
      return gateway.precheck ? gateway.precheck(order) : null;
    },
    deliver: (order) => (order.product === "premium" ? premium.deliver(order) : gateway.deliver(order)),
    status: (reference, order) => (order?.productType === "premium" ? premium.status(reference, order) : gateway.status(reference, order)),
  };
}
