import type { OrderRow } from "../../db/schema.js";
import { orderOf, type OrderOf, type ProductDefinition } from "../order.js";
import { premiumProduct, starsProduct } from "./delivery.js";
import { gameProduct } from "./games.js";
import { giftcardProduct } from "./giftcards.js";
import { giftProduct } from "./gifts.js";
import { storeProduct } from "./store.js";

/** The one product list: routes' enums, order lookups, status sources and the domain Order all derive from it. */
export const PRODUCTS = [starsProduct, premiumProduct, storeProduct, gameProduct, giftcardProduct, giftProduct] as const;

type Product = (typeof PRODUCTS)[number];
export type ProductType = Product["type"];
export const PRODUCT_TYPES = PRODUCTS.map((p) => p.type) as [ProductType, ...ProductType[]];

/** An order of any product: a union discriminated on `productType`, each with its typed details. */
export type Order = Product extends infer P ? (P extends ProductDefinition<infer T, infer D> ? OrderOf<T, D> : never) : never;
export type OrderOfType<T extends ProductType> = Extract<Order, { productType: T }>;

const byType = new Map<string, ProductDefinition<string, unknown>>(PRODUCTS.map((p) => [p.type, p]));

/** A stored order as its product's domain object. */
export function toOrder(row: OrderRow): Order {
  const product = byType.get(row.product_type);
  if (!product) throw new Error(`order ${row.id} has an unknown product type ${row.product_type}`);
  return orderOf(row, product) as Order;
}
