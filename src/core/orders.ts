import { createHash, randomUUID } from "node:crypto";
import type { Db, Executor } from "../db/database.js";
import type { Order } from "../db/schema.js";
import { type Caller, spendable } from "./accounts.js";
import { DomainError } from "./errors.js";
import { post } from "./ledger.js";
import type { Micro } from "./money.js";
import type { Clock, UpstreamOutcome, UpstreamStatus } from "./ports.js";
import type { Vault } from "./vault.js";

export interface OrderDraft {
  productType: string;
  recipient: string;
  /** Product fields and the prices the charge was computed from; stored with the order. */
  details: Record<string, unknown>;
  chargeMicro: Micro;
  idempotencyKey: string | null;
  /** The spec's identifying fields for this product, normalised; with the key they decide a replay. */
  identifying: unknown[];
}

export interface Placed {
  order: Order;
  replay: boolean;
}

/** Asks the upstream of one product type about an order by our reference. */
export type StatusLookup = (reference: string) => Promise<UpstreamStatus>;

/** inline: the outcome came back with the purchase itself, so the buyer already saw it. */
export interface SettledHow {
  inline: boolean;
}

export interface OrderSettings {
  /** A `processing` order younger than this is left to its in-flight call; older ones are asked about. */
  reconcileAfterMs: number;
  /** The first wait before asking again about an order still pending; it doubles up to MAX_RECHECK_MS. */
  recheckMs: number;
}

const MAX_RECHECK_MS = 5 * 60 * 1000;

export function requestHash(productType: string, identifying: unknown[]): string {
  return createHash("sha256")
    .update(JSON.stringify([productType, ...identifying]))
    .digest("hex");
}

export function orderDetails<T>(order: Order): T {
  return JSON.parse(order.details) as T;
}

export function createOrders(db: Db, clock: Clock, settings: OrderSettings, lookups: Record<string, StatusLookup>, vault: Vault) {
  const listeners: Array<(order: Order, how: SettledHow) => void> = [];
  const findReplay = (exec: Executor, accountId: number, key: string, hash: string) =>
    exec
      .selectFrom("orders")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("idempotency_key", "=", key)
      .where("request_hash", "=", hash)
      .executeTakeFirst();

  const byId = (id: number) => db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  return {
    /**
     * The earlier order for the same key and identifying fields, if any. Checked before anything that
     * needs a provider, so a replay answers even while the provider is down.
     */
    async replay(caller: Caller, productType: string, identifying: unknown[], key: string | null): Promise<Order | undefined> {
      return key ? findReplay(db, caller.account.id, key, requestHash(productType, identifying)) : undefined;
    },

    /**
     * The idempotency check, the debit and the order row in one transaction: the order row is the saved
     * result, and a concurrent duplicate finds it (the unique index decides a race the check misses).
     */
    async place(caller: Caller, draft: OrderDraft): Promise<Placed> {
      const now = clock.now();
      const at = now.toISOString();
      const hash = requestHash(draft.productType, draft.identifying);
      const key = draft.idempotencyKey;
      try {
        return await db.transaction().execute(async (trx) => {
          if (key) {
            const earlier = await findReplay(trx, caller.account.id, key, hash);
            if (earlier) return { order: earlier, replay: true };
          }
          const funds = await spendable(trx, caller.account, now);
          if (funds.orderLimitMicro !== null && draft.chargeMicro > funds.orderLimitMicro) {
            throw new DomainError("insufficient_funds", "The order exceeds this key's per-order limit", {
              requiredMicro: draft.chargeMicro,
              balanceMicro: Math.min(funds.availableMicro, funds.orderLimitMicro),
            });
          }
          if (draft.chargeMicro > funds.availableMicro) {
            throw new DomainError("insufficient_funds", "Insufficient balance", {
              requiredMicro: draft.chargeMicro,
              balanceMicro: funds.availableMicro,
            });
          }
          const order = await trx
            .insertInto("orders")
            .values({
              account_id: caller.account.id,
              funding_account_id: funds.fundingAccountId,
              product_type: draft.productType,
              status: "processing",
              idempotency_key: key,
              request_hash: hash,
              recipient: draft.recipient,
              details: JSON.stringify(draft.details),
              charge_micro: draft.chargeMicro,
              upstream_ref: randomUUID(),
              check_after: new Date(now.getTime() + settings.reconcileAfterMs).toISOString(),
              created_at: at,
              updated_at: at,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          await post(trx, {
            accountId: funds.fundingAccountId,
            amountMicro: -draft.chargeMicro,
            kind: "charge",
            orderId: order.id,
            actor: caller.actor,
            at,
          });
          return { order, replay: false };
        });
      } catch (error) {
        // A concurrent identical request committed first: return its order instead of failing.
        const earlier = key ? await findReplay(db, caller.account.id, key, hash) : undefined;
        if (earlier) return { order: earlier, replay: true };
        throw error;
      }
    },

    /**
     * Places the order (or finds its replay), then hands it to the provider and applies the answer: the
     * charge commits before the provider is called, and the call never runs inside a transaction.
     */
    async submit(caller: Caller, draft: OrderDraft, send: (order: Order) => Promise<UpstreamOutcome>): Promise<Placed> {
      const placed = await this.place(caller, draft);
      if (placed.replay) return placed;
      return { order: await this.settle(placed.order.id, await send(placed.order), { inline: true }), replay: false };
    },

    /**
     * Applies an upstream outcome. Only a `processing` order changes, so whichever path sees a failure
     * first (client poll, reconciler, the purchase itself) refunds, and the others find it terminal.
     */
    async settle(orderId: number, outcome: UpstreamOutcome, how: SettledHow = { inline: false }): Promise<Order> {
      if (outcome.kind === "unknown") return byId(orderId);
      const at = clock.now().toISOString();
      const provider = {
        ...(outcome.providerOrderId === undefined ? {} : { provider_order_id: outcome.providerOrderId }),
        ...(outcome.providerStatus === undefined ? {} : { provider_status: outcome.providerStatus }),
      };
      const finished = await db.transaction().execute(async (trx) => {
        const processing = trx.updateTable("orders").where("id", "=", orderId).where("status", "=", "processing");
        if (outcome.kind === "pending") {
          // The provider has the order: ask again soon (the long first wait only guards "never received").
          const soon = new Date(clock.now().getTime() + settings.recheckMs).toISOString();
          await processing.set({ ...provider, updated_at: at }).execute();
          await processing.where("check_after", ">", soon).set({ check_after: soon }).execute();
          return false;
        }
        if (outcome.kind === "completed") {
          const updated = await processing
            .set({
              ...provider,
              status: "completed",
              transaction_id: outcome.transactionId ?? null,
              sealed_codes: outcome.codes ? vault.seal(outcome.codes) : null,
              completed_at: at,
              updated_at: at,
              check_after: null,
            })
            .executeTakeFirst();
          return updated.numUpdatedRows > 0n;
        }
        const failed = await processing
          .set({
            ...provider,
            status: "failed",
            error: outcome.error,
            error_code: outcome.errorCode ?? null,
            refunded: 1,
            completed_at: at,
            updated_at: at,
            check_after: null,
          })
          .returning(["funding_account_id", "charge_micro"])
          .executeTakeFirst();
        if (!failed) return false;
        await post(trx, {
          accountId: Number(failed.funding_account_id),
          amountMicro: Number(failed.charge_micro),
          kind: "refund",
          orderId,
          actor: "system",
          note: outcome.error,
          at,
        });
        return true;
      });
      const order = await byId(orderId);
      if (finished) for (const listener of listeners) listener(order, how);
      return order;
    },

    /** Called once per order when it reaches `completed` or `failed` (the bot's notifications). Must not throw. */
    onSettled(listener: (order: Order, how: SettledHow) => void) {
      listeners.push(listener);
    },

    /**
     * Brings a `processing` order up to date with its upstream. "No such order" counts as a failure only
     * once the order is older than any in-flight call could be (check_after has passed).
     */
    async refresh(order: Order): Promise<Order> {
      if (order.status !== "processing") return order;
      const lookup = lookups[order.product_type];
      if (!lookup) return order;
      let status: UpstreamStatus;
      try {
        status = await lookup(order.upstream_ref);
      } catch (error) {
        status = { kind: "unknown", error: String(error) };
      }
      if (status.kind === "not_found") {
        // Only an order the provider never acknowledged, and older than any call in flight, was never received.
        const due = order.check_after !== null && order.check_after <= clock.now().toISOString();
        if (!due || order.provider_order_id !== null) return order;
        status = { kind: "failed", error: "The provider never received the order", errorCode: "order_not_found" };
      }
      return this.settle(order.id, status);
    },

    /** One of the caller's own orders, of the given product types if named; anything else is as unknown as a missing one. */
    async get(accountId: number, orderId: number, productTypes?: string[]): Promise<Order> {
      const order = await db.selectFrom("orders").selectAll().where("id", "=", orderId).where("account_id", "=", accountId).executeTakeFirst();
      if (!order || (productTypes && !productTypes.includes(order.product_type))) {
        throw new DomainError("not_found", `Order ${orderId} not found`, { errorCode: "order_not_found" });
      }
      return order;
    },

    /** An own order as it is now: a `processing` one is first asked about at its provider (the spec's live status). */
    async current(accountId: number, orderId: number, productTypes?: string[]): Promise<Order> {
      return this.refresh(await this.get(accountId, orderId, productTypes));
    },

    async list(accountId: number, limit: number): Promise<Order[]> {
      return db.selectFrom("orders").selectAll().where("account_id", "=", accountId).orderBy("id", "desc").limit(limit).execute();
    },

    /** Pushes a still-`processing` order's next check further out, each time twice as far (the reconciler's backoff). */
    async reschedule(order: Order): Promise<void> {
      const now = clock.now();
      const delay = Math.min(settings.recheckMs * 2 ** Math.min(order.check_attempts, 16), MAX_RECHECK_MS);
      await db
        .updateTable("orders")
        .set({ check_after: new Date(now.getTime() + delay).toISOString(), check_attempts: order.check_attempts + 1, updated_at: now.toISOString() })
        .where("id", "=", order.id)
        .where("status", "=", "processing")
        .execute();
    },

    /** `processing` orders whose next check is due, oldest first. */
    async due(limit: number): Promise<Order[]> {
      return db
        .selectFrom("orders")
        .selectAll()
        .where("status", "=", "processing")
        .where("check_after", "<=", clock.now().toISOString())
        .orderBy("check_after")
        .limit(limit)
        .execute();
    },
  };
}

export type Orders = ReturnType<typeof createOrders>;
