import { randomBytes } from "node:crypto";
import type { Db, Executor } from "../db/database.js";
import type { QuoteRow } from "../db/schema.js";
import { invalid } from "./errors.js";
import { QUOTE_ID_PATTERN, QUOTE_ID_RULE } from "./limits.js";
import type { Micro } from "./money.js";
import type { Clock } from "./ports.js";

/** A binding quote as the faces see it: the exact charge of one purchase, for one account, until it expires. */
export interface BindingQuote<D = unknown> {
  id: string;
  productType: string;
  recipient: string;
  chargeMicro: Micro;
  /** The product's details as quoted: the order that uses the quote carries them with its charge. */
  details: D;
  createdAt: string;
  expiresAt: string;
}

/** What the quote is for: the product and the hash of its identifying fields (the idempotency hash). */
export interface QuoteTarget {
  productType: string;
  requestHash: string;
}

const toQuote = (row: QuoteRow): BindingQuote => ({
  id: row.id,
  productType: row.product_type,
  recipient: row.recipient,
  chargeMicro: Number(row.charge_micro),
  details: JSON.parse(row.details) as unknown,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/**
 * Binding quotes: issued with the exact charge a purchase would have now, then spent by at most one order of
 * the same account, product and identifying fields before they expire. Refusals are 400 with a `quote_*`
 * reason; an unknown id and another account's id are the same `quote_not_found`, so ids cannot be probed.
 * Expired quotes are purged by a job (jobs/purges.ts).
 */
export function createQuoteBook(db: Db, clock: Clock, ttlMs: number) {
  /** Why a quote cannot pay for this purchase at `at`, or null when it can. */
  function refusal(row: QuoteRow | undefined, id: string, accountId: number, target: QuoteTarget, at: string) {
    if (!row || Number(row.account_id) !== accountId) {
      return invalid(`Quote ${id} does not exist for this key: get one from POST /v1/quotes`, { reason: "quote_not_found" });
    }
    if (row.product_type !== target.productType || row.request_hash !== target.requestHash) {
      return invalid(`Quote ${id} is for another purchase (a ${row.product_type} order to ${row.recipient}): send the fields it was given for`, {
        reason: "quote_mismatch",
      });
    }
    if (row.order_id !== null) {
      return invalid(`Quote ${id} was already used by order ${row.order_id}: get a new one`, { reason: "quote_used" });
    }
    if (row.expires_at <= at) return invalid(`Quote ${id} expired at ${row.expires_at}: get a new one`, { reason: "quote_expired" });
    return null;
  }

  const read = (exec: Executor, id: string) => exec.selectFrom("quotes").selectAll().where("id", "=", id).executeTakeFirst();

  return {
    ttlMs,

    async issue<D>(accountId: number, target: QuoteTarget, quoted: { recipient: string; chargeMicro: Micro; details: D }): Promise<BindingQuote<D>> {
      const now = clock.now();
      const row = await db
        .insertInto("quotes")
        .values({
          id: `q_${randomBytes(18).toString("base64url")}`,
          account_id: accountId,
          product_type: target.productType,
          request_hash: target.requestHash,
          recipient: quoted.recipient,
          details: JSON.stringify(quoted.details),
          charge_micro: quoted.chargeMicro,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + ttlMs).toISOString(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toQuote(row) as BindingQuote<D>;
    },

    /** The quote a purchase names, if it may pay for it now (nothing changes); else the refusal is thrown. */
    async usable(accountId: number, id: string, target: QuoteTarget): Promise<BindingQuote> {
      // The schemas refuse a malformed id already; the core holds the same rule for any other face.
      if (!QUOTE_ID_PATTERN.test(id)) throw invalid(`quote_id must be ${QUOTE_ID_RULE}`);
      const row = await read(db, id);
      const refused = refusal(row, id, accountId, target, clock.now().toISOString());
      if (refused) throw refused;
      return toQuote(row!);
    },

    /**
     * Spends the quote on the order, in the transaction that charges it: one guarded update (unused, unexpired,
     * this account's), so of two purchases naming one quote, on any instance, exactly one commits.
     */
    async consume(trx: Executor, accountId: number, id: string, target: QuoteTarget, orderId: number, at: string): Promise<void> {
      const result = await trx
        .updateTable("quotes")
        .set({ order_id: orderId })
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .where("product_type", "=", target.productType)
        .where("request_hash", "=", target.requestHash)
        .where("order_id", "is", null)
        .where("expires_at", ">", at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) return;
      throw refusal(await read(trx, id), id, accountId, target, at) ?? invalid(`Quote ${id} cannot be used: get a new one`, { reason: "quote_used" });
    },
  };
}

export type QuoteBook = ReturnType<typeof createQuoteBook>;
