import { type Db, isPostgres } from "../db/database.js";
import type { OrderRow } from "../db/schema.js";
import { createClaims, releaseOrders } from "./claims.js";
import { type BackgroundScope, type Clock, unnamed } from "./ports.js";
import type { Settlement } from "./settlement.js";

export interface ReconcilerLog {
  warn(obj: object, msg: string): void;
}

/** Orders claimed and asked about at once; each claim is leased for one upstream call's time. */
const CLAIM = 8;
/** Orders one pass handles at most, so a pass ends and the next interval starts afresh. */
const PASS_MAX = 400;
const MAX_RECHECK_MS = 5 * 60 * 1000;

/**
 * Drives every `processing` order to a terminal state, so an order nobody polls still completes or is
 * refunded, and an order left behind by a crash is settled after restart. One pass at a time per process;
 * an order still pending is asked again later, each time twice as late (at most 5 minutes).
 *
 * Several instances share the work: a pass claims a few due orders at a time by moving their `check_after`
 * one lease ahead (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so two instances never claim the same order), and
 * each order is asked about by the instance that claimed it. A dead instance's claims simply come due again.
 */
export function createReconciler(
  db: Db,
  clock: Clock,
  settlement: Settlement,
  intervalMs: number,
  leaseMs: number,
  log: ReconcilerLog,
  scope: BackgroundScope = unnamed,
) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let passes = 0;
  /** Set by `stop`: the pass under way claims no more. */
  let stopping = false;
  /** Set by `release`: checks cut short record nothing more (their orders are already due again). */
  let released = false;
  const claims = createClaims();

  const anyDue = async () =>
    (await db
      .selectFrom("orders")
      .select("id")
      .where("status", "=", "processing")
      .where("check_after", "<=", clock.now().toISOString())
      .limit(1)
      .executeTakeFirst()) !== undefined;

  /** Due orders as they were before the claim (refresh reads their `check_after`), now leased to this instance. */
  const claim = async () => {
    // A plain read first: the claim's write transaction (SQLite's write lock) only when something is due.
    if (!(await anyDue())) return [];
    let until = "";
    const claimed = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      until = new Date(now.getTime() + leaseMs).toISOString();
      let due = trx
        .selectFrom("orders")
        .selectAll()
        .where("status", "=", "processing")
        .where("check_after", "<=", now.toISOString())
        .orderBy("check_after")
        .limit(CLAIM);
      if (isPostgres(trx)) due = due.forUpdate().skipLocked();
      const rows = await due.execute();
      if (rows.length) {
        await trx
          .updateTable("orders")
          .set({ check_after: until })
          .where(
            "id",
            "in",
            rows.map((r) => r.id),
          )
          .execute();
      }
      return rows;
    });
    for (const row of claimed) claims.hold(row.id, until);
    return claimed;
  };

  async function reschedule(orderId: number, attempts: number): Promise<void> {
    const now = clock.now();
    const delay = Math.min(intervalMs * 2 ** Math.min(attempts, 16), MAX_RECHECK_MS);
    await db
      .updateTable("orders")
      .set({ check_after: new Date(now.getTime() + delay).toISOString(), check_attempts: attempts + 1, updated_at: now.toISOString() })
      .where("id", "=", orderId)
      .where("status", "=", "processing")
      .execute();
  }

  async function check(order: OrderRow): Promise<boolean> {
    try {
      const after = await settlement.refresh(order);
      if (after.status !== "processing") return true;
      if (!released) await reschedule(after.id, after.check_attempts);
    } catch (error) {
      log.warn({ orderId: order.id, err: error }, "reconciler could not refresh an order");
    } finally {
      claims.drop(order.id);
    }
    return false;
  }

  async function pass(): Promise<number> {
    let settled = 0;
    for (let seen = 0; seen < PASS_MAX && !stopping;) {
      const claimed = await claim();
      if (!claimed.length) break;
      seen += claimed.length;
      settled += (await Promise.all(claimed.map(check))).filter(Boolean).length;
    }
    return settled;
  }

  return {
    /** Runs one pass now (or joins the one under way); resolves to the number of orders it settled. */
    runOnce(): Promise<number> {
      // A pass that fails as a whole (the database busy past its wait, or unreachable) is logged and the
      // next interval tries again: it runs in the background, where a rejection would end the process.
      running ??= scope(`recon-${++passes}`, () =>
        pass().catch((error: unknown) => {
          log.warn({ err: error }, "reconciler pass failed; the next one will try again");
          return 0;
        }),
      ).finally(() => {
        running = undefined;
      });
      return running;
    },
    start() {
      stopping = false;
      released = false;
      timer ??= setInterval(() => void this.runOnce(), intervalMs);
      timer.unref();
      void this.runOnce();
    },
    /** Stops claiming (the pass under way ends after the orders it holds) and waits for those. */
    async stop() {
      stopping = true;
      clearInterval(timer);
      timer = undefined;
      await running;
    },
    /** Orders claimed and being asked about now. */
    claimed: () => claims.size,
    /** After `stop`: the orders still claimed (checks cut short) are made due again now; returns their ids. */
    release(): Promise<number[]> {
      released = true;
      return releaseOrders(db, claims, clock.now().toISOString());
    },
  };
}
