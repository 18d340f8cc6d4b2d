import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { errorBody, keyedErrors } from "../../wire/common.js";
import { exportHeaders, ledgerExportQuery, ledgerQuery, ledgerResponse, ledgerView } from "../../wire/ledger.js";
import { exportFileName, statementCsv } from "../../wire/statement-csv.js";

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
      return ledgerView(await core.statements.page(callerOf(request).account, { limit, before, from, to }));
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
        .headers(exportHeaders(statement))
        .send(statementCsv(statement));
    },
  );
};
