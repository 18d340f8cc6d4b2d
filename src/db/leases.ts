import type { Transaction } from "kysely";
import { type Db, type Executor, isPostgres } from "./database.js";
import type { Order } from "../core/model/products.js";
import { toOrder } from "./orders.js";
import type { Database } from "./schema.js";

/**
 * Leases on rows of a shared table: several instances take work from one table (orders due a check, open
 * invoices due a look, webhook turns, the health round), and each row is worked on by the instance that claimed it. A claim moves the row's
 * due column one lease ahead; a dead instance's claims simply come due again when the lease lapses, and a stop
 * hands its claims back at once.
 */

/**
 * Rows this instance holds leased (id → the lease time it wrote), so a stop can hand them back at once instead
 * of leaving them until the lease lapses.
 */
export function createClaims() {
  const held = new Map<number, string>();
  return {
    hold: (id: number, until: string) => void held.set(id, until),
    drop: (id: number) => void held.delete(id),
    get size() {
      return held.size;
    },
    /**
     * Hands every claim back and forgets it: `makeDue` updates the rows of one lease time (guarded by it) and
     * returns the ids it made due; all of them come back, sorted.
     */
    async release(makeDue: (ids: number[], until: string) => Promise<number[]>): Promise<number[]> {
      const byLease = new Map<string, number[]>();
      for (const [id, until] of held) byLease.set(until, [...(byLease.get(until) ?? []), id]);
      held.clear();
      const released: number[] = [];
      for (const [until, ids] of byLease) released.push(...(await makeDue(ids, until)));
      return released.sort((a, b) => a - b);
    },
  };
}

export type Claims = ReturnType<typeof createClaims>;

/** A select of due rows, oldest first, that can be locked (every Kysely select query is one). */
interface DueQuery<R> {
  execute(): Promise<R[]>;
  forUpdate(): { skipLocked(): { execute(): Promise<R[]> } };
}

export interface ClaimStatement<R, T> {
  limit: number;
  /**
   * Due rows, at most `limit`. The conditions sit on the rows themselves, so PostgreSQL re-checks them against a
   * claim that another instance committed meanwhile.
   */
  due: (exec: Executor, limit: number) => DueQuery<R>;
  /** Leases the rows read (moves their due column to the lease's end), in the claim's transaction; what was claimed. */
  take: (trx: Transaction<Database>, rows: R[]) => Promise<T[]>;
}

/**
 * The one claim: due rows read and leased to this instance in one transaction; resolves to what `take` made of
 * them. A plain "anything due?" read comes first, so an idle instance takes no write transaction (SQLite's write
 * lock); on PostgreSQL the due rows are locked `FOR UPDATE SKIP LOCKED`, so two instances never claim the same row.
 * Every lease is claimed here: orders, invoices, webhook turns, the health round.
 */
export async function claim<R, T>(db: Db, statement: ClaimStatement<R, T>): Promise<T[]> {
  if (!(await statement.due(db, 1).execute()).length) return [];
  return db.transaction().execute(async (trx) => {
    const due = statement.due(trx, statement.limit);
    const rows = await (isPostgres(trx) ? due.forUpdate().skipLocked() : due).execute();
    return rows.length ? statement.take(trx, rows) : [];
  });
}

export interface ClaimOptions<R extends { id: number }> {
  db: Db;
  claims: Claims;
  /** The lease time written into the claimed rows' due column. */
  until: string;
  limit: number;
  due: ClaimStatement<R, R>["due"];
  /** Moves the rows' due column to `until` (and counts whatever else a claim counts). */
  lease: (trx: Transaction<Database>, ids: number[]) => Promise<unknown>;
}

/** Claims up to `limit` due rows (`claim`) and holds them in `claims`; returns them as they were read. */
export async function claimDue<R extends { id: number }>(options: ClaimOptions<R>): Promise<R[]> {
  const claimed = await claim(options.db, {
    limit: options.limit,
    due: options.due,
    take: async (trx, rows) => {
      await options.lease(
        trx,
        rows.map((row) => row.id),
      );
      return rows;
    },
  });
  for (const row of claimed) options.claims.hold(row.id, options.until);
  return claimed;
}

/** `processing` orders whose next check is due at `now`, the longest waiting first. */
const dueOrders = (exec: Executor, now: string, limit: number) =>
  exec.selectFrom("orders").selectAll().where("status", "=", "processing").where("check_after", "<=", now).orderBy("check_after").limit(limit);

/** Leases up to `limit` due orders to this instance until `until`; returns them as they were before the claim. */
export async function claimDueOrders(db: Db, claims: Claims, options: { now: string; until: string; limit: number }): Promise<Order[]> {
  const rows = await claimDue({
    db,
    claims,
    until: options.until,
    limit: options.limit,
    due: (exec, limit) => dueOrders(exec, options.now, limit),
    lease: (trx, ids) => trx.updateTable("orders").set({ check_after: options.until }).where("id", "in", ids).execute(),
  });
  return rows.map(toOrder);
}

/**
 * Makes this instance's claimed `processing` orders due now. Guarded by the lease this instance wrote: an
 * order another instance settled or claimed since is left as it is. Returns the ids made due.
 */
export function releaseOrders(db: Db, claims: Claims, now: string): Promise<number[]> {
  return claims.release(async (ids, until) => {
    const rows = await db
      .updateTable("orders")
      .set({ check_after: now })
      .where("id", "in", ids)
      .where("status", "=", "processing")
      .where("check_after", "=", until)
      .returning("id")
      .execute();
    return rows.map((row) => row.id);
  });
}

/** An order still `processing` after its check: due again at `checkAfter`, its checks counted. */
export async function rescheduleOrder(db: Db, orderId: number, next: { checkAfter: string; attempts: number; now: string }): Promise<void> {
  await db
    .updateTable("orders")
    .set({ check_after: next.checkAfter, check_attempts: next.attempts, updated_at: next.now })
    .where("id", "=", orderId)
    .where("status", "=", "processing")
    .execute();
}
