import type { FastifyInstance, FastifyRequest } from "fastify";
import { request as send } from "undici";
import { z } from "zod";
import type { SimContext } from "./context.js";
import { cryptoPayApi } from "./cryptopay-api.js";
import { createInvoices, current, type Invoices, pay } from "./cryptopay-invoices.js";

// Crypto Pay (the API of @CryptoBot), as the service meets it: /cryptopay/api/<method> with the app's token,
// invoices that expire and are paid, and the signed `invoice_paid` webhook. The control endpoints pay, expire
// and re-deliver, for the tests and `npm run chat` (docs/api-guide.md, "Simulator test inputs").

import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../config/simulated-credentials.js";

export { SIMULATOR_CRYPTO_PAY_TOKEN };

/** Points the simulated Crypto Pay app's webhook at `url` (the real one is set in @CryptoBot). */
export async function pointCryptoPayWebhook(simulatorUrl: string, url: string): Promise<void> {
  const response = await send(`${simulatorUrl}/cryptopay/control/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url }),
  });
  await response.body.dump();
}

/** The simulated Crypto Pay: its API (cryptopay-api.ts), its control endpoints and the page a payer pays on. */
export function cryptoPayRoutes(app: FastifyInstance, sim: SimContext, options: { webhookUrl?: string } = {}) {
  const invoices = createInvoices(sim, options.webhookUrl ?? null);
  cryptoPayApi(app, sim, invoices);
  controlRoutes(app, sim, invoices);
  payPage(app, invoices);
}

/** For the tests and `npm run chat`: where the webhook points, what it delivered, and an invoice paid or spoiled. */
function controlRoutes(app: FastifyInstance, sim: SimContext, invoices: Invoices): void {
  const byId = (request: FastifyRequest<{ Params: { id: string } }>) => invoices.byId.get(Number(request.params.id));

  app.post("/cryptopay/control/webhook", async (request, reply) => {
    const parsed = z.object({ url: z.url().nullable() }).safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    invoices.webhookUrl = parsed.data.url;
    return { ok: true, url: invoices.webhookUrl };
  });
  app.get("/cryptopay/control/deliveries", async () => ({ deliveries: invoices.deliveries }));
  app.post<{ Params: { id: string } }>("/cryptopay/control/invoices/:id/pay", async (request, reply) => {
    const invoice = byId(request);
    if (!invoice) return reply.code(404).send({ error: "no such invoice" });
    const parsed = z.object({ deliver: z.boolean().default(true) }).safeParse(request.body ?? {});
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    if (current(invoice).status !== "active") return reply.code(409).send({ error: `the invoice is ${invoice.status}` });
    pay(invoice);
    if (parsed.data.deliver) await invoices.deliver(invoice);
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
    await invoices.deliver(invoice);
    return { ok: true };
  });
}

/** The page a payer opens from web_app_invoice_url: the invoice and a button that pays it (no script). */
function payPage(app: FastifyInstance, invoices: Invoices): void {
  // The pay page's form posts url-encoded; its body carries nothing the simulator reads.
  app.addContentTypeParser("application/x-www-form-urlencoded", (_request, _payload, done) => done(null, {}));
  app.get<{ Params: { hash: string } }>("/cryptopay/pay/:hash", async (request, reply) => {
    const invoice = [...invoices.byId.values()].find((i) => i.hash === request.params.hash);
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
    const invoice = [...invoices.byId.values()].find((i) => i.hash === request.params.hash);
    if (invoice && current(invoice).status === "active") {
      pay(invoice);
      await invoices.deliver(invoice);
    }
    return reply.redirect(`/cryptopay/pay/${request.params.hash}`, 303);
  });
}
