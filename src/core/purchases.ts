import type { Caller } from "./accounts.js";
import { DomainError, notFound, unavailable } from "./errors.js";
import type { Micro } from "./money.js";
import type { Orders, Placed } from "./orders.js";
import { type GatewayPort, type RecipientProfile, type SearchProduct, UpstreamError } from "./ports.js";
import type { Pricing } from "./pricing.js";

/** A stars or premium purchase: `amount` is the stars count or the months. */
export interface DeliveryRequest {
  product: "stars" | "premium";
  username: string;
  amount: number;
  idempotencyKey: string | null;
}

export interface StarsDetails {
  stars: number;
  usdt_per_star_micro: Micro;
}

export interface PremiumDetails {
  months: number;
  price_micro: Micro;
}

export interface Found extends RecipientProfile {
  myself: boolean;
}

/** Telegram usernames are case-insensitive and may be written with a leading @. */
export const normaliseUsername = (username: string) => username.replace(/^@/, "");

export function createPurchases(gateway: GatewayPort, orders: Orders, pricing: Pricing) {
  function requireGateway() {
    if (!gateway.configured) throw unavailable("The delivery backend is not configured");
  }

  function price(request: DeliveryRequest): { chargeMicro: Micro; details: StarsDetails | PremiumDetails } {
    if (request.product === "stars") {
      return {
        chargeMicro: pricing.starsPrice(request.amount),
        details: { stars: request.amount, usdt_per_star_micro: pricing.tariffs.usdtPerStarMicro },
      };
    }
    const priceMicro = pricing.premiumPrice(request.amount);
    return { chargeMicro: priceMicro, details: { months: request.amount, price_micro: priceMicro } };
  }

  return {
    /** What a real order would charge; nothing is stored, charged or delivered (the sandbox). */
    quote(request: DeliveryRequest): Micro {
      return price(request).chargeMicro;
    },

    async search(caller: Caller, product: SearchProduct, query: string): Promise<Found> {
      requireGateway();
      let profile: RecipientProfile | null;
      try {
        profile = await gateway.search(normaliseUsername(query), product);
      } catch (error) {
        if (error instanceof UpstreamError) throw new DomainError("upstream_failed", `Recipient search failed: ${error.message}`);
        throw error;
      }
      if (!profile) throw notFound(`Recipient ${query} not found`);
      const own = caller.account.username;
      return {
        ...profile,
        premium: product === "premium" ? profile.premium : null,
        myself: own !== null && own.toLowerCase() === profile.username.toLowerCase(),
      };
    },

    /**
     * Charges, then delivers. The charge commits before the provider is called; a definite failure refunds,
     * an unknown outcome leaves the order `processing` for the status endpoint and the reconciler.
     */
    async buy(caller: Caller, request: DeliveryRequest): Promise<Placed> {
      const username = normaliseUsername(request.username);
      const identifying = [username.toLowerCase(), request.amount];
      const earlier = await orders.replay(caller, request.product, identifying, request.idempotencyKey);
      if (earlier) return { order: earlier, replay: true };
      requireGateway();
      const { chargeMicro, details } = price(request);
      return orders.submit(
        caller,
        {
          productType: request.product,
          recipient: username,
          details: { ...details },
          chargeMicro,
          idempotencyKey: request.idempotencyKey,
          identifying,
        },
        (order) =>
          gateway.deliver({
            reference: order.upstream_ref,
            product: request.product,
            username,
            amount: request.amount,
          }),
      );
    },
  };
}

export type Purchases = ReturnType<typeof createPurchases>;
