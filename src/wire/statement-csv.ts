import { formatUsdt } from "../core/model/money.js";
import type { Statement, StatementRange } from "../core/statement.js";

// The ledger statement as CSV: what GET /v1/ledger/export answers and the bot's statement sends as a file.

const CSV_COLUMNS = ["entry_id", "created_at", "kind", "amount_usdt", "balance_after_usdt", "order_id", "note"] as const;

/** Where a spreadsheet may start a cell: the cell's start, or after a separator of any locale (, ; tab) or a line break. */
const FORMULA_START = /(^|[,;\t\r\n])(\s*[=+\-@])/g;

/**
 * One CSV cell (RFC 4180) of free text, neutralised for every spreadsheet locale: wherever a cell could start with
 * a formula (= + - @, after spaces or not), an apostrophe goes first, and a cell starting with a tab or carriage
 * return gets one too; a cell with a quote, a separator of any locale or a line break is quoted, quotes doubled.
 * Amounts are generated and may rightly start with "-": only free text goes through this.
 */
function csvText(value: string): string {
  let guarded = value.replace(FORMULA_START, "$1'$2");
  if (/^[\t\r]/.test(guarded)) guarded = `'${guarded}`;
  return /[",;\t\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
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
