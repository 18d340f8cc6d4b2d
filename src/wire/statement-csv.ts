import { formatUsdt } from "../core/money.js";
import type { Statement, StatementRange } from "../core/statement.js";

// The ledger statement as CSV: what GET /v1/ledger/export answers and the bot's statement sends as a file.

export const CSV_COLUMNS = ["entry_id", "created_at", "kind", "amount_usdt", "balance_after_usdt", "order_id", "note"] as const;

/**
 * One CSV cell (RFC 4180): text a spreadsheet would run as a formula (= + - @, a tab or a carriage return
 * first) gets a leading apostrophe; a cell with a quote, comma or line break is quoted, quotes doubled.
 * Only free text goes through the formula guard: amounts are generated and may rightly start with "-".
 */
export function csvText(value: string): string {
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** A statement as CSV: a header row, then one row per entry in the statement's order; CRLF line ends. */
export function statementCsv(statement: Statement): string {
  const rows = statement.entries.map((e) =>
    [
      String(e.id),
      e.createdAt,
      e.kind,
      formatUsdt(e.amountMicro),
      e.balanceAfterMicro === null ? "" : formatUsdt(e.balanceAfterMicro),
      e.orderId === null ? "" : String(e.orderId),
      e.note === null ? "" : csvText(e.note),
    ].join(","),
  );
  return [CSV_COLUMNS.join(","), ...rows].map((line) => `${line}\r\n`).join("");
}

/** A file name for an export of the range: `ledger_20261101T000000Z_20261201T000000Z.csv`. */
export function exportFileName({ from, to }: StatementRange): string {
  const compact = (iso: string | null) => (iso ?? "").replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
  return `ledger_${compact(from)}_${compact(to)}.csv`;
}
