import { z } from "zod";
import { toUsdt } from "../core/model/money.js";
import type { Statement, StatementEntry, StatementPage } from "../core/statement.js";
import { dateTime, limitField } from "./common.js";

// The key's ledger statement (an addition to the contract): pages newest first, and the totals of a CSV export.

const DATE_OR_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2})))?$/;

/**
 * An ISO 8601 date (UTC midnight) or a time with a zone (Z or ±hh:mm), normalized to the stored form (UTC, ms).
 * A time without a zone is refused: it would mean a different instant on every client.
 */
function isoTime(name: string) {
  const rule = `${name} must be an ISO 8601 date or time with a zone, such as 2026-11-01 or 2026-11-01T00:00:00Z`;
  return z.string({ error: (issue) => (issue.input === undefined ? `${name} is required` : rule) }).transform((text, ctx) => {
    const match = DATE_OR_TIME.exec(text);
    const [, year, month, day, hour = "0", minute = "0", second = "0", , offsetHours = "0", offsetMinutes = "0"] = match ?? [];
    const days = match ? new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate() : 0;
    const valid =
      match &&
      Number(year) >= 1970 &&
      Number(month) >= 1 &&
      Number(month) <= 12 &&
      Number(day) >= 1 &&
      Number(day) <= days &&
      Number(hour) <= 23 &&
      Number(minute) <= 59 &&
      Number(second) <= 59 &&
      Number(offsetHours) <= 14 &&
      Number(offsetMinutes) <= 59;
    const at = valid ? new Date(match[4] === undefined ? `${text}T00:00:00Z` : text) : null;
    if (!at || Number.isNaN(at.getTime()) || at.getUTCFullYear() > 9999) {
      ctx.addIssue({ code: "custom", message: rule });
      return z.NEVER;
    }
    return at.toISOString();
  });
}

/** The statement's cursor: opaque to clients; inside, the id of the last entry of the page they have. */
const encodeCursor = (entryId: number) => Buffer.from(`e${entryId}`).toString("base64url");

const cursorField = z
  .string()
  .transform((text, ctx) => {
    const inside = /^[A-Za-z0-9_-]{1,24}$/.test(text) ? /^e([1-9]\d{0,14})$/.exec(Buffer.from(text, "base64url").toString("latin1")) : null;
    if (!inside) {
      ctx.addIssue({ code: "custom", message: "before must be a next_before value from an earlier page" });
      return z.NEVER;
    }
    return Number(inside[1]);
  })
  .optional()
  .describe("Optional: the next_before of the page you have, for the next (older) page");

export const ledgerQuery = z.object({
  limit: limitField,
  before: cursorField,
  from: isoTime("from").optional().describe("Optional: entries at or after this time (ISO 8601 date or time with a zone)"),
  to: isoTime("to").optional().describe("Optional: entries before this time (exclusive)"),
});

export const ledgerExportQuery = z.object({
  from: isoTime("from").describe("Entries at or after this time (ISO 8601 date or time with a zone)"),
  to: isoTime("to").describe("Entries before this time (exclusive); at most 366 days after from"),
});

export const ledgerEntrySchema = z
  .object({
    entry_id: z.number().int(),
    kind: z
      .enum(["credit", "debit", "charge", "refund", "adjustment", "topup", "reversal"])
      .describe("topup: a top-up credited; reversal: a refunded Stars top-up's credit taken back"),
    amount_usdt: z.number().describe("Signed: credits and refunds positive, charges and debits negative"),
    balance_after_usdt: z.number().nullable().describe("The balance after this entry; null for an owner key, which has no balance of its own"),
    order_id: z.number().int().nullable(),
    note: z
      .string()
      .nullable()
      .describe("The administrator's note of a credit, debit or adjustment, or what a top-up came from (its invoice or transfer); null otherwise"),
    created_at: dateTime,
  })
  .meta({ id: "LedgerEntry" });

export const ledgerResponse = z
  .object({
    success: z.literal(true),
    basis: z
      .enum(["balance", "owner_orders"])
      .describe(
        "balance: the key's own balance. owner_orders (an owner key): the wallet's charges and refunds of this key's orders; opening and closing are their running net total from 0",
      ),
    from: dateTime.nullable(),
    to: dateTime.nullable(),
    opening_balance_usdt: z.number().describe("Before from (0 without from)"),
    closing_balance_usdt: z.number().describe("opening_balance_usdt plus every entry of the range, on every page"),
    count: z.number().int(),
    entries: z.array(ledgerEntrySchema),
    next_before: z.string().nullable().describe("Pass as before for the next (older) page; null on the last page"),
  })
  .meta({ id: "LedgerStatement" });

const entryView = (entry: StatementEntry): z.infer<typeof ledgerEntrySchema> => ({
  entry_id: entry.id,
  kind: entry.kind,
  amount_usdt: toUsdt(entry.amountMicro),
  balance_after_usdt: entry.balanceAfterMicro === null ? null : toUsdt(entry.balanceAfterMicro),
  order_id: entry.orderId,
  note: entry.note,
  created_at: entry.createdAt,
});

/** A page of the statement, with the range's totals and the cursor of the next page. */
export const ledgerView = (page: StatementPage): z.infer<typeof ledgerResponse> => ({
  success: true as const,
  basis: page.basis,
  from: page.from,
  to: page.to,
  opening_balance_usdt: toUsdt(page.openingMicro),
  closing_balance_usdt: toUsdt(page.closingMicro),
  count: page.entries.length,
  entries: page.entries.map(entryView),
  next_before: page.nextBefore === null ? null : encodeCursor(page.nextBefore),
});

/** The export's totals, as headers beside the CSV (closing - opening = the sum of the rows). */
export const exportHeaders = (statement: Statement) => ({
  "x-statement-basis": statement.basis,
  "x-opening-balance-usdt": String(toUsdt(statement.openingMicro)),
  "x-closing-balance-usdt": String(toUsdt(statement.closingMicro)),
  "x-entry-count": String(statement.entries.length),
});
