import { randomBytes } from "node:crypto";
import type { Db, Executor } from "../db/database.js";
import { insertQuote, openQuoteExpiries, quoteById, spendQuote } from "../db/quotes.js";
import { DomainError, invalid } from "./model/errors.js";
import { QUOTE_ID_PATTERN, QUOTE_ID_RULE } from "./formats.js";
import type { Micro } from "./model/money.js";
import type { Clock } from "./model/clock.js";
import type { BindingQuote, StoredQuote } from "./model/quote.js";

/** What the quote is for: the product and the hash of its identifying fields (the idempotency hash). */
export interface QuoteTarget {
  productType: string;
  requestHash: string;
}

/** The quote as the faces see it. */
const binding = ({ accountId: _account, requestHash: _hash, orderId: _order, ...quote }: StoredQuote): BindingQuote => quote;

/** Why a quote cannot pay for this purchase at `at`, or null when it can. */
function refusal(row: StoredQuote | undefined, id: string, accountId: number, target: QuoteTarget, at: string) {
  if (!row || row.accountId !== accountId) {
    return invalid(`Quote ${id} does not exist for this key: get one from POST /v1/quotes`, { reason: "quote_not_found" });
  }
  if (row.productType !== target.productType || row.requestHash !== target.requestHash) {
    return invalid(`Quote ${id} is for another purchase (a ${row.productType} order to ${row.recipient}): send the fields it was given for`, {
      reason: "quote_mismatch",
    });
  }
  if (row.orderId !== null) {
    return invalid(`Quote ${id} was already used by order ${row.orderId}: get a new one`, { reason: "quote_used" });
  }
  if (row.expiresAt <= at) return invalid(`Quote ${id} expired at ${row.expiresAt}: get a new one`, { reason: "quote_expired" });
  return null;
}

/**
 * Binding quotes: issued with the exact charge a purchase would have now, then spent by at most one order of
 * the same account, product and identifying fields before they expire. Refusals are 400 with a `quote_*`
 * reason; an unknown id and another account's id are the same `quote_not_found`, so ids cannot be probed.
 * Expired quotes are purged by a job (jobs/purges.ts).
 */
export function createQuoteBook({ db, clock, ttlMs, openMax }: { db: Db; clock: Clock; ttlMs: number; openMax: number }) {
  return {
    ttlMs,

    async issue<D>(accountId: number, target: QuoteTarget, quoted: { recipient: string; chargeMicro: Micro; details: D }): Promise<BindingQuote<D>> {
      const now = clock.now();
      // A bound on what one key keeps open: each quote is a row and a promise of a price.
      const open = await openQuoteExpiries(db, accountId, now.toISOString(), openMax);
      if (open.length >= openMax) {
        const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(open[0]) - now.getTime()) / 1000));
        throw new DomainError(
          "rate_limited",
          `This key has ${openMax} open quotes, the most it may have: use or let one expire (retry in ${retryAfterSeconds} s)`,
          {
            retryAfterSeconds,
          },
        );
      }
      const stored = await insertQuote(db, {
        id: `q_${randomBytes(18).toString("base64url")}`,
        accountId,
        productType: target.productType,
        requestHash: target.requestHash,
        recipient: quoted.recipient,
        details: quoted.details,
        chargeMicro: quoted.chargeMicro,
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
      });
      return binding(stored) as BindingQuote<D>;
    },

    /** The quote a purchase names, if it may pay for it now (nothing changes); else the refusal is thrown. */
    async usable(accountId: number, id: string, target: QuoteTarget): Promise<BindingQuote> {
      // The schemas refuse a malformed id already; the core holds the same rule for any other face.
      if (!QUOTE_ID_PATTERN.test(id)) throw invalid(`quote_id must be ${QUOTE_ID_RULE}`);
      const stored = await quoteById(db, id);
      const refused = refusal(stored, id, accountId, target, clock.now().toISOString());
      if (refused) throw refused;
      return binding(stored!);
    },

    /**
     * Spends the quote on the order, in the transaction that charges it: one guarded update (unused, unexpired,
     * this account's), so of two purchases naming one quote, on any instance, exactly one commits.
     */
    async consume(trx: Executor, accountId: number, id: string, target: QuoteTarget, orderId: number, at: string): Promise<void> {
      if (await spendQuote(trx, { id, accountId, target, orderId, at })) return;
      throw (
        refusal(await quoteById(trx, id), id, accountId, target, at) ?? invalid(`Quote ${id} cannot be used: get a new one`, { reason: "quote_used" })
      );
    },
  };
}

export type QuoteBook = ReturnType<typeof createQuoteBook>;
