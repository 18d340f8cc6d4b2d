import type { OrderOf, ProductDefinition } from "../order.js";
import { premiumProduct, starsProduct } from "./telegram.js";
import { gamesProduct } from "./games.js";
import { giftcardProduct } from "./giftcards.js";
import { giftProduct } from "./gifts.js";
import { storeProduct } from "./store.js";

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
