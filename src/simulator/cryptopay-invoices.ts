import { createHash, createHmac } from "node:crypto";
import { request as send } from "undici";
import type { SimContext } from "./context.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../config/simulated-credentials.js";

export interface Invoice {
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

/** An active invoice past its expiry is expired, as the real one turns. */
export function current(invoice: Invoice): Invoice {
  if (invoice.status === "active" && invoice.expiration_date && Date.parse(invoice.expiration_date) <= Date.now()) invoice.status = "expired";
  return invoice;
}

// A crypto invoice is paid in its asset for its amount (paid_asset and paid_amount are a fiat invoice's fields).
export function pay(invoice: Invoice) {
  invoice.status = "paid";
  invoice.paid_at = new Date().toISOString();
  invoice.fee_amount = "0";
  invoice.paid_anonymously = false;
}

/** Crypto Pay's webhook signature: hex HMAC-SHA256 of the raw body, keyed with SHA-256 of the token. */
const cryptoPaySignatureOf = (token: string, body: string) =>
  createHmac("sha256", createHash("sha256").update(token).digest()).update(body).digest("hex");

/**
 * The simulated app's invoices, shared by its API, its pay page and its control endpoints, and its webhook: where
 * it points and what was delivered there.
 */
export function createInvoices(sim: SimContext, webhookUrl: string | null) {
  const book = {
    byId: new Map<number, Invoice>(),
    // Ids go on from the clock, so a restarted simulator never answers an id a database already holds.
    nextId: Date.now(),
    nextUpdate: 1,
    webhookUrl,
    /** Deliveries made, for the tests: each with its HTTP status (null: no answer). */
    deliveries: [] as Array<{ invoiceId: number; status: number | null }>,

    /** POSTs the `invoice_paid` update, signed; retried twice more when it fails (as the real one retries). */
    async deliver(invoice: Invoice, attempt = 1): Promise<void> {
      if (!book.webhookUrl) return;
      const body = JSON.stringify({
        update_id: book.nextUpdate++,
        update_type: "invoice_paid",
        request_date: new Date().toISOString(),
        payload: invoice,
      });
      let status: number | null = null;
      try {
        const response = await send(book.webhookUrl, {
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
      book.deliveries.push({ invoiceId: invoice.invoice_id, status });
      if ((status === null || status >= 300) && attempt < 3) {
        setTimeout(() => void book.deliver(invoice, attempt + 1), 200 * attempt * Math.max(sim.scale, 0.05)).unref();
      }
    },
  };
  return book;
}

export type Invoices = ReturnType<typeof createInvoices>;
