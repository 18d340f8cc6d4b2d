import { sql } from "kysely";
import { type Micro, micro } from "../core/model/money.js";
import type { OrderOf, OrderStatus, ProductDefinition, UnlinkedDelivery } from "../core/model/order.js";
import { type ListedOrder, type Order, PRODUCTS, type OrderFilter, type ProductType } from "../core/model/products.js";
import { type Reason, reasonOf } from "../core/model/reasons.js";
import { compiledOnce, compiledWrite } from "./compiled.js";
import type { Executor } from "./database.js";
import { rowFromJson } from "./exact.js";
import type { OrderRow } from "./schema.js";

// Orders: placed by the purchase pipeline, settled by core/settlement.ts, read by their owner.

const byType = new Map<string, ProductDefinition<string, unknown>>(PRODUCTS.map((p) => [p.type, p]));

/** The columns a list of orders reads: what a list shows, never codes or provider internals. */
const LISTED = [
  "id",
  "product_type",
  "status",
  "recipient",
  "details",
  "charge_micro",
  "transaction_id",
  "provider_order_id",
  "created_at",
  "completed_at",
] as const;
type ListedRow = Pick<OrderRow, (typeof LISTED)[number]>;

/** What a list shows of a stored order, as its product's; details are checked against the product's schema. */
function listedOf<T extends string, D>(row: ListedRow, product: ProductDefinition<T, D>) {
  if (row.product_type !== product.type) throw new Error(`order ${row.id} is a ${row.product_type} order, not ${product.type}`);
  return {
    id: row.id,
    productType: product.type,
    status: row.status,
    recipient: row.recipient,
    chargeMicro: micro(row.charge_micro),
    transactionId: row.transaction_id,
    providerOrderId: row.provider_order_id,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    details: product.details.parse(JSON.parse(row.details)),
  };
}

/**
 * A stored order as the domain object of its product. It begins with a key of its own, not the spread: in V8 each
 * key added after a leading spread is a slow runtime call, about 1 µs each (docs/decisions/0016-object-literals.md).
 */
function orderOf<T extends string, D>(row: OrderRow, product: ProductDefinition<T, D>): OrderOf<T, D> {
  return {
    accountId: row.account_id,
    ...listedOf(row, product),
    fundingAccountId: row.funding_account_id,
    idempotencyKey: row.idempotency_key,
    upstreamRef: row.upstream_ref,
    providerStatus: row.provider_status,
    error: row.error,
    reason: row.error_code === null ? null : reasonOf(row.error_code),
    refunded: row.refunded,
    checkAfter: row.check_after,
    checkAttempts: row.check_attempts,
    backend: row.backend,
    recipientId: row.recipient_id,
    held: row.held,
  };
}

const productOf = (row: Pick<OrderRow, "id" | "product_type">) => {
  const product = byType.get(row.product_type);
  if (!product) throw new Error(`order ${row.id} has an unknown product type ${row.product_type}`);
  return product;
};

/** A stored order as its product's domain object. */
export function toOrder(row: OrderRow): Order {
  return orderOf(row, productOf(row)) as Order;
}

/** An order from its row as PostgreSQL's row_to_json writes it (see rowFromJson). */
export const orderFromJson = (text: string): Order => toOrder(rowFromJson<OrderRow>(text));

const toListed = (row: ListedRow): ListedOrder => listedOf(row, productOf(row)) as ListedOrder;

export interface NewOrder {
  accountId: number;
  fundingAccountId: number;
  productType: string;
  idempotencyKey: string | null;
  requestHash: string;
  recipient: string;
  details: unknown;
  chargeMicro: Micro;
  upstreamRef: string;
  checkAfter: string;
  at: string;
  /** The backend the order is sent to, and the recipient as it addresses them (see OrderBase); absent: null. */
  backend?: string | null;
  recipientId?: string | null;
}

const insertOrderRow = compiledWrite(
  [
    "accountId",
    "fundingAccountId",
    "productType",
    "idempotencyKey",
    "requestHash",
    "recipient",
    "details",
    "chargeMicro",
    "upstreamRef",
    "checkAfter",
    "at",
    "backend",
    "recipientId",
  ],
  (exec, v: Omit<NewOrder, "details" | "backend" | "recipientId"> & { details: string; backend: string | null; recipientId: string | null }) =>
    exec
      .insertInto("orders")
      .values({
        account_id: v.accountId,
        funding_account_id: v.fundingAccountId,
        product_type: v.productType,
        status: "processing",
        idempotency_key: v.idempotencyKey,
        request_hash: v.requestHash,
        recipient: v.recipient,
        details: v.details,
        charge_micro: v.chargeMicro,
        upstream_ref: v.upstreamRef,
        check_after: v.checkAfter,
        created_at: v.at,
        updated_at: v.at,
        backend: v.backend,
        recipient_id: v.recipientId,
      })
      .returningAll(),
);

/** A new `processing` order. A duplicate (account, idempotency key, request) fails on the unique index. */
export async function insertOrder(exec: Executor, order: NewOrder): Promise<Order> {
  const [row] = await insertOrderRow(exec, {
    ...order,
    details: JSON.stringify(order.details),
    backend: order.backend ?? null,
    recipientId: order.recipientId ?? null,
  });
  return toOrder(row!);
}

/** The account's order placed earlier with this idempotency key for the same request, if any. */
const replayQuery = compiledOnce(3, (exec, accountId: number, key: string, requestHash: string) =>
  exec
    .selectFrom("orders")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("idempotency_key", "=", key)
    .where("request_hash", "=", requestHash),
);

export async function findReplay(exec: Executor, accountId: number, key: string, requestHash: string): Promise<Order | undefined> {
  const [row] = await replayQuery(exec, accountId, key, requestHash);
  return row && toOrder(row);
}

export async function orderById(exec: Executor, id: number): Promise<Order | undefined> {
  const row = await exec.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toOrder(row);
}

/** The account's own order; undefined when there is none (or it is someone else's). */
const ownOrderQuery = compiledOnce(2, (exec, accountId: number, id: number) =>
  exec.selectFrom("orders").selectAll().where("id", "=", id).where("account_id", "=", accountId),
);

export async function ownOrder(exec: Executor, accountId: number, id: number): Promise<Order | undefined> {
  const [row] = await ownOrderQuery(exec, accountId, id);
  return row && toOrder(row);
}

/**
 * A page of the account's orders, newest first; `before` pages on (smaller ids), the filters narrow by product
 * and status. Every filter has an index that leads with exactly its columns
 * (`orders_account_newest`, `_product`, `_status`, `_product_status`), so a page reads its own rows and no
 * others, however many orders the account has that do not match.
 */
export function ordersPage(exec: Executor, accountId: number, limit: number, filter: OrderFilter = {}) {
  let query = exec.selectFrom("orders").select(LISTED).where("account_id", "=", accountId);
  if (filter.productType) query = query.where("product_type", "=", filter.productType);
  if (filter.status) query = query.where("status", "=", filter.status);
  if (filter.before) query = query.where("id", "<", filter.before);
  return query.orderBy("id", "desc").limit(limit);
}

/** The page compiled once per combination of filters (each reads its own index prefix), the filters' values as arguments. */
const pageQueries = new Map<string, (exec: Executor, ...args: unknown[]) => Promise<ListedRow[]>>();

export async function listOrders(exec: Executor, accountId: number, limit: number, filter: OrderFilter = {}): Promise<ListedOrder[]> {
  const given = (["productType", "status", "before"] as const).filter((name) => filter[name] !== undefined && filter[name] !== null);
  const shape = given.join();
  let query = pageQueries.get(shape);
  if (!query) {
    query = compiledOnce(2 + given.length, (exec, id, most, ...values) =>
      ordersPage(exec, id as number, most as number, Object.fromEntries(given.map((name, i) => [name, values[i]]))),
    );
    pageQueries.set(shape, query);
  }
  const rows = await query(exec, accountId, limit, ...given.map((name) => filter[name]));
  return rows.map(toListed);
}

/** A listed order with whose it is: an administrator's list of every account's orders. */
export type OwnedOrder = ListedOrder & { accountId: number; telegramId: string | null; username: string | null };

/** The latest orders, newest first: of one account, or (null) of every account. */
export async function latestOrders(exec: Executor, accountId: number | null, limit: number): Promise<OwnedOrder[]> {
  let query = exec
    .selectFrom("orders")
    .innerJoin("accounts", "accounts.id", "orders.account_id")
    .select(LISTED.map((column) => `orders.${column}` as const))
    .select(["orders.account_id", "accounts.telegram_id", "accounts.username"]);
  if (accountId !== null) query = query.where("orders.account_id", "=", accountId);
  const rows = await query.orderBy("orders.id", "desc").limit(limit).execute();
  return rows.map((row) => ({ ...toListed(row), accountId: row.account_id, telegramId: row.telegram_id, username: row.username }));
}

/** The order's sealed codes (a completed gift card order's), or null. */
export async function sealedCodes(exec: Executor, id: number): Promise<string | null> {
  const row = await exec.selectFrom("orders").select("sealed_codes").where("id", "=", id).executeTakeFirst();
  return row?.sealed_codes ?? null;
}

// ---- Settlement: each update changes only a `processing` order ---------------------------------------

/** Provider-side identifiers an answer carried; absent ones stay as they are. */
export interface ProviderMarks {
  providerOrderId?: string;
  providerStatus?: string;
}

/** A provider's marks as the updates below take them: null keeps what the order has. */
const marks = (provider: ProviderMarks) => ({ providerOrderId: provider.providerOrderId ?? null, providerStatus: provider.providerStatus ?? null });
type Marks = ReturnType<typeof marks>;

/** The marks' columns of both updates: each keeps the order's own where the answer carried none. */
const keptMarks = (v: Marks) => ({
  provider_order_id: sql<string>`coalesce(${v.providerOrderId}, provider_order_id)`,
  provider_status: sql<string>`coalesce(${v.providerStatus}, provider_status)`,
});

const pendingUpdate = compiledWrite(
  ["id", "providerOrderId", "providerStatus", "soon", "at"],
  (exec, v: Marks & { id: number; soon: string; at: string }) =>
    exec
      .updateTable("orders")
      .set({
        ...keptMarks(v),
        updated_at: v.at,
        check_after: sql<string>`case when check_after > ${v.soon} then ${v.soon} else check_after end`,
      })
      .where("id", "=", v.id)
      .where("status", "=", "processing")
      .returningAll(),
);

/**
 * The provider has the order: its marks are kept, and its next check is brought forward to `soon` at the latest.
 * The order as it is now; undefined when it was not `processing`.
 */
export async function markPending(
  exec: Executor,
  id: number,
  change: { provider: ProviderMarks; soon: string; at: string },
): Promise<Order | undefined> {
  const [row] = await pendingUpdate(exec, { id, ...marks(change.provider), soon: change.soon, at: change.at });
  return row && toOrder(row);
}

/**
 * The final state an outcome gives a `processing` order. A held order takes one only by an administrator's decision
 * (`decided`): no other path finishes it, however it read the order before.
 */
export type Finish = { decided?: boolean } & (
  | { status: "completed"; providerOrderId?: string; providerStatus?: string; transactionId: string | null; sealedCodes: string | null }
  | { status: "failed"; providerOrderId?: string; providerStatus?: string; error: string; reason: Reason }
);

/** A finish as the columns it writes: the other outcome's fields null, a provider's absent marks null (kept). */
export function finalValues(finish: Finish) {
  const failed = finish.status === "failed";
  return {
    status: finish.status,
    ...marks(finish),
    transactionId: failed ? null : finish.transactionId,
    sealedCodes: failed ? null : finish.sealedCodes,
    error: failed ? finish.error : null,
    reason: failed ? finish.reason : null,
    decided: finish.decided ? 1 : 0,
  };
}

type Final = ReturnType<typeof finalValues> & { id: number; at: string };

const finalUpdate = compiledWrite(
  ["id", "status", "providerOrderId", "providerStatus", "transactionId", "sealedCodes", "error", "reason", "decided", "at"],
  (exec, v: Final) =>
    exec
      .updateTable("orders")
      .set({
        ...keptMarks(v),
        status: v.status,
        transaction_id: v.transactionId,
        sealed_codes: v.sealedCodes,
        error: v.error,
        error_code: v.reason,
        refunded: sql<boolean>`${v.status} = 'failed'`,
        completed_at: v.at,
        updated_at: v.at,
        check_after: null,
      })
      .where("id", "=", v.id)
      .where("status", "=", "processing")
      .where(sql<boolean>`(held is null or ${v.decided} = 1)`)
      .returningAll(),
);

/**
 * Gives a `processing` order its final state: completed, or failed and marked refunded (the caller posts the refund
 * in the same transaction). Undefined when it was not `processing` (already final).
 */
export async function markFinished(exec: Executor, id: number, finish: Finish, at: string): Promise<Order | undefined> {
  const [row] = await finalUpdate(exec, { id, ...finalValues(finish), at });
  return row && toOrder(row);
}

/** Orders and volume by UTC day (YYYY-MM-DD), product and status since `since`: the admin desk's charts. */
export async function orderVolumeByDay(
  exec: Executor,
  since: string,
): Promise<Array<{ day: string; product: string; status: OrderStatus; orders: number; volumeMicro: Micro }>> {
  const rows = await exec
    .selectFrom("orders")
    .select((eb) => [
      eb.fn<string>("substr", ["created_at", eb.val(1), eb.val(10)]).as("day"),
      "product_type",
      "status",
      eb.fn.countAll<number>().as("orders"),
      eb.fn.sum<number>("charge_micro").as("volume_micro"),
    ])
    .where("created_at", ">=", since)
    .groupBy(["day", "product_type", "status"])
    .orderBy("day")
    .execute();
  return rows.map((r) => ({
    day: r.day,
    product: r.product_type,
    status: r.status,
    orders: Number(r.orders),
    volumeMicro: micro(Number(r.volume_micro ?? 0)),
  }));
}

/** Which of these provider transaction ids some order already has (a backend matching lost answers skips them). */
export async function claimedTransactions(exec: Executor, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await exec.selectFrom("orders").select("transaction_id").where("transaction_id", "in", ids).execute();
  return rows.map((row) => row.transaction_id!);
}

// ---- The Telegram backend's deliveries: one Star transaction per order, and orders held for a decision ----------

const unlinkedColumns = ["id", "upstream_ref", "product_type", "status", "details", "created_at", "recipient_id"] as const;
const unlinkedOf = (row: Pick<OrderRow, (typeof unlinkedColumns)[number]>): UnlinkedDelivery => ({
  id: row.id,
  reference: row.upstream_ref,
  productType: row.product_type,
  status: row.status as UnlinkedDelivery["status"],
  details: JSON.parse(row.details),
  createdAt: row.created_at,
  recipientId: row.recipient_id!,
});

/** The backend's orders to this recipient (processing, held or completed) with no transaction linked. */
export async function unlinkedDeliveries(exec: Executor, backend: string, recipientId: string): Promise<UnlinkedDelivery[]> {
  const rows = await exec
    .selectFrom("orders")
    .select(unlinkedColumns)
    .where("recipient_id", "=", recipientId)
    .where("backend", "=", backend)
    .where("transaction_id", "is", null)
    .where("status", "in", ["processing", "completed"])
    .orderBy("id")
    .limit(100)
    .execute();
  return rows.map(unlinkedOf);
}

/**
 * The backend's completed orders with no transaction linked, after order `afterId`, the oldest first; not those an
 * administrator decided (held before), whose transaction may never show.
 */
export async function deliveriesToLink(exec: Executor, backend: string, limit: number, afterId = 0): Promise<UnlinkedDelivery[]> {
  const rows = await exec
    .selectFrom("orders")
    .select(unlinkedColumns)
    .where("backend", "=", backend)
    .where("status", "=", "completed")
    .where("transaction_id", "is", null)
    .where("recipient_id", "is not", null)
    .where("held", "is", null)
    .where("id", ">", afterId)
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(unlinkedOf);
}

/** Links a transaction to a completed order that has none; false when it has one, or another order has this one. */
export async function linkTransaction(exec: Executor, orderId: number, transactionId: string, at: string): Promise<boolean> {
  try {
    const result = await exec
      .updateTable("orders")
      .set({ transaction_id: transactionId, updated_at: at })
      .where("id", "=", orderId)
      .where("status", "=", "completed")
      .where("transaction_id", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

/** A unique index refused the write (SQLite's and PostgreSQL's own codes). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}

/**
 * Holds a `processing` order for an administrator: the reconciler asks about it no more (no `check_after`) and never
 * completes or refunds it. The order as it is now; undefined when it was not `processing`.
 */
export async function markHeld(exec: Executor, id: number, why: string, at: string): Promise<Order | undefined> {
  const row = await exec
    .updateTable("orders")
    .set({ held: why, check_after: null, updated_at: at })
    .where("id", "=", id)
    .where("status", "=", "processing")
    .returningAll()
    .executeTakeFirst();
  return row && toOrder(row);
}

/** Held orders (still processing), the oldest first, at most `limit`. */
export async function heldOrders(exec: Executor, limit: number): Promise<Order[]> {
  const rows = await exec
    .selectFrom("orders")
    .selectAll()
    .where("status", "=", "processing")
    .where("held", "is not", null)
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(toOrder);
}

/** Processing orders by product and backend (the backend each was sent to; null: placed before it was kept). */
export async function openOrdersByBackend(exec: Executor): Promise<Array<{ productType: ProductType; backend: string | null; ids: number[] }>> {
  const rows = await exec.selectFrom("orders").select(["id", "product_type", "backend"]).where("status", "=", "processing").orderBy("id").execute();
  const groups = new Map<string, { productType: ProductType; backend: string | null; ids: number[] }>();
  for (const row of rows) {
    const key = `${row.product_type} ${row.backend}`;
    const group = groups.get(key) ?? { productType: productOf(row).type as ProductType, backend: row.backend, ids: [] };
    group.ids.push(row.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * Orders still processing that were placed before each order recorded its backend (migration 0018) are taken as
 * sent to the backend configured at this start: the upgrade keeps each product's backend (docs/operations.md).
 * Returns the ids stamped.
 */
export async function stampBackends(exec: Executor, groups: ReadonlyArray<{ ids: number[]; backend: string }>): Promise<number[]> {
  const stamped: number[] = [];
  for (const { ids, backend } of groups) {
    const rows = await exec.updateTable("orders").set({ backend }).where("id", "in", ids).where("backend", "is", null).returning("id").execute();
    stamped.push(...rows.map((row) => row.id));
  }
  return stamped;
}
