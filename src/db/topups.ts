import type { Selectable } from "kysely";
import type { Topup, TopupMethod, TopupStatus } from "../core/model/topup.js";
import { micro } from "../core/model/money.js";
import { lockAccount } from "./accounts.js";
import type { Db, Executor } from "./database.js";
import { type Claims, claimDue } from "./leases.js";
import type { TopupsTable } from "./schema.js";

// Top-ups: Crypto Pay invoices and transfers an administrator approves. Each status change is one guarded
// update, so of two instances (or a webhook and a poll) only one makes it.

const toTopup = (row: Selectable<TopupsTable>): Topup => ({
  id: row.id,
  accountId: row.account_id,
  method: row.method,
  status: row.status,
  amountMicro: micro(row.amount_micro),
  creditedMicro: row.credited_micro === null ? null : micro(row.credited_micro),
  invoiceId: row.invoice_id === null ? null : Number(row.invoice_id),
  payUrl: row.pay_url,
  webAppUrl: row.web_app_url,
  expiresAt: row.expires_at,
  reference: row.reference,
  decidedBy: row.decided_by,
  reason: row.reason,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  creditedAt: row.credited_at,
  stars: row.stars === null ? null : Number(row.stars),
  chargeId: row.charge_id,
  payerId: row.payer_id,
  reversedMicro: row.reversed_micro === null ? null : micro(row.reversed_micro),
});

export interface NewTopup {
  accountId: number;
  method: TopupMethod;
  status: TopupStatus;
  amountMicro: number;
  reference?: { text: string; key: string };
  /** A Stars top-up: the Stars asked, the invoice's payload and until when it may be paid. */
  stars?: { count: number; payload: string; expiresAt: string };
  at: string;
}

/** What refused a new top-up: the account holds `open` of the states counted, or made `today` since `since`. */
export type TopupRefusal = { bound: "open"; count: number; oldest: Topup[] } | { bound: "daily"; count: number; oldestAt: string };

/**
 * Inserts a top-up unless the account already holds `openMax` in the `open` states or made `dailyMax` since
 * `since`: the counts and the insert are one step (the account's row locked on PostgreSQL; SQLite's write
 * transactions run one at a time), so concurrent requests cannot pass a bound together.
 */
export async function insertTopupWithin(
  db: Db,
  topup: NewTopup,
  bounds: { open: TopupStatus[]; openMax: number; dailyMax: number; since: string },
): Promise<{ topup: Topup } | { refused: TopupRefusal }> {
  return db.transaction().execute(async (trx) => {
    await lockAccount(trx, topup.accountId);
    const open = await openTopups(trx, topup.accountId, bounds.open, bounds.openMax);
    if (open.length >= bounds.openMax) return { refused: { bound: "open" as const, count: open.length, oldest: open } };
    const today = await trx
      .selectFrom("topups")
      .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min<string>("created_at").as("oldest")])
      .where("account_id", "=", topup.accountId)
      .where("created_at", ">=", bounds.since)
      .executeTakeFirstOrThrow();
    if (Number(today.count) >= bounds.dailyMax) {
      return { refused: { bound: "daily" as const, count: Number(today.count), oldestAt: today.oldest ?? bounds.since } };
    }
    const row = await trx
      .insertInto("topups")
      .values({
        account_id: topup.accountId,
        method: topup.method,
        status: topup.status,
        amount_micro: topup.amountMicro,
        reference: topup.reference?.text ?? null,
        reference_key: topup.reference?.key ?? null,
        stars: topup.stars?.count ?? null,
        payload: topup.stars?.payload ?? null,
        expires_at: topup.stars?.expiresAt ?? null,
        created_at: topup.at,
        updated_at: topup.at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { topup: toTopup(row) };
  });
}

/** Other transfers whose reference reduces to the same key, pending or credited, with whose they are. */
export async function sameReference(
  exec: Executor,
  topup: { id: number; referenceKey: string },
): Promise<Array<{ topup: Topup; telegramId: string | null }>> {
  const rows = await exec
    .selectFrom("topups")
    .innerJoin("accounts", "accounts.id", "topups.account_id")
    .selectAll("topups")
    .select("accounts.telegram_id")
    .where("topups.reference_key", "=", topup.referenceKey)
    .where("topups.id", "!=", topup.id)
    .where("topups.status", "in", ["pending", "credited"])
    .orderBy("topups.id")
    .limit(20)
    .execute();
  return rows.map(({ telegram_id, ...row }) => ({ topup: toTopup(row), telegramId: telegram_id }));
}

/** The reference key of a top-up (null for an invoice). */
export async function referenceKeyOf(exec: Executor, id: number): Promise<string | null> {
  const row = await exec.selectFrom("topups").select("reference_key").where("id", "=", id).executeTakeFirst();
  return row?.reference_key ?? null;
}

/** Top-ups left in `creating` since before `before` (an instance stopped while the provider made the invoice). */
export async function staleCreating(exec: Executor, before: string, limit: number): Promise<Topup[]> {
  const rows = await exec
    .selectFrom("topups")
    .selectAll()
    .where("status", "=", "creating")
    .where("created_at", "<", before)
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(toTopup);
}

/** The messages the administrators got about a transfer (any instance sent them). */
export async function saveNotices(exec: Executor, topupId: number, sent: Array<{ chat: number; message: number }>): Promise<void> {
  if (!sent.length) return;
  await exec
    .insertInto("topup_notices")
    .values(sent.map(({ chat, message }) => ({ topup_id: topupId, chat_id: String(chat), message_id: message })))
    .onConflict((oc) => oc.columns(["topup_id", "chat_id"]).doNothing())
    .execute();
}

export async function noticesOf(exec: Executor, topupId: number): Promise<Array<{ chat: number; message: number }>> {
  const rows = await exec.selectFrom("topup_notices").select(["chat_id", "message_id"]).where("topup_id", "=", topupId).execute();
  return rows.map((row) => ({ chat: Number(row.chat_id), message: Number(row.message_id) }));
}

/** Records an anomaly once per invoice and kind; true when this call recorded it (the first time). */
export async function recordAnomaly(
  exec: Executor,
  anomaly: { invoiceId: number; topupId: number | null; kind: string; details: object; at: string },
): Promise<boolean> {
  const result = await exec
    .insertInto("payment_anomalies")
    .values({
      invoice_id: anomaly.invoiceId,
      topup_id: anomaly.topupId,
      kind: anomaly.kind,
      details: JSON.stringify(anomaly.details),
      created_at: anomaly.at,
    })
    .onConflict((oc) => oc.columns(["invoice_id", "kind"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Anomalies recorded since `since`, and the newest one (the alert says what it was). */
export async function anomaliesSince(exec: Executor, since: string): Promise<{ count: number; latest: { invoiceId: number; kind: string } | null }> {
  const rows = await exec
    .selectFrom("payment_anomalies")
    .select(["invoice_id", "kind"])
    .where("created_at", ">=", since)
    .orderBy("created_at", "desc")
    .limit(1000)
    .execute();
  return { count: rows.length, latest: rows[0] ? { invoiceId: Number(rows[0].invoice_id), kind: rows[0].kind } : null };
}

export async function topupById(exec: Executor, id: number): Promise<Topup | undefined> {
  const row = await exec.selectFrom("topups").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toTopup(row);
}

/** A Stars top-up by its invoice's payload, or by the charge that paid it. */
export async function topupByPayload(exec: Executor, payload: string): Promise<Topup | undefined> {
  const row = await exec.selectFrom("topups").selectAll().where("payload", "=", payload).executeTakeFirst();
  return row && toTopup(row);
}

export async function topupByCharge(exec: Executor, chargeId: string): Promise<Topup | undefined> {
  const row = await exec.selectFrom("topups").selectAll().where("charge_id", "=", chargeId).executeTakeFirst();
  return row && toTopup(row);
}

/** USDT credited to the account by Stars top-ups since `since`: the day's bound a new payment is checked against. */
export async function starsCreditedSince(exec: Executor, accountId: number, since: string): Promise<number> {
  const row = await exec
    .selectFrom("topups")
    .select((eb) => eb.fn.sum<number>("credited_micro").as("credited"))
    .where("account_id", "=", accountId)
    .where("method", "=", "stars")
    .where("status", "in", ["credited", "refunding", "refunded"])
    .where("credited_at", ">=", since)
    .executeTakeFirstOrThrow();
  return Number(row.credited ?? 0);
}

/**
 * The oldest Stars top-up made since `since` whose payment or refund may still show up in the bot's transactions
 * (unpaid, paid and open to a refund Telegram makes, or a refund under way): where a look back starts.
 */
export async function oldestUnsettledStars(exec: Executor, since: string): Promise<string | null> {
  const row = await exec
    .selectFrom("topups")
    .select((eb) => eb.fn.min<string>("created_at").as("oldest"))
    .where("method", "=", "stars")
    .where("status", "in", ["active", "expired", "cancelled", "credited", "refunding"])
    .where("created_at", ">=", since)
    .executeTakeFirstOrThrow();
  return row.oldest ?? null;
}

/** The link a Stars top-up's invoice is paid through (the Mini App's openInvoice). */
export async function setPayUrl(exec: Executor, id: number, url: string): Promise<void> {
  await exec.updateTable("topups").set({ pay_url: url }).where("id", "=", id).execute();
}

/**
 * Takes a `refunding` top-up for one attempt at Telegram's refund until `until` (in check_after, which Stars top-ups
 * use for nothing else); false while another attempt holds it. A status change clears it (moveTopup).
 */
export async function claimRefund(exec: Executor, id: number, now: string, until: string): Promise<boolean> {
  const result = await exec
    .updateTable("topups")
    .set({ check_after: until })
    .where("id", "=", id)
    .where("status", "=", "refunding")
    .where((eb) => eb.or([eb("check_after", "is", null), eb("check_after", "<", now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Lets go of an attempt's hold that ended without an outcome (no answer): the next attempt may go at once. */
export async function releaseRefund(exec: Executor, id: number, until: string): Promise<void> {
  await exec.updateTable("topups").set({ check_after: null }).where("id", "=", id).where("check_after", "=", until).execute();
}

/** Refunds under way since before `before` that no attempt holds now: their attempts were cut short. */
export async function staleRefunds(exec: Executor, before: string, now: string, limit: number): Promise<number[]> {
  const rows = await exec
    .selectFrom("topups")
    .select("id")
    .where("method", "=", "stars")
    .where("status", "=", "refunding")
    .where("updated_at", "<", before)
    .where((eb) => eb.or([eb("check_after", "is", null), eb("check_after", "<", now)]))
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Unpaid Stars top-ups past their time: expired (a payment that still comes is credited even so). */
export async function expireStars(exec: Executor, now: string): Promise<number> {
  const result = await exec
    .updateTable("topups")
    .set({ status: "expired", updated_at: now })
    .where("method", "=", "stars")
    .where("status", "=", "active")
    .where("expires_at", "<", now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function topupByInvoice(exec: Executor, invoiceId: number): Promise<Topup | undefined> {
  const row = await exec.selectFrom("topups").selectAll().where("invoice_id", "=", invoiceId).executeTakeFirst();
  return row && toTopup(row);
}

/** The account's top-ups, newest first; `before` pages on (smaller ids). */
export async function listTopups(
  exec: Executor,
  accountId: number,
  page: { limit: number; before?: number; method?: Topup["method"] },
): Promise<Topup[]> {
  let query = exec.selectFrom("topups").selectAll().where("account_id", "=", accountId);
  if (page.before !== undefined) query = query.where("id", "<", page.before);
  if (page.method !== undefined) query = query.where("method", "=", page.method);
  const rows = await query.orderBy("id", "desc").limit(page.limit).execute();
  return rows.map(toTopup);
}

/** Transfers waiting for an administrator's decision, oldest first, with whose they are: the admin desk's queue. */
export async function pendingTransfers(
  exec: Executor,
  limit: number,
): Promise<Array<{ topup: Topup; telegramId: string | null; username: string | null }>> {
  const rows = await exec
    .selectFrom("topups")
    .innerJoin("accounts", "accounts.id", "topups.account_id")
    .selectAll("topups")
    .select(["accounts.telegram_id", "accounts.username"])
    .where("topups.method", "=", "transfer")
    .where("topups.status", "=", "pending")
    .orderBy("topups.id")
    .limit(limit)
    .execute();
  return rows.map(({ telegram_id, username, ...topup }) => ({ topup: toTopup(topup), telegramId: telegram_id, username }));
}

/** The account's top-ups in these states, oldest first, at most `limit`. */
async function openTopups(exec: Executor, accountId: number, statuses: TopupStatus[], limit: number): Promise<Topup[]> {
  const rows = await exec
    .selectFrom("topups")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("status", "in", statuses)
    .orderBy("id")
    .limit(limit)
    .execute();
  return rows.map(toTopup);
}

/** The provider made the invoice: it is active, and the poll first looks at it at `checkAfter`. */
export async function invoiceMade(
  exec: Executor,
  id: number,
  invoice: { invoiceId: number; payUrl: string; webAppUrl: string | null; expiresAt: string | null; checkAfter: string; at: string },
): Promise<void> {
  await exec
    .updateTable("topups")
    .set({
      status: "active",
      invoice_id: invoice.invoiceId,
      pay_url: invoice.payUrl,
      web_app_url: invoice.webAppUrl,
      expires_at: invoice.expiresAt,
      check_after: invoice.checkAfter,
      updated_at: invoice.at,
    })
    .where("id", "=", id)
    .where("status", "=", "creating")
    .execute();
}

/**
 * Moves a top-up from one of `from` to `to` (with the rest of `set`); false when it was in none of them (another
 * instance, webhook or decision got there first).
 */
export async function moveTopup(
  exec: Executor,
  id: number,
  from: TopupStatus[],
  to: TopupStatus,
  set: Partial<
    Pick<
      TopupsTable,
      "credited_micro" | "credited_at" | "invoice_id" | "decided_by" | "reason" | "charge_id" | "payer_id" | "reversed_micro" | "pay_url"
    >
  > & { at: string },
): Promise<boolean> {
  const { at, ...rest } = set;
  const result = await exec
    .updateTable("topups")
    .set({ ...rest, status: to, check_after: null, updated_at: at })
    .where("id", "=", id)
    .where("status", "in", from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Open invoices whose check is due at `now`, the longest waiting first (the poll's work). */
const dueInvoices = (exec: Executor, now: string, limit: number) =>
  exec
    .selectFrom("topups")
    .selectAll()
    .where("method", "=", "invoice")
    .where("status", "=", "active")
    .where("check_after", "<=", now)
    .orderBy("check_after")
    .limit(limit);

/** Leases up to `limit` due invoices to this instance until `until` (db/leases.ts: of several instances one asks). */
export async function claimDueInvoices(db: Db, claims: Claims, options: { now: string; until: string; limit: number }): Promise<Topup[]> {
  const rows = await claimDue({
    db,
    claims,
    until: options.until,
    limit: options.limit,
    due: (exec, limit) => dueInvoices(exec, options.now, limit),
    lease: (trx, ids) => trx.updateTable("topups").set({ check_after: options.until }).where("id", "in", ids).execute(),
  });
  return rows.map(toTopup);
}

/** An invoice still open after its check: looked at again at `checkAfter` (guarded by the lease written). */
export async function rescheduleInvoice(exec: Executor, id: number, lease: string, checkAfter: string): Promise<void> {
  await exec
    .updateTable("topups")
    .set({ check_after: checkAfter })
    .where("id", "=", id)
    .where("status", "=", "active")
    .where("check_after", "=", lease)
    .execute();
}

/** Makes this instance's claimed invoices due now (a stop); returns their ids. */
export function releaseInvoices(db: Db, claims: Claims, now: string): Promise<number[]> {
  return claims.release(async (ids, until) => {
    const rows = await db
      .updateTable("topups")
      .set({ check_after: now })
      .where("id", "in", ids)
      .where("status", "=", "active")
      .where("check_after", "=", until)
      .returning("id")
      .execute();
    return rows.map((row) => row.id);
  });
}

/** Top-ups by method and status, with what was credited: the CLI's and the bot's statistics. */
export async function topupStats(exec: Executor): Promise<Array<{ method: TopupMethod; status: TopupStatus; count: number; creditedMicro: number }>> {
  const rows = await exec
    .selectFrom("topups")
    .select((eb) => ["method", "status", eb.fn.countAll<number>().as("count"), eb.fn.sum<number>("credited_micro").as("credited")])
    .groupBy(["method", "status"])
    .orderBy("method")
    .orderBy("status")
    .execute();
  return rows.map((row) => ({ method: row.method, status: row.status, count: Number(row.count), creditedMicro: Number(row.credited ?? 0) }));
}

/** Invoices made since `since` and left unpaid (expired or cancelled): the alert on an unusual number of them. */
export async function unpaidInvoicesSince(exec: Executor, since: string): Promise<number> {
  const row = await exec
    .selectFrom("topups")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("method", "=", "invoice")
    .where("status", "in", ["expired", "cancelled"])
    .where("created_at", ">=", since)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
