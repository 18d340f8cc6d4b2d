import type { Db } from "../db/database.js";
import { entriesNewestFirst, entriesOldestFirst, entryTotals, type LedgerEntry } from "../db/ledger.js";
import type { Account } from "./model/account.js";
import { DomainError, invalid } from "./model/errors.js";
import type { LedgerKind } from "./model/ledger.js";
import { type Micro, micro } from "./model/money.js";

/** The most entries one statement page holds (the same bound as the order list). */
const STATEMENT_PAGE_MAX = 100;
/** The longest range one CSV export covers. */
const EXPORT_MAX_DAYS = 366;
/** The most entries one CSV export holds; a busier range is refused with a request to split it. */
const EXPORT_MAX_ENTRIES = 100_000;
const EXPORT_CHUNK = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What the statement's balances mean. `balance`: the account's own balance (a standard key). `owner_orders`: an
 * owner key has no balance; its statement is the wallet's charges and refunds of the orders the key placed, and
 * its "balances" are the running net total of those entries from the key's first order on (0, then negative).
 */
export type StatementBasis = "balance" | "owner_orders";

export interface StatementEntry {
  id: number;
  kind: LedgerKind;
  /** Signed: credits and refunds positive, charges and debits negative. */
  amountMicro: Micro;
  /** The account's balance after this entry; null for an owner key (the wallet is shared, not the key's). */
  balanceAfterMicro: Micro | null;
  orderId: number | null;
  /** The administrator's note of a credit, debit or adjustment; null for charges and refunds. */
  note: string | null;
  createdAt: string;
}

/** ISO times with ms in UTC (as stored); `from` inclusive, `to` exclusive; null is open-ended. */
export interface StatementRange {
  from: string | null;
  to: string | null;
}

export interface Statement extends StatementRange {
  basis: StatementBasis;
  /** Sum of the shown basis before `from` (0 without one). */
  openingMicro: Micro;
  /** `openingMicro` plus every entry of the range: closing - opening = the sum of the range's entries. */
  closingMicro: Micro;
  entries: StatementEntry[];
}

export interface StatementPage extends Statement {
  /** Entry id to pass as `before` for the next (older) page; null on the last page. */
  nextBefore: number | null;
}

function checkRange({ from, to }: StatementRange): void {
  if (from && to && from >= to) throw invalid("from must be before to");
}

const NOTED: ReadonlySet<LedgerKind> = new Set(["credit", "debit", "adjustment", "topup"]);

/** An entry as the caller's statement shows it: an owner key sees no balance (the wallet is shared), and only administrators' notes. */
const toEntry =
  (account: Account) =>
  (entry: LedgerEntry): StatementEntry => ({
    ...entry,
    balanceAfterMicro: account.kind === "owner" ? null : entry.balanceAfterMicro,
    note: NOTED.has(entry.kind) ? entry.note : null,
  });

const basisOf = (account: Account): StatementBasis => (account.kind === "owner" ? "owner_orders" : "balance");

/** The export's reads: entries in chunks, refused past EXPORT_MAX_ENTRIES. */
async function exportRange(db: Db, account: Account, range: { from: string; to: string }): Promise<Statement> {
  const entries: StatementEntry[] = [];
  for (let after = 0; ;) {
    const rows = await entriesOldestFirst(db, account, range, { after, limit: EXPORT_CHUNK });
    entries.push(...rows.map(toEntry(account)));
    if (entries.length > EXPORT_MAX_ENTRIES) {
      throw invalid(`The range holds more than ${EXPORT_MAX_ENTRIES} entries: export a shorter range`);
    }
    if (rows.length < EXPORT_CHUNK) break;
    after = entries[entries.length - 1].id;
  }
  // The opening total: every entry before `from`.
  const { openingMicro } = await entryTotals(db, account, { from: range.from, to: range.from });
  const sum = entries.reduce((total, entry) => total + entry.amountMicro, 0);
  return { basis: basisOf(account), ...range, openingMicro, closingMicro: micro(openingMicro + sum), entries };
}

export function createStatements({ db }: { db: Db }) {
  /** Accounts whose export is being made here now. */
  const exporting = new Set<number>();

  return {
    /** One page of the caller's entries, newest first, with the range's opening and closing totals. */
    async page(account: Account, options: StatementRange & { limit: number; before?: number | null }): Promise<StatementPage> {
      const range = { from: options.from, to: options.to };
      checkRange(range);
      if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > STATEMENT_PAGE_MAX) {
        throw invalid(`limit must be a whole number from 1 to ${STATEMENT_PAGE_MAX}`);
      }
      const rows = await entriesNewestFirst(db, account, range, { limit: options.limit + 1, before: options.before });
      const more = rows.length > options.limit;
      const entries = rows.slice(0, options.limit).map(toEntry(account));
      // The opening total (before `from`) and the range's sum, from one snapshot.
      const { openingMicro, withinMicro } = await entryTotals(db, account, range);
      return {
        basis: basisOf(account),
        ...range,
        openingMicro,
        closingMicro: micro(openingMicro + withinMicro),
        entries,
        nextBefore: more ? entries[entries.length - 1].id : null,
      };
    },

    /**
     * Every entry of a closed range, oldest first, for a CSV export. The closing total is the opening plus the
     * entries read, so the export agrees with itself even while new entries arrive.
     */
    async export(account: Account, range: StatementRange): Promise<Statement> {
      if (!range.from || !range.to) throw invalid("from and to are both required for an export");
      checkRange(range);
      if (Date.parse(range.to) - Date.parse(range.from) > EXPORT_MAX_DAYS * DAY_MS) {
        throw invalid(`An export covers at most ${EXPORT_MAX_DAYS} days: split the range`);
      }
      // One export per key at a time (on each instance): a key cannot stack reads of 100,000 entries.
      if (exporting.has(account.id)) {
        throw new DomainError("rate_limited", "An export of this key's statement is still being made: retry when it is done", {
          retryAfterSeconds: 1,
        });
      }
      exporting.add(account.id);
      try {
        return await exportRange(db, account, { from: range.from, to: range.to });
      } finally {
        exporting.delete(account.id);
      }
    },
  };
}
