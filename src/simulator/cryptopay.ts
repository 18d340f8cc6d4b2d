import { createHash, createHmac, randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { request as send } from "undici";
import { z } from "zod";
import type { SimContext } from "./context.js";

// Crypto Pay (the API of @CryptoBot), as the service meets it: /cryptopay/api/<method> with the app's token,
// invoices that expire and are paid, and the signed `invoice_paid` webhook. The control endpoints pay, expire
// and re-deliver, for the tests and `npm run chat` (docs/api-guide.md, "Simulator test inputs").

import { SIMULATOR_CRYPTO_PAY_TOKEN } from "./credentials.js";

export { SIMULATOR_CRYPTO_PAY_TOKEN };

const ASSETS = ["USDT", "TON", "BTC", "ETH", "LTC", "BNB", "TRX", "USDC"] as const;
const amountText = z.string().regex(/^\d{1,12}(\.\d{1,8})?$/);

interface Invoice {
  invoice_id: number;
  hash: string;
  currency_type: "crypto";
  asset: string;
  amount: string;
  status: "active" | "paid" | "expired";
  description?: string;
  payload?: string;
  allow_comments: boolean;
  allow_anonymous: boolean;
  created_at: string;
  expiration_date?: string;
  paid_at?: string;
  fee_amount?: string;
  paid_anonymously?: boolean;
  bot_invoice_url: string;
  mini_app_invoice_url: string;
  web_app_invoice_url: string;
}

const createSchema = z.object({
  asset: z.enum(ASSETS),
  amount: z.union([amountText, z.number().positive()]).transform(String),
  description: z.string().max(1024).optional(),
  payload: z.string().max(4096).optional(),
  expires_in: z.coerce.number().int().min(1).max(2_678_400).optional(),
  allow_comments: z.coerce.boolean().optional(),
  allow_anonymous: z.coerce.boolean().optional(),
});

/** Points the simulated Crypto Pay app's webhook at `url` (the real one is set in @CryptoBot). */
export async function pointCryptoPayWebhook(simulatorUrl: string, url: string): Promise<void> {
  const response = await send(`${simulatorUrl}/cryptopay/control/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
  await response.body.dump();
}

/** Crypto Pay's webhook signature: hex HMAC-SHA256 of the raw body, keyed with SHA-256 of the token. */
const cryptoPaySignatureOf = (token: string, body: string) =>
  createHmac("sha256", createHash("sha256").update(token).digest()).update(body).digest("hex");

export function cryptoPayRoutes(app: FastifyInstance, sim: SimContext, options: { webhookUrl?: string } = {}) {
  const invoices = new Map<number, Invoice>();
  // Ids go on from the clock, so a restarted simulator never answers an id a database already holds.
  let nextId = Date.now();
  let nextUpdate = 1;
  let webhookUrl = options.webhookUrl ?? null;
  /** Deliveries made, for the tests: each with its HTTP status (null: no answer). */
  const deliveries: Array<{ invoiceId: number; status: number | null }> = [];

  const error = (reply: FastifyReply, code: number, name: string) => reply.code(code).send({ ok: false, error: { code, name } });

  /** An active invoice past its expiry is expired, as the real one turns. */
  function current(invoice: Invoice): Invoice {
    if (invoice.status === "active" && invoice.expiration_date && Date.parse(invoice.expiration_date) <= Date.now()) invoice.status = "expired";
    return invoice;
  }

  /** POSTs the `invoice_paid` update, signed; retried twice more when it fails (as the real one retries). */
  async function deliver(invoice: Invoice, attempt = 1): Promise<void> {
    if (!webhookUrl) return;
    const body = JSON.stringify({ update_id: nextUpdate++, update_type: "invoice_paid", request_date: new Date().toISOString(), payload: invoice });
    let status: number | null = null;
    try {
      const response = await send(webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "crypto-pay-api-signature": cryptoPaySignatureOf(SIMULATOR_CRYPTO_PAY_TOKEN, body) },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      status = response.statusCode;
      await response.body.dump();
    } catch {
      status = null;
    }
    deliveries.push({ invoiceId: invoice.invoice_id, status });
    if ((status === null || status >= 300) && attempt < 3) {
      setTimeout(() => void deliver(invoice, attempt + 1), 200 * attempt * Math.max(sim.scale, 0.05)).unref();
    }
  }

  // A crypto invoice is paid in its asset for its amount (paid_asset and paid_amount are a fiat invoice's fields).
  function pay(invoice: Invoice) {
    invoice.status = "paid";
    invoice.paid_at = new Date().toISOString();
    invoice.fee_amount = "0";
    invoice.paid_anonymously = false;
  }

  async function api(request: FastifyRequest<{ Params: { method: string } }>, reply: FastifyReply) {
    if ((await sim.blocked("cryptopay", reply)) === true) return reply;
    if (request.headers["crypto-pay-api-token"] !== SIMULATOR_CRYPTO_PAY_TOKEN) return error(reply, 401, "UNAUTHORIZED");
    const params = { ...(request.query as object), ...((request.body as object | undefined) ?? {}) } as Record<string, unknown>;
    switch (request.params.method) {
      case "getMe":
        return { ok: true, result: { app_id: 1, name: "Simulated shop", payment_processing_bot_username: "CryptoBot" } };
      case "createInvoice": {
        const parsed = createSchema.safeParse(params);
        if (!parsed.success) return error(reply, 400, `${String(parsed.error.issues[0]?.path[0] ?? "PARAMS").toUpperCase()}_INVALID`);
        const id = nextId++;
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
        invoices.set(id, invoice);
        return { ok: true, result: invoice };
      }
      case "getInvoices": {
        const ids = String(params.invoice_ids ?? "")
          .split(",")
          .filter(Boolean)
          .map(Number);
        if (ids.some((n) => !Number.isInteger(n) || n < 1)) return error(reply, 400, "INVOICE_IDS_INVALID");
        const count = Math.min(Number(params.count ?? 100) || 100, 1000);
        const offset = Number(params.offset ?? 0) || 0;
        let items = [...invoices.values()].map(current);
        if (ids.length) items = items.filter((i) => ids.includes(i.invoice_id));
        if (params.status) items = items.filter((i) => i.status === params.status);
        return { ok: true, result: { items: items.slice(offset, offset + count) } };
      }
      case "deleteInvoice": {
        const id = Number(params.invoice_id);
        const invoice = invoices.get(id);
        if (!invoice) return error(reply, 400, "INVOICE_NOT_FOUND");
        // A paid invoice is the payer's money received: the real API refuses to delete it (its documentation
        // names no error for it; this name is the simulator's).
        if (invoice.status === "paid") return error(reply, 400, "INVOICE_PAID");
        invoices.delete(id);
        return { ok: true, result: true };
      }
      default:
        return error(reply, 405, "METHOD_NOT_FOUND");
    }
  }

  // The pay page's form posts url-encoded; its body carries nothing the simulator reads.
  app.addContentTypeParser("application/x-www-form-urlencoded", (_request, _payload, done) => done(null, {}));
  app.get("/cryptopay/api/:method", api);
  app.post("/cryptopay/api/:method", api);

  const byId = (request: FastifyRequest<{ Params: { id: string } }>) => invoices.get(Number(request.params.id));

  app.post("/cryptopay/control/webhook", async (request, reply) => {
    const parsed = z.object({ url: z.url().nullable() }).safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    webhookUrl = parsed.data.url;
    return { ok: true, url: webhookUrl };
  });
  app.get("/cryptopay/control/deliveries", async () => ({ deliveries }));
  app.post<{ Params: { id: string } }>("/cryptopay/control/invoices/:id/pay", async (request, reply) => {
    const invoice = byId(request);
    if (!invoice) return reply.code(404).send({ error: "no such invoice" });
    const parsed = z.object({ deliver: z.boolean().default(true) }).safeParse(request.body ?? {});
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    if (current(invoice).status !== "active") return reply.code(409).send({ error: `the invoice is ${invoice.status}` });
    pay(invoice);
    if (parsed.data.deliver) await deliver(invoice);
    return { ok: true, invoice };
  });
  app.post<{ Params: { id: string } }>("/cryptopay/control/invoices/:id/expire", async (request, reply) => {
    const invoice = byId(request);
    if (!invoice) return reply.code(404).send({ error: "no such invoice" });
    if (invoice.status === "active") invoice.status = "expired";
    return { ok: true, invoice };
  });
  // An invoice the API then lists in a shape the client does not expect (an unknown status): a client reading a
  // batch must skip it, not stall on it.
  app.post<{ Params: { id: string } }>("/cryptopay/control/invoices/:id/garble", async (request, reply) => {
    const invoice = byId(request);
    if (!invoice) return reply.code(404).send({ error: "no such invoice" });
    (invoice as { status: string }).status = "garbled";
    return { ok: true, invoice };
  });
  app.post<{ Params: { id: string } }>("/cryptopay/control/invoices/:id/webhook", async (request, reply) => {
    const invoice = byId(request);
    if (!invoice || invoice.status !== "paid") return reply.code(409).send({ error: "only a paid invoice is delivered" });
    await deliver(invoice);
    return { ok: true };
  });

  // The page a payer opens from web_app_invoice_url: the invoice and a button that pays it (no script).
  app.get<{ Params: { hash: string } }>("/cryptopay/pay/:hash", async (request, reply) => {
    const invoice = [...invoices.values()].find((i) => i.hash === request.params.hash);
    if (!invoice) return reply.code(404).type("text/html").send("<p>No such invoice.</p>");
    const state = current(invoice).status;
    const action = state === "active" ? `<form method="post"><button type="submit">Pay ${invoice.amount} ${invoice.asset}</button></form>` : "";
    return reply
      .type("text/html")
      .send(
        `<!doctype html><title>Crypto Pay (simulated)</title><h1>Invoice ${invoice.invoice_id}</h1><p>${invoice.amount} ${invoice.asset}: ${state}</p>${action}`,
      );
  });
  app.post<{ Params: { hash: string } }>("/cryptopay/pay/:hash", async (request, reply) => {
    const invoice = [...invoices.values()].find((i) => i.hash === request.params.hash);
    if (invoice && current(invoice).status === "active") {
      pay(invoice);
      await deliver(invoice);
    }
    return reply.redirect(`/cryptopay/pay/${request.params.hash}`, 303);
  });
}
