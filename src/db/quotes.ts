import { micro } from "../core/model/money.js";
import type { BindingQuote, StoredQuote } from "../core/model/quote.js";
import type { Executor } from "./database.js";
import type { QuoteRow } from "./schema.js";

// Binding quotes (POST /v1/quotes): issued, checked, spent once by an order, purged once expired.

const toQuote = (row: QuoteRow): StoredQuote => ({
  id: row.id,
  accountId: row.account_id,
  productType: row.product_type,
  requestHash: row.request_hash,
  recipient: row.recipient,
  chargeMicro: micro(row.charge_micro),
  details: JSON.parse(row.details) as unknown,
  orderId: row.order_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export async function insertQuote(exec: Executor, quote: Omit<StoredQuote, "orderId">): Promise<StoredQuote> {
  const row = await exec
    .insertInto("quotes")
    .values({
      id: quote.id,
      account_id: quote.accountId,
      product_type: quote.productType,
      request_hash: quote.requestHash,
      recipient: quote.recipient,
      details: JSON.stringify(quote.details),
      charge_micro: quote.chargeMicro,
      created_at: quote.createdAt,
      expires_at: quote.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toQuote(row);
}

/** When the account's open quotes (unused, unexpired at `now`) expire, soonest first: at most `limit` of them. */
export async function openQuoteExpiries(exec: Executor, accountId: number, now: string, limit: number): Promise<string[]> {
  const rows = await exec
    .selectFrom("quotes")
    .select("expires_at")
    .where("account_id", "=", accountId)
    .where("expires_at", ">", now)
    .where("order_id", "is", null)
    .orderBy("expires_at")
    .limit(limit)
    .execute();
  return rows.map((row) => row.expires_at);
}

export async function quoteById(exec: Executor, id: string): Promise<StoredQuote | undefined> {
  const row = await exec.selectFrom("quotes").selectAll().where("id", "=", id).executeTakeFirst();
  return row && toQuote(row);
}

/**
 * Spends the quote on the order: one guarded update (unused, unexpired at `at`, this account's, this purchase's),
 * so of two purchases naming one quote, on any instance, exactly one spends it. False when this one did not.
 */
export async function spendQuote(
  exec: Executor,
  spend: { id: string; accountId: number; target: Pick<BindingQuote, "productType"> & { requestHash: string }; orderId: number; at: string },
): Promise<boolean> {
  const result = await exec
    .updateTable("quotes")
    .set({ order_id: spend.orderId })
    .where("id", "=", spend.id)
    .where("account_id", "=", spend.accountId)
    .where("product_type", "=", spend.target.productType)
    .where("request_hash", "=", spend.target.requestHash)
    .where("order_id", "is", null)
    .where("expires_at", ">", spend.at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes unused quotes that expired before `before`; returns how many. */
export async function purgeQuotes(exec: Executor, before: string): Promise<number> {
  const result = await exec.deleteFrom("quotes").where("order_id", "is", null).where("expires_at", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
