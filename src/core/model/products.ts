import { z } from "zod";
import { MINUTE, type OrderOf, type OrderStatus, type ProductDefinition } from "./order.js";

// Each product as the model knows it: its type, who settles it, the shape of its details and how long it may take.

const starsDetails = z.object({ stars: z.number().int(), usdt_per_star_micro: z.number().int() });
const premiumDetails = z.object({ months: z.number().int(), price_micro: z.number().int() });
export type StarsDetails = z.infer<typeof starsDetails>;
export type PremiumDetails = z.infer<typeof premiumDetails>;

export const starsProduct: ProductDefinition<"stars", StarsDetails> = {
  type: "stars",
  port: "stars",
  details: starsDetails,
  settlesWithinMs: 10 * MINUTE,
};
/**
 * Premium gifted by a bot for Stars: months to Telegram's fixed price in Stars (Bot API giftPremiumSubscription).
 * Here, not in the Telegram adapter, so the configuration can hold the tariffs against what those Stars cost.
 */
export const PREMIUM_STARS: Readonly<Record<number, number>> = { 3: 1000, 6: 1500, 12: 2500 };

export const premiumProduct: ProductDefinition<"premium", PremiumDetails> = {
  type: "premium",
  port: "premium",
  details: premiumDetails,
  settlesWithinMs: 10 * MINUTE,
};

const storeDetails = z.object({
  store_login: z.string(),
  amount_micro: z.number().int(),
  fee_micro: z.number().int(),
  cost_micro: z.number().int(),
  markup_bp: z.number().int(),
  markup_micro: z.number().int(),
});
export type StoreDetails = z.infer<typeof storeDetails>;

export const storeProduct: ProductDefinition<"store", StoreDetails> = {
  type: "store",
  port: "store",
  details: storeDetails,
  settlesWithinMs: 30 * MINUTE,
};

const gamesDetails = z.object({
  game_code: z.string(),
  denomination: z.string(),
  player_id: z.string(),
  server_id: z.string().nullable(),
  player_name: z.string(),
  cost_micro: z.number().int(),
  markup_bp: z.number().int(),
  /** The game's name as the provider lists it; absent on orders placed before names were kept. */
  game_name: z.string().optional(),
});
export type GamesDetails = z.infer<typeof gamesDetails>;

export const gamesProduct: ProductDefinition<"game", GamesDetails> = {
  type: "game",
  port: "games",
  details: gamesDetails,
  settlesWithinMs: 15 * MINUTE,
};

const giftcardDetails = z.object({
  category_id: z.string(),
  card_id: z.string(),
  denomination: z.string(),
  quantity: z.number().int(),
  unit_price_micro: z.number().int(),
  cost_micro: z.number().int(),
  markup_bp: z.number().int(),
  /** The brand's name as the provider lists it; absent on orders placed before names were kept. */
  brand: z.string().optional(),
});
export type GiftcardDetails = z.infer<typeof giftcardDetails>;

export const giftcardProduct: ProductDefinition<"giftcard", GiftcardDetails> = {
  type: "giftcard",
  port: "giftcards",
  details: giftcardDetails,
  settlesWithinMs: 15 * MINUTE,
};

const giftDetails = z.object({
  gift_id: z.string(),
  stars: z.number().int(),
  emoji: z.string(),
  hide_name: z.boolean(),
  message: z.string(),
  usdt_per_star_micro: z.number().int(),
});
export type GiftDetails = z.infer<typeof giftDetails>;

export const giftProduct: ProductDefinition<"gift", GiftDetails> = {
  type: "gift",
  port: "gifts",
  details: giftDetails,
  settlesWithinMs: 10 * MINUTE,
};

/** The one product list: routes' enums, order lookups, status sources and the domain Order all derive from it. */
export const PRODUCTS = [starsProduct, premiumProduct, storeProduct, gamesProduct, giftcardProduct, giftProduct] as const;

type Product = (typeof PRODUCTS)[number];
export type ProductType = Product["type"];
export const PRODUCT_TYPES = PRODUCTS.map((p) => p.type) as [ProductType, ...ProductType[]];

/** An order of any product: a union discriminated on `productType`, each with its typed details. */
export type Order = Product extends infer P ? (P extends ProductDefinition<infer T, infer D> ? OrderOf<T, D> : never) : never;
export type OrderOfType<T extends ProductType> = Extract<Order, { productType: T }>;
type Listed<O> = O extends Order
  ? Pick<
      O,
      "id" | "productType" | "status" | "recipient" | "details" | "chargeMicro" | "transactionId" | "providerOrderId" | "createdAt" | "completedAt"
    >
  : never;
/** An order as a list shows it (GET /v1/orders, the bot's and the Mini App's recent orders): what its page reads. */
export type ListedOrder = Listed<Order>;

/** Which of an account's orders a page lists: before an id, of a product, in a status. */
export interface OrderFilter {
  before?: number | null;
  productType?: ProductType | null;
  status?: OrderStatus | null;
}
