import type { Db } from "../db/database.js";
import { notFound } from "./errors.js";
import type { OrderStatus } from "./order.js";
import { type Order, type OrderOfType, type ProductType, toOrder } from "./products/index.js";
import type { Settlement } from "./settlement.js";
import type { Vault } from "./vault.js";

export interface OrderFilter {
  before?: number | null;
  productType?: ProductType | null;
  status?: OrderStatus | null;
}

/** The caller's own orders, as domain objects; someone else's order is as unknown as a missing one. */
export function createOrders(db: Db, settlement: Settlement, vault: Vault) {
  async function row(accountId: number, orderId: number, types?: readonly ProductType[]) {
    const found = await db.selectFrom("orders").selectAll().where("id", "=", orderId).where("account_id", "=", accountId).executeTakeFirst();
    if (!found || (types && !types.includes(found.product_type as ProductType))) {
      throw notFound(`Order ${orderId} not found`, { reason: "order_not_found" });
    }
    return found;
  }

  /** An own order as it is now: a `processing` one is first asked about at its provider (the spec's live status). */
  async function current(accountId: number, orderId: number): Promise<Order>;
  async function current<T extends ProductType>(accountId: number, orderId: number, types: readonly T[]): Promise<OrderOfType<T>>;
  async function current(accountId: number, orderId: number, types?: readonly ProductType[]): Promise<Order> {
    return toOrder(await settlement.refresh(await row(accountId, orderId, types)));
  }

  return {
    current,

    /** Newest first; `before` pages on (orders with smaller ids), the filters narrow by product and status. */
    async list(accountId: number, limit: number, filter: OrderFilter = {}): Promise<Order[]> {
      let query = db.selectFrom("orders").selectAll().where("account_id", "=", accountId);
      if (filter.before) query = query.where("id", "<", filter.before);
      if (filter.productType) query = query.where("product_type", "=", filter.productType);
      if (filter.status) query = query.where("status", "=", filter.status);
      const rows = await query.orderBy("id", "desc").limit(limit).execute();
      return rows.map(toOrder);
    },

    /** The codes of a completed gift card order, decrypted; empty otherwise. Only the owner's views show them. */
    async codes(order: Order): Promise<string[]> {
      if (order.productType !== "giftcard" || order.status !== "completed") return [];
      const found = await db.selectFrom("orders").select("sealed_codes").where("id", "=", order.id).executeTakeFirst();
      return found?.sealed_codes ? vault.open(found.sealed_codes) : [];
    },

    onSettled: settlement.onSettled,
  };
}
