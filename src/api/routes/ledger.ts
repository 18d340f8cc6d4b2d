import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Core } from "../../core/index.js";
import { toUsdt } from "../../core/money.js";
import { exportFileName, type Statement, type StatementEntry, statementCsv } from "../../core/statement.js";
import { callerOf } from "../auth.js";
import { encodeCursor, errorBody, keyedErrors, ledgerEntrySchema, ledgerExportQuery, ledgerQuery, ledgerResponse } from "../schemas.js";

const entryView = (entry: StatementEntry): z.infer<typeof ledgerEntrySchema> => ({
  entry_id: entry.id,
  kind: entry.kind,
  amount_usdt: toUsdt(entry.amountMicro),
  balance_after_usdt: entry.balanceAfterMicro === null ? null : toUsdt(entry.balanceAfterMicro),
  order_id: entry.orderId,
  note: entry.note,
  created_at: entry.createdAt,
});

const totalsView = (statement: Statement) => ({
  basis: statement.basis,
  from: statement.from,
  to: statement.to,
  opening_balance_usdt: toUsdt(statement.openingMicro),
  closing_balance_usdt: toUsdt(statement.closingMicro),
});

/** The key's ledger statement (an addition to the contract): pages newest first, and a CSV export of a range. */
export const ledgerRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    "/v1/ledger",
    {
      schema: {
        summary: "The key's balance changes, newest first, with cursor paging and an optional time range",
        operationId: "getLedger",
        tags: ["Ledger"],
        querystring: ledgerQuery,
        response: { 200: ledgerResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { limit, before, from = null, to = null } = request.query;
      const page = await core.statements.page(callerOf(request).account, { limit, before, from, to });
      return {
        success: true as const,
        ...totalsView(page),
        count: page.entries.length,
        entries: page.entries.map(entryView),
        next_before: page.nextBefore === null ? null : encodeCursor(page.nextBefore),
      };
    },
  );

  app.get(
    "/v1/ledger/export",
    {
      schema: {
        summary: "Every entry of a time range (at most 366 days) as CSV, oldest first",
        description:
          "Columns: entry_id, created_at, kind, amount_usdt, balance_after_usdt, order_id, note. Amounts are exact decimal strings. " +
          "The headers X-Statement-Basis, X-Opening-Balance-USDT, X-Closing-Balance-USDT and X-Entry-Count carry the range's totals " +
          "(closing - opening = the sum of the rows).",
        operationId: "exportLedger",
        tags: ["Ledger"],
        querystring: ledgerExportQuery,
        response: {
          200: { description: "The statement as CSV (RFC 4180, CRLF line ends, UTF-8)", content: { "text/csv": { schema: z.string() } } },
          400: errorBody,
          ...keyedErrors,
        },
      },
    },
    async (request, reply) => {
      const statement = await core.statements.export(callerOf(request).account, request.query);
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${exportFileName(statement)}"`)
        .header("x-statement-basis", statement.basis)
        .header("x-opening-balance-usdt", String(toUsdt(statement.openingMicro)))
        .header("x-closing-balance-usdt", String(toUsdt(statement.closingMicro)))
        .header("x-entry-count", String(statement.entries.length))
        .send(statementCsv(statement));
    },
  );
};
