import { sql } from "kysely";
import type { Executor } from "./database.js";
import type { StarBookTable } from "./schema.js";

// The bot's Star book: what came in and went out, one row per Telegram transaction and kind, so a payment or a
// refund seen twice (an update repeated, a reconciliation after it) is recorded once; a gift or Premium once per
// order; one opening balance.

export type StarEntry = Omit<StarBookTable, "id">;
export type StarRow = StarBookTable & { id: number };

/** Records an entry unless one of its kind and transaction (or order) is there; true when this call recorded it. */
export async function recordStars(exec: Executor, entry: StarEntry): Promise<boolean> {
  const result = await exec
    .insertInto("star_book")
    .values(entry)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Every row of the book, oldest first (the reconciliation compares them all with Telegram's list). */
export async function starRows(exec: Executor): Promise<StarRow[]> {
  return (await exec.selectFrom("star_book").selectAll().orderBy("id").execute()) as StarRow[];
}

/** The opening balance, or undefined before the first reconciliation. */
export async function starOpening(exec: Executor): Promise<StarRow | undefined> {
  return (await exec.selectFrom("star_book").selectAll().where("kind", "=", "opening").executeTakeFirst()) as StarRow | undefined;
}

/** A Telegram gift or Premium order as the book sees it: what it delivers and to whom. */
export interface StarOrder {
  id: number;
  productType: "gift" | "premium";
  details: unknown;
  transactionId: string | null;
  recipientId: string | null;
  held: boolean;
}

const starOrderOf = (row: {
  id: number;
  product_type: string;
  details: string;
  transaction_id: string | null;
  recipient_id: string | null;
  held: string | null;
}): StarOrder => ({
  id: row.id,
  productType: row.product_type as StarOrder["productType"],
  details: JSON.parse(row.details),
  transactionId: row.transaction_id,
  recipientId: row.recipient_id,
  held: row.held !== null,
});

const starOrders = (exec: Executor) =>
  exec
    .selectFrom("orders")
    .select(["orders.id", "orders.product_type", "orders.details", "orders.transaction_id", "orders.recipient_id", "orders.held"])
    .where("orders.backend", "=", "telegram")
    .where("orders.product_type", "in", ["gift", "premium"]);

/** The bot's gift and Premium orders completed since `since` that the book has no row for, oldest first. */
export async function unbookedDeliveries(exec: Executor, since: string, limit: number): Promise<StarOrder[]> {
  const rows = await starOrders(exec)
    .where("orders.status", "=", "completed")
    .where("orders.completed_at", ">=", since)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("star_book")
            .select("star_book.id")
            .whereRef("star_book.order_id", "=", "orders.id")
            .where("star_book.kind", "in", ["gift", "premium"]),
        ),
      ),
    )
    .orderBy("orders.id")
    .limit(limit)
    .execute();
  return rows.map(starOrderOf);
}

/** Gives the book's delivery rows without a transaction the one their order was linked to since; how many. */
export async function linkBookedDeliveries(exec: Executor): Promise<number> {
  const linked = sql<string | null>`(select o.transaction_id from orders o where o.id = star_book.order_id)`;
  const result = await exec
    .updateTable("star_book")
    .set({ transaction_id: linked })
    .where("kind", "in", ["gift", "premium"])
    .where("transaction_id", "is", null)
    .where(sql<boolean>`${linked} is not null`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The bot's gift and Premium orders still under way (processing, held ones too): what they will spend. */
export async function openStarOrders(exec: Executor): Promise<StarOrder[]> {
  return (await starOrders(exec).where("orders.status", "=", "processing").orderBy("orders.id").execute()).map(starOrderOf);
}

/** The Stars in (positive) and out (negative) of each kind since `since`, the opening left out. */
export async function starFlows(exec: Executor, since: string): Promise<Array<{ kind: StarRow["kind"]; in: number; out: number }>> {
  const rows = await exec
    .selectFrom("star_book")
    .select((eb) => [
      "kind",
      eb.fn.sum<number>(sql`case when stars > 0 then stars else 0 end`).as("in_stars"),
      eb.fn.sum<number>(sql`case when stars < 0 then stars else 0 end`).as("out_stars"),
    ])
    .where("created_at", ">=", since)
    .where("kind", "!=", "opening")
    .groupBy("kind")
    .orderBy("kind")
    .execute();
  return rows.map((r) => ({ kind: r.kind, in: Number(r.in_stars ?? 0), out: Number(r.out_stars ?? 0) }));
}

/** Payments booked with no top-up to credit (a payload not ours, or a top-up paid twice) since `since`. */
export async function unmatchedPaymentsSince(exec: Executor, since: string): Promise<{ count: number; latest: string | null }> {
  const unmatched = exec.selectFrom("star_book").where("kind", "=", "payment").where("topup_id", "is", null).where("created_at", ">=", since);
  const row = await unmatched.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  const latest = await unmatched.select("transaction_id").orderBy("id", "desc").limit(1).executeTakeFirst();
  return { count: Number(row.n), latest: latest?.transaction_id ?? null };
}

/** Stars top-ups Telegram refunded whose credit the balance could not give back in full, since `since`. */
export async function shortRefundsSince(exec: Executor, since: string): Promise<{ count: number; shortMicro: number; latest: number | null }> {
  const row = await exec
    .selectFrom("topups")
    .select((eb) => [
      eb.fn.countAll<number>().as("n"),
      eb.fn.sum<number>(sql`credited_micro - reversed_micro`).as("short"),
      eb.fn.max("id").as("latest"),
    ])
    .where("method", "=", "stars")
    .where("status", "=", "refunded")
    .where(sql<boolean>`reversed_micro < credited_micro`)
    .where("updated_at", ">=", since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), shortMicro: Number(row.short ?? 0), latest: row.latest === null ? null : Number(row.latest) };
}

/** Keeps a reconciliation's result as the last one. */
export async function saveStarCheck(exec: Executor, at: string, result: unknown): Promise<void> {
  const values = { key: "last", at, result: JSON.stringify(result) };
  await exec
    .insertInto("star_book_checks")
    .values(values)
    .onConflict((oc) => oc.column("key").doUpdateSet({ at: values.at, result: values.result }))
    .execute();
}

/** The last reconciliation's result as it was saved, or null before the first. */
export async function lastStarCheck(exec: Executor): Promise<unknown> {
  const row = await exec.selectFrom("star_book_checks").select("result").where("key", "=", "last").executeTakeFirst();
  return row ? JSON.parse(row.result) : null;
}
