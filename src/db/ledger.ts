import { type ExpressionBuilder, sql } from "kysely";
import type { Account } from "../core/model/account.js";
import type { LedgerKind, Posting } from "../core/model/ledger.js";
import { MAX_MICRO, type Micro, micro } from "../core/model/money.js";
import { compiledWrite } from "./compiled.js";
import type { Executor } from "./database.js";
import type { Database } from "./schema.js";

// The ledger: balances change only here (and in placement.ts, a purchase's charge and refund in one statement each), each
// change with its entry; and the entries read back as statements.

/** The guarded update of postEntry. */
const applyAmount = compiledWrite(["accountId", "amountMicro"], (trx, v: { accountId: number; amountMicro: number }) =>
  trx
    .updateTable("accounts")
    .set({ balance_micro: sql<number>`balance_micro + ${v.amountMicro}` })
    .where("id", "=", v.accountId)
    .where(sql<boolean>`balance_micro + ${v.amountMicro} between 0 and ${MAX_MICRO}`)
    .returning("balance_micro"),
);

type NewEntry = Required<Posting> & { balanceAfterMicro: number };

const insertEntry = compiledWrite(
  ["accountId", "orderId", "topupId", "kind", "amountMicro", "balanceAfterMicro", "actor", "note", "at"],
  (trx, v: NewEntry) =>
    trx.insertInto("ledger_entries").values({
      account_id: v.accountId,
      order_id: v.orderId,
      topup_id: v.topupId,
      kind: v.kind,
      amount_micro: v.amountMicro,
      balance_after_micro: v.balanceAfterMicro,
      actor: v.actor,
      note: v.note,
      created_at: v.at,
    }),
);

/**
 * The guarded balance update (0 <= balance + amount <= MAX_MICRO, as the table's CHECKs say) and its entry, in
 * the caller's transaction. Returns the balance after, or null when the guard refused (nothing was written).
 */
export async function postEntry(trx: Executor, posting: Posting): Promise<Micro | null> {
  const [updated] = await applyAmount(trx, posting);
  if (!updated) return null;
  const { orderId = null, topupId = null, note = null } = posting;
  await insertEntry(trx, { balanceAfterMicro: updated.balance_micro, ...posting, orderId, topupId, note });
  return micro(updated.balance_micro);
}

/** The account's balance, or undefined when there is no such account. */
export async function balanceOf(exec: Executor, accountId: number): Promise<Micro | undefined> {
  const row = await exec.selectFrom("accounts").select("balance_micro").where("id", "=", accountId).executeTakeFirst();
  return row && micro(row.balance_micro);
}

/** Accounts whose balance differs from the sum of their entries; empty when the books hold. */
export async function unbalancedAccounts(exec: Executor): Promise<Array<{ accountId: number; balanceMicro: Micro; entriesMicro: Micro }>> {
  const rows = await exec
    .selectFrom("accounts")
    .leftJoin("ledger_entries", "ledger_entries.account_id", "accounts.id")
    .select(["accounts.id", "accounts.balance_micro", sql<number | null>`sum(ledger_entries.amount_micro)`.as("entries_micro")])
    .groupBy(["accounts.id", "accounts.balance_micro"])
    .execute();
  return rows
    .map((r) => ({ accountId: r.id, balanceMicro: micro(r.balance_micro), entriesMicro: micro(r.entries_micro ?? 0) }))
    .filter((r) => r.balanceMicro !== r.entriesMicro);
}

// ---- Statements -------------------------------------------------------------------------------------

/** One ledger entry as stored. */
export interface LedgerEntry {
  id: number;
  kind: LedgerKind;
  amountMicro: Micro;
  balanceAfterMicro: Micro;
  orderId: number | null;
  note: string | null;
  createdAt: string;
}

/** ISO times with ms in UTC (as stored); `from` inclusive, `to` exclusive; null is open-ended. */
export interface EntryRange {
  from: string | null;
  to: string | null;
}

type EntryScope = ExpressionBuilder<Database, "ledger_entries">;

/** Which entries a caller's statement shows: its own account's, or for an owner key the wallet's entries of its own orders. */
function scope(account: Pick<Account, "id" | "kind">) {
  return (eb: EntryScope) =>
    account.kind === "owner"
      ? eb.and([
          eb("ledger_entries.order_id", "in", eb.selectFrom("orders").select("orders.id").where("orders.account_id", "=", account.id)),
          eb("ledger_entries.account_id", "!=", account.id),
        ])
      : eb("ledger_entries.account_id", "=", account.id);
}

function inRange({ from, to }: EntryRange) {
  return (eb: EntryScope) =>
    eb.and([...(from ? [eb("ledger_entries.created_at", ">=", from)] : []), ...(to ? [eb("ledger_entries.created_at", "<", to)] : [])]);
}

const columns = ["id", "kind", "amount_micro", "balance_after_micro", "order_id", "note", "created_at"] as const;

const toEntry = (row: {
  id: number;
  kind: LedgerKind;
  amount_micro: number;
  balance_after_micro: number;
  order_id: number | null;
  note: string | null;
  created_at: string;
}): LedgerEntry => ({
  id: row.id,
  kind: row.kind,
  amountMicro: micro(row.amount_micro),
  balanceAfterMicro: micro(row.balance_after_micro),
  orderId: row.order_id,
  note: row.note,
  createdAt: row.created_at,
});

/** Up to `limit` of the caller's entries in the range, newest first; `before` pages on (smaller ids). */
export async function entriesNewestFirst(
  exec: Executor,
  account: Pick<Account, "id" | "kind">,
  range: EntryRange,
  page: { limit: number; before?: number | null },
): Promise<LedgerEntry[]> {
  let query = exec.selectFrom("ledger_entries").select(columns).where(scope(account)).where(inRange(range));
  if (page.before) query = query.where("id", "<", page.before);
  const rows = await query.orderBy("id", "desc").limit(page.limit).execute();
  return rows.map(toEntry);
}

/** Up to `limit` of the caller's entries in the range with ids above `after`, oldest first. */
export async function entriesOldestFirst(
  exec: Executor,
  account: Pick<Account, "id" | "kind">,
  range: EntryRange,
  page: { after: number; limit: number },
): Promise<LedgerEntry[]> {
  const rows = await exec
    .selectFrom("ledger_entries")
    .select(columns)
    .where(scope(account))
    .where(inRange(range))
    .where("id", ">", page.after)
    .orderBy("id", "asc")
    .limit(page.limit)
    .execute();
  return rows.map(toEntry);
}

/** The sum of the caller's entries before `from` and of those from `from` up to `to`, in one statement (one snapshot). */
export async function entryTotals(
  exec: Executor,
  account: Pick<Account, "id" | "kind">,
  range: EntryRange,
): Promise<{ openingMicro: Micro; withinMicro: Micro }> {
  const from = range.from ?? "";
  const row = await exec
    .selectFrom("ledger_entries")
    .select([
      sql<number>`coalesce(sum(case when created_at < ${from} then amount_micro else 0 end), 0)`.as("opening"),
      sql<number>`coalesce(sum(case when created_at >= ${from} then amount_micro else 0 end), 0)`.as("within"),
    ])
    .where(scope(account))
    .where(inRange({ from: null, to: range.to }))
    .executeTakeFirstOrThrow();
  return { openingMicro: micro(row.opening), withinMicro: micro(row.within) };
}

// ---- An administrator's reads ---------------------------------------------------------------------

/** An entry with whose balance it moved and who made it: what an administrator reads of an order or a top-up. */
export interface BookedEntry extends LedgerEntry {
  accountId: number;
  actor: string;
  topupId: number | null;
}

/** The entries of one order (its charge, its refund) or of one top-up (its credit, a reversal), oldest first. */
export async function entriesOf(exec: Executor, of: { orderId: number } | { topupId: number }): Promise<BookedEntry[]> {
  const query = exec.selectFrom("ledger_entries").select([...columns, "account_id", "actor", "topup_id"]);
  const rows = await ("orderId" in of ? query.where("order_id", "=", of.orderId) : query.where("topup_id", "=", of.topupId)).orderBy("id").execute();
  return rows.map((row) => ({ ...toEntry(row), accountId: row.account_id, actor: row.actor, topupId: row.topup_id }));
}
