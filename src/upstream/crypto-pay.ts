import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { parseAmountDown, plainAmount } from "../core/model/money.js";
import { type CryptoInvoice, type CryptoPayPort, UpstreamError } from "../core/ports.js";
import { lazyPool } from "./http.js";

// Crypto Pay, the API of @CryptoBot (docs/api-guide.md, "Top-ups"): a thin undici adapter like the other
// providers', rather than a client library: four methods, one header, one signature, all checked with zod here.

// Amounts as Crypto Pay writes them ("10", "2.5"; beyond 6 decimals, a BTC amount say, rounded down) and takes them.
const amount = z.string().refine((v) => parseAmountDown(v) !== null, "an amount");
const invoiceSchema = z.object({
  invoice_id: z.number().int().positive(),
  status: z.enum(["active", "paid", "expired"]),
  currency_type: z.string().optional(),
  asset: z.string().optional(),
  amount,
  paid_asset: z.string().optional(),
  paid_amount: amount.optional(),
  payload: z.string().optional(),
  bot_invoice_url: z.string(),
  web_app_invoice_url: z.string().optional(),
  expiration_date: z.string().optional(),
  paid_at: z.string().optional(),
});
const answerSchema = z.object({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), name: z.string() }).optional(),
});
const webhookSchema = z.object({ update_type: z.string(), payload: z.unknown() });

const toInvoice = (raw: z.infer<typeof invoiceSchema>): CryptoInvoice => ({
  invoiceId: raw.invoice_id,
  status: raw.status,
  currencyType: raw.currency_type ?? null,
  asset: raw.asset ?? null,
  amountMicro: parseAmountDown(raw.amount)!,
  paidAmountMicro: raw.paid_amount === undefined ? null : parseAmountDown(raw.paid_amount),
  paidAsset: raw.paid_asset ?? null,
  payload: raw.payload ?? null,
  payUrl: raw.bot_invoice_url,
  webAppUrl: raw.web_app_invoice_url ?? null,
  expiresAt: raw.expiration_date ? new Date(raw.expiration_date).toISOString() : null,
  paidAt: raw.paid_at ? new Date(raw.paid_at).toISOString() : null,
});

/** Crypto Pay's webhook signature: hex HMAC-SHA256 of the raw body, keyed with SHA-256 of the app's token. */
export const cryptoPaySignature = (token: string, rawBody: string) =>
  createHmac("sha256", createHash("sha256").update(token).digest()).update(rawBody).digest("hex");

/** Whether `header` is the body's signature under the token; constant time, false on anything malformed. */
function verifyCryptoPaySignature(token: string, rawBody: string, header: string | undefined): boolean {
  if (!header || !/^[0-9a-f]{64}$/i.test(header)) return false;
  return timingSafeEqual(Buffer.from(header.toLowerCase(), "hex"), Buffer.from(cryptoPaySignature(token, rawBody), "hex"));
}

export interface CryptoPayOptions {
  /** The API's base: https://pay.crypt.bot (mainnet), https://testnet-pay.crypt.bot, or the simulator's /cryptopay. */
  baseUrl: string;
  token: string;
  timeoutMs: number;
  log: { warn(obj: object, msg: string): void };
}

/** getInvoices' largest page (Crypto Pay: `count` 1 to 1000). */
const PAGE_MAX = 1000;

/** One call of the API: its method, its parameters as JSON, its `result` checked with zod. */
type Call = <T extends z.ZodType>(method: string, params: Record<string, unknown>, result: T) => Promise<z.infer<T>>;

export function createCryptoPay(options: CryptoPayOptions): CryptoPayPort & { close(): Promise<void> } {
  const { call, close } = openCalls(options);
  const listed = (params: Record<string, unknown>) => readListed(call, options.log, params);
  return {
    configured: true,
    async ready() {
      try {
        await call("getMe", {}, z.object({ app_id: z.number() }));
        return true;
      } catch {
        return false;
      }
    },
    async createInvoice(invoice) {
      const made = await call(
        "createInvoice",
        {
          asset: "USDT",
          amount: plainAmount(invoice.amountMicro),
          description: invoice.description,
          payload: invoice.payload,
          expires_in: invoice.expiresInSeconds,
          allow_anonymous: false,
        },
        invoiceSchema,
      );
      return toInvoice(made);
    },
    async invoices(ids) {
      const found: CryptoInvoice[] = [];
      const unreadable: number[] = [];
      for (let i = 0; i < ids.length; i += 100) {
        const page = ids.slice(i, i + 100);
        const read = await listed({ invoice_ids: page.join(","), count: page.length });
        found.push(...read.found);
        unreadable.push(...read.unreadable);
      }
      return { found, unreadable };
    },
    async findByPayload(payload, scan) {
      for (let offset = 0; offset < scan; offset += PAGE_MAX) {
        const page = await listed({ asset: "USDT", offset, count: Math.min(PAGE_MAX, scan - offset) });
        const match = page.found.filter((invoice) => invoice.payload === payload).sort((a, b) => b.invoiceId - a.invoiceId)[0];
        if (match) return match;
        if (page.found.length + page.unreadable.length < Math.min(PAGE_MAX, scan - offset)) break;
      }
      return null;
    },
    async deleteInvoice(invoiceId) {
      await call("deleteInvoice", { invoice_id: invoiceId }, z.boolean());
    },
    readWebhook: (rawBody, signature) => readWebhook(options.token, rawBody, signature),
    close,
  };
}

/**
 * The API's transport: one pool to its origin, a POST of JSON per call with the app's token, bounded by the
 * timeout. No answer, a refusal (`ok: false`) and an answer that does not read are each an UpstreamError.
 */
function openCalls(options: CryptoPayOptions): { call: Call; close(): Promise<void> } {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/$/, "");
  const pool = lazyPool(base.origin, options.timeoutMs);

  async function call<T extends z.ZodType>(method: string, params: Record<string, unknown>, result: T): Promise<z.infer<T>> {
    let status: number;
    let body: unknown;
    try {
      const response = await pool.get().request({
        method: "POST",
        path: `${prefix}/api/${method}`,
        headers: { "content-type": "application/json", "crypto-pay-api-token": options.token },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.statusCode;
      body = await response.body.json().catch(() => null);
    } catch (error) {
      throw new UpstreamError(`Crypto Pay ${method}: no answer (${(error as Error).message})`, error);
    }
    const parsed = answerSchema.safeParse(body);
    if (parsed.success && !parsed.data.ok) {
      throw new UpstreamError(`Crypto Pay ${method}: ${parsed.data.error?.name ?? "refused"} (${parsed.data.error?.code ?? status})`);
    }
    const value = result.safeParse(parsed.data?.result);
    if (!parsed.success || !value.success) throw new UpstreamError(`Crypto Pay ${method}: unexpected answer (HTTP ${status})`);
    return value.data;
  }

  return { call, close: pool.close };
}

/** getInvoices, each item read on its own: one that is not an invoice is logged and left out. */
async function readListed(call: Call, log: CryptoPayOptions["log"], params: Record<string, unknown>) {
  const { items } = await call("getInvoices", params, z.object({ items: z.array(z.unknown()) }));
  const found: CryptoInvoice[] = [];
  const unreadable: number[] = [];
  for (const item of items) {
    const invoice = invoiceSchema.safeParse(item);
    if (invoice.success) {
      found.push(toInvoice(invoice.data));
      continue;
    }
    const id = (item as { invoice_id?: unknown } | null)?.invoice_id;
    if (typeof id === "number") unreadable.push(id);
    log.warn(
      { invoiceId: typeof id === "number" ? id : null, issues: invoice.error.issues.slice(0, 3) },
      "Crypto Pay listed an invoice that does not read as one; skipped",
    );
  }
  return { found, unreadable };
}

/** A webhook's body read: forged (bad signature), malformed, another update type (no invoice), or a paid invoice. */
function readWebhook(token: string, rawBody: string, signature: string | undefined): ReturnType<CryptoPayPort["readWebhook"]> {
  if (!verifyCryptoPaySignature(token, rawBody, signature)) return { forged: true };
  let update: z.infer<typeof webhookSchema>;
  try {
    update = webhookSchema.parse(JSON.parse(rawBody));
  } catch (error) {
    return { malformed: error instanceof z.ZodError ? (error.issues[0]?.message ?? "not an update") : "not JSON" };
  }
  if (update.update_type !== "invoice_paid") return { invoice: null };
  const invoice = invoiceSchema.safeParse(update.payload);
  if (!invoice.success) return { malformed: `payload: ${invoice.error.issues[0]?.path.join(".")} ${invoice.error.issues[0]?.message}` };
  return { invoice: toInvoice(invoice.data) };
}
