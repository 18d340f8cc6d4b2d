import type { Caller } from "../accounts.js";
import type { Contacts } from "../contacts.js";
import { unknownRecipient, unknownRecipientRefusal } from "../model/contact.js";
import { DomainError, notFound, unavailable } from "../model/errors.js";
import { parseUsername, recipientOf } from "../formats.js";
import type { Micro } from "../model/money.js";
import type { ProductDefinition } from "../model/order.js";
import { type GatewayPort, type Precheck, type RecipientProfile, type SearchProduct, UpstreamError } from "../ports.js";
import type { Pricing } from "../pricing.js";
import { starsProduct, premiumProduct } from "../model/products.js";
import type { Purchasable, PurchasePipeline } from "../purchase.js";

// Stars and premium: two products delivered to a Telegram username, each by its own port (one gateway may serve both).

export interface StarsRequest {
  username: string;
  stars: number;
}

export interface PremiumRequest {
  username: string;
  months: number;
}

export interface Found extends RecipientProfile {
  myself: boolean;
}

export interface TelegramProductsOptions {
  /** What delivers stars (and answers the searches for stars and ads), and what delivers Premium. */
  ports: { stars: GatewayPort; premium: GatewayPort };
  pipeline: PurchasePipeline;
  pricing: Pricing;
  /** Who may not receive Premium (administrators, unless allowed). */
  recipients: Pick<Contacts, "barred" | "barredId">;
  /** Whether Premium is sent by the bot (PREMIUM_BACKEND=telegram): its recipients are the bot's contacts. */
  premiumByBot: boolean;
}

export function createTelegramProducts({ ports, pipeline, pricing, recipients, premiumByBot }: TelegramProductsOptions) {
  const portOf = (product: SearchProduct) => (product === "premium" ? ports.premium : ports.stars);
  function requireGateway(gateway: GatewayPort) {
    if (!gateway.configured) throw unavailable("The delivery backend is not configured");
  }

  /**
   * The backend's own refusals before the charge: an unknown recipient is the caller's to fix, a short balance ours.
   * Else the recipient as the backend addresses them (the order keeps it), or null.
   */
  async function precheck(order: { product: "stars" | "premium"; username: string; amount: number }): Promise<string | null> {
    const gateway = portOf(order.product);
    if (!gateway.precheck) return null;
    let answer: Precheck;
    try {
      answer = await gateway.precheck({ ...order, recipientId: null });
    } catch (error) {
      if (error instanceof UpstreamError) throw unavailable("The delivery backend is unavailable: retry later");
      throw error;
    }
    if (answer === null) return null;
    if ("recipientId" in answer) return answer.recipientId;
    // The backend's own wording may tell reasons apart: the one answer for every unknown recipient instead.
    if (answer.refused === "recipient_unknown") throw unknownRecipientRefusal(order.username);
    throw unavailable(`${answer.message}; nothing was charged`, { reason: "provider_balance" });
  }

  /** Both products differ only in what they deliver and how it is priced. */
  function delivered<T extends "stars" | "premium", R extends { username: string }, D>(
    definition: ProductDefinition<T, D>,
    amountOf: (request: R) => number,
    price: (request: R) => { chargeMicro: Micro; details: D },
  ): Purchasable<T, R, D> {
    const gateway = portOf(definition.type);
    return {
      ...definition,
      // Usernames are case-insensitive: @Alice and alice are the same recipient.
      identify: (request) => [recipientOf(request.username).toLowerCase(), amountOf(request)],
      // A backend that checks before the charge is asked, so a replay cannot skip the lookup.
      preparesOffline: gateway.precheck === undefined,
      async prepare(_caller, request) {
        const username = recipientOf(request.username);
        requireGateway(gateway);
        const { chargeMicro, details } = price(request);
        const amount = amountOf(request);
        if (definition.type === "premium" && (await recipients.barred(username))) throw unknownRecipientRefusal(username);
        const recipientId = await precheck({ product: definition.type, username, amount });
        if (definition.type === "premium" && recipientId && recipients.barredId(recipientId)) throw unknownRecipientRefusal(username);
        return {
          recipient: username,
          recipientId,
          chargeMicro,
          details,
          send: (reference) => gateway.deliver({ reference, product: definition.type, username, amount, recipientId }),
        };
      },
    };
  }

  const stars = delivered(
    starsProduct,
    (r: StarsRequest) => r.stars,
    (r) => ({ chargeMicro: pricing.starsPrice(r.stars), details: { stars: r.stars, usdt_per_star_micro: pricing.tariffs.usdtPerStarMicro } }),
  );
  const premium = delivered(
    premiumProduct,
    (r: PremiumRequest) => r.months,
    (r) => {
      const priceMicro = pricing.premiumPrice(r.months);
      return { chargeMicro: priceMicro, details: { months: r.months, price_micro: priceMicro } };
    },
  );

  return {
    stars: pipeline.offer(stars),
    premium: pipeline.offer(premium),

    /** A recipient the purchase endpoints will take: the query is a username by their rule, and so is the answer. */
    async search(caller: Caller, product: SearchProduct, query: string): Promise<Found> {
      const username = recipientOf(query, "query");
      const gateway = portOf(product);
      requireGateway(gateway);
      // Premium from the bot: its contacts answer, and every unknown (barred included) reads alike.
      const fromContacts = product === "premium" && premiumByBot;
      const missing = () => notFound(fromContacts ? unknownRecipient(username) : `Recipient ${query} not found`);
      if (product === "premium" && (await recipients.barred(username))) throw missing();
      let profile: RecipientProfile | null;
      try {
        profile = await gateway.search(username, product);
      } catch (error) {
        if (error instanceof UpstreamError) throw new DomainError("upstream_failed", `Recipient search failed: ${error.message}`);
        throw error;
      }
      if (!profile || parseUsername(profile.username) === null) throw missing();
      const own = caller.account.username;
      return {
        myself: own !== null && own.toLowerCase() === profile.username.toLowerCase(),
        ...profile,
        premium: product === "premium" ? profile.premium : null,
      };
    },
  };
}
