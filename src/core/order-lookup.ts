import type { Db } from "../db/database.js";
import { listOrders, ownOrder, sealedCodes } from "../db/orders.js";
import type { OrderFilter, ListedOrder, Order, OrderOfType, ProductType } from "./model/products.js";
import { availableTo, type Caller } from "./accounts.js";
import { notFound } from "./model/errors.js";
import type { Micro } from "./model/money.js";
import type { Clock } from "./model/clock.js";
import type { Settlement } from "./settlement.js";
import type { Vault } from "./vault.js";

export interface OrdersOptions {
  db: Db;
  clock: Clock;
  settlement: Settlement;
  vault: Vault;
}

/** The caller's own orders, as domain objects; someone else's order is as unknown as a missing one. */
export function createOrders({ db, clock, settlement, vault }: OrdersOptions) {
  /** `read`: the order as the caller's key read already found it (Caller.ownOrder), when it did. */
  async function own(accountId: number, orderId: number, types?: readonly ProductType[], read?: Caller["ownOrder"]): Promise<Order> {
    const found = read?.id === orderId ? read.order : await ownOrder(db, accountId, orderId);
    if (!found || (types && !types.includes(found.productType))) {
      throw notFound(`Order ${orderId} not found`, { reason: "order_not_found" });
    }
    return found;
  }

  /** An own order as it is now: a `processing` one is first asked about at its provider (the spec's live status). */
  async function current(accountId: number, orderId: number): Promise<Order>;
  async function current<T extends ProductType>(accountId: number, orderId: number, types: readonly T[]): Promise<OrderOfType<T>>;
  async function current(accountId: number, orderId: number, types?: readonly ProductType[]): Promise<Order> {
    return settlement.refresh(await own(accountId, orderId, types));
  }

  /**
   * An own order as it is now, and what the caller can spend now: the account is read again only when the refresh
   * applied an outcome (a failure's refund moves the balance). refresh answers the very order it was given when it
   * changed nothing without asking.
   */
  async function status(caller: Caller, orderId: number): Promise<{ order: Order; availableMicro: Micro }>;
  async function status<T extends ProductType>(
    caller: Caller,
    orderId: number,
    types: readonly T[],
  ): Promise<{ order: OrderOfType<T>; availableMicro: Micro }>;
  async function status(caller: Caller, orderId: number, types?: readonly ProductType[]) {
    const found = await own(caller.account.id, orderId, types, caller.ownOrder);
    const order = await settlement.refresh(found);
    return { order, availableMicro: await availableTo(db, caller, clock.now(), order === found) };
  }

  return {
    current,
    status,

    /** Newest first; `before` pages on (orders with smaller ids), the filters narrow by product and status. */
    list: (accountId: number, limit: number, filter: OrderFilter = {}): Promise<ListedOrder[]> => listOrders(db, accountId, limit, filter),

    /** The codes of a completed gift card order, decrypted; empty otherwise. Only the owner's views show them. */
    async codes(order: ListedOrder): Promise<string[]> {
      if (order.productType !== "giftcard" || order.status !== "completed") return [];
      const sealed = await sealedCodes(db, order.id);
      return sealed ? vault.open(sealed) : [];
    },

    onSettled: settlement.onSettled,
  };
}
