import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { SimContext } from "./context.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../config/simulated-credentials.js";
import { current, type Invoice, type Invoices } from "./cryptopay-invoices.js";

const ASSETS = ["USDT", "TON", "BTC", "ETH", "LTC", "BNB", "TRX", "USDC"] as const;
const amountText = z.string().regex(/^\d{1,12}(\.\d{1,8})?$/);

const createSchema = z.object({
  asset: z.enum(ASSETS),
  amount: z.union([amountText, z.number().positive()]).transform(String),
  description: z.string().max(1024).optional(),
  payload: z.string().max(4096).optional(),
  expires_in: z.coerce.number().int().min(1).max(2_678_400).optional(),
  allow_comments: z.coerce.boolean().optional(),
  allow_anonymous: z.coerce.boolean().optional(),
});

type Params = Record<string, unknown>;

const error = (reply: FastifyReply, code: number, name: string) => reply.code(code).send({ ok: false, error: { code, name } });

/**
 * Crypto Pay's API as the service calls it: /cryptopay/api/<method>, by GET or POST, with the app's token; the
 * parameters from the query and the body alike. The methods the service uses, and METHOD_NOT_FOUND for others.
 */
export function cryptoPayApi(app: FastifyInstance, sim: SimContext, invoices: Invoices): void {
  async function api(request: FastifyRequest<{ Params: { method: string } }>, reply: FastifyReply) {
    if ((await sim.blocked("cryptopay", reply)) === true) return reply;
    if (request.headers["crypto-pay-api-token"] !== SIMULATOR_CRYPTO_PAY_TOKEN) return error(reply, 401, "UNAUTHORIZED");
    const params = { ...(request.query as object), ...((request.body as object | undefined) ?? {}) } as Params;
    switch (request.params.method) {
      case "getMe":
        return { ok: true, result: { app_id: 1, name: "Simulated shop", payment_processing_bot_username: "CryptoBot" } };
      case "createInvoice":
        return createInvoice(invoices, params, request, reply);
      case "getInvoices":
        return getInvoices(invoices, params, reply);
      case "deleteInvoice":
        return deleteInvoice(invoices, params, reply);
      default:
        return error(reply, 405, "METHOD_NOT_FOUND");
    }
  }
  app.get("/cryptopay/api/:method", api);
  app.post("/cryptopay/api/:method", api);
}

function createInvoice(invoices: Invoices, params: Params, request: FastifyRequest, reply: FastifyReply) {
  const parsed = createSchema.safeParse(params);
  if (!parsed.success) return error(reply, 400, `${String(parsed.error.issues[0]?.path[0] ?? "PARAMS").toUpperCase()}_INVALID`);
  const id = invoices.nextId++;
  const hash = `IV${randomBytes(6).toString("hex")}`;
  const base = `${request.protocol}://${request.host}`;
  const invoice: Invoice = {
    invoice_id: id,
    hash,
    currency_type: "crypto",
    asset: parsed.data.asset,
    amount: parsed.data.amount,
    status: "active",
    ...(parsed.data.description ? { description: parsed.data.description } : {}),
    ...(parsed.data.payload ? { payload: parsed.data.payload } : {}),
    allow_comments: parsed.data.allow_comments ?? true,
    allow_anonymous: parsed.data.allow_anonymous ?? true,
    created_at: new Date().toISOString(),
    ...(parsed.data.expires_in ? { expiration_date: new Date(Date.now() + parsed.data.expires_in * 1000).toISOString() } : {}),
    bot_invoice_url: `https://t.me/CryptoBot?start=${hash}`,
    mini_app_invoice_url: `https://t.me/CryptoBot/app?startapp=invoice-${hash}`,
    web_app_invoice_url: `${base}/cryptopay/pay/${hash}`,
  };
  invoices.byId.set(id, invoice);
  return { ok: true, result: invoice };
}

function getInvoices(invoices: Invoices, params: Params, reply: FastifyReply) {
  const ids = String(params.invoice_ids ?? "")
    .split(",")
    .filter(Boolean)
    .map(Number);
  if (ids.some((n) => !Number.isInteger(n) || n < 1)) return error(reply, 400, "INVOICE_IDS_INVALID");
  const count = Math.min(Number(params.count ?? 100) || 100, 1000);
  const offset = Number(params.offset ?? 0) || 0;
  let items = [...invoices.byId.values()].map(current);
  if (ids.length) items = items.filter((i) => ids.includes(i.invoice_id));
  if (params.status) items = items.filter((i) => i.status === params.status);
  return { ok: true, result: { items: items.slice(offset, offset + count) } };
}

function deleteInvoice(invoices: Invoices, params: Params, reply: FastifyReply) {
  const id = Number(params.invoice_id);
  const invoice = invoices.byId.get(id);
  if (!invoice) return error(reply, 400, "INVOICE_NOT_FOUND");
  // A paid invoice is the payer's money received: the real API refuses to delete it (its documentation
  // names no error for it; this name is the simulator's).
  if (invoice.status === "paid") return error(reply, 400, "INVOICE_PAID");
  invoices.byId.delete(id);
  return { ok: true, result: true };
}
