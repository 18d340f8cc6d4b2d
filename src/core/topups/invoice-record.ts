import { invoiceMade, moveTopup, recordAnomaly, topupById, topupByInvoice } from "../../db/topups.js";
import { unavailable } from "../model/errors.js";
import type { Topup, TopupStatus } from "../model/topup.js";
import { type CryptoInvoice, UpstreamError } from "../ports.js";
import { emit, nowIso, type TopupContext } from "./context.js";
import { credit } from "./credit.js";

/** What Crypto Pay told us that matches no top-up as it should: logged, alerted, never credited. */
type AnomalyKind = "unknown_invoice" | "not_as_made" | "update_disagrees" | "no_record" | "invoice_id_reused";

/** Invoices scanned, newest first, for one cut short while it was made (its id never reached us). */
const PAYLOAD_SCAN = 1_000;

/** A paid invoice is credited whatever we thought of it meanwhile: money received is never lost. */
const CREDITABLE: TopupStatus[] = ["creating", "active", "expired", "cancelled", "failed"];

/** Our payload on an invoice: it ties the invoice to the top-up and the account, and is returned as sent. */
export const payloadOf = (topup: { id: number; accountId: number }) => `topup:${topup.id}:${topup.accountId}`;
function parsePayload(payload: string | null): { id: number; accountId: number } | null {
  const match = /^topup:(\d{1,15}):(\d{1,15})$/.exec(payload ?? "");
  return match ? { id: Number(match[1]), accountId: Number(match[2]) } : null;
}

/** The fields of an invoice that a webhook's claim and Crypto Pay's record must agree on. */
export const claimed = (invoice: CryptoInvoice) => ({
  status: invoice.status,
  currency_type: invoice.currencyType,
  asset: invoice.asset,
  amount_micro: invoice.amountMicro,
  paid_asset: invoice.paidAsset,
  paid_amount_micro: invoice.paidAmountMicro,
  payload: invoice.payload,
});

/** Logged at once and recorded (once per invoice and kind) for the administrators' alert; never credited. */
export async function anomaly(ctx: TopupContext, kind: AnomalyKind, invoiceId: number, topupId: number | null, details: object) {
  ctx.log.error({ anomaly: kind, invoiceId, topupId, ...details }, "Crypto Pay reported something that matches no top-up as made: not credited");
  await recordAnomaly(ctx.db, { invoiceId, topupId, kind, details, at: nowIso(ctx) });
}

/**
 * Crypto Pay's own record of an invoice (getInvoices: the poll, a webhook's check, a cancel, the sweep). Paid:
 * the top-up its id and payload name is credited once with the amount it was made for, if the record is a
 * crypto invoice in USDT for that amount; anything else is an anomaly, never credited. Expired: closed. Active:
 * tied to a top-up cut short while it was made. `unknown` when the invoice ties to no top-up of ours.
 */
export async function invoiceSeen(ctx: TopupContext, record: CryptoInvoice): Promise<{ topup: Topup | null; credited: boolean; unknown: boolean }> {
  const { db } = ctx;
  const tied = parsePayload(record.payload);
  const topup = (await topupByInvoice(db, record.invoiceId)) ?? (tied ? await topupById(db, tied.id) : undefined);
  if (
    !topup ||
    !tied ||
    topup.method !== "invoice" ||
    topup.id !== tied.id ||
    topup.accountId !== tied.accountId ||
    (topup.invoiceId !== null && topup.invoiceId !== record.invoiceId)
  ) {
    if (record.status === "paid") await anomaly(ctx, "unknown_invoice", record.invoiceId, topup?.id ?? null, { record: claimed(record) });
    return { topup: null, credited: false, unknown: true };
  }
  const now = nowIso(ctx);
  if (record.status === "expired") {
    const expired = await moveTopup(db, topup.id, ["creating", "active"], "expired", { invoice_id: record.invoiceId, at: now });
    const current = (await topupById(db, topup.id))!;
    if (expired) emit(ctx, "expired", current);
    return { topup: current, credited: false, unknown: false };
  }
  if (record.status === "active") {
    if (topup.status === "creating") await tie(ctx, topup.id, record);
    return { topup: (await topupById(db, topup.id))!, credited: false, unknown: false };
  }
  if (record.currencyType !== "crypto" || record.asset !== "USDT" || record.amountMicro !== topup.amountMicro) {
    await anomaly(ctx, "not_as_made", record.invoiceId, topup.id, { record: claimed(record), made_micro: topup.amountMicro });
    await moveTopup(db, topup.id, ["creating", "active", "expired", "cancelled"], "failed", {
      reason: "paid, but not in USDT for the amount it was made for: an administrator checks it",
      invoice_id: record.invoiceId,
      at: now,
    });
    return { topup: (await topupById(db, topup.id))!, credited: false, unknown: false };
  }
  const credited = await credit(ctx, topup, CREDITABLE, topup.amountMicro, {
    actor: "cryptopay",
    note: `Crypto Pay invoice ${record.invoiceId}`,
    invoiceId: record.invoiceId,
  });
  return { topup: credited ?? (await topupById(db, topup.id))!, credited: credited !== null, unknown: false };
}

/** A top-up cut short while it was made gets the invoice Crypto Pay did make (the poll looks at it next). */
export async function tie(ctx: TopupContext, id: number, invoice: CryptoInvoice) {
  const now = nowIso(ctx);
  await invoiceMade(ctx.db, id, {
    invoiceId: invoice.invoiceId,
    payUrl: invoice.payUrl,
    webAppUrl: invoice.webAppUrl,
    expiresAt: invoice.expiresAt,
    // Due at the poll's next pass: every open invoice is looked at once a pass.
    checkAfter: now,
    at: now,
  });
}

/** Crypto Pay's record of one invoice (undefined: it no longer has it); 503 while it cannot answer. */
export async function recordOf(ctx: TopupContext, invoiceId: number): Promise<CryptoInvoice | undefined> {
  try {
    const { found, unreadable } = await ctx.cryptoPay!.invoices([invoiceId]);
    if (unreadable.length) throw unavailable("Crypto Pay's record of the invoice does not read as one just now: nothing changed; try again later");
    return found[0];
  } catch (error) {
    if (error instanceof UpstreamError) throw unavailable("Crypto Pay cannot be asked about the invoice just now: nothing changed; try again");
    throw error;
  }
}

/** A top-up left `creating`: Crypto Pay's invoice with its payload, if one was made, decides what it becomes. */
export async function settleCreating(ctx: TopupContext, topup: Topup): Promise<void> {
  let found: CryptoInvoice | null;
  try {
    found = await ctx.cryptoPay!.findByPayload(payloadOf(topup), PAYLOAD_SCAN);
  } catch (error) {
    if (error instanceof UpstreamError) throw unavailable("Crypto Pay cannot be asked about the invoice just now: nothing changed; try again");
    throw error;
  }
  if (found) await invoiceSeen(ctx, found);
  else
    await moveTopup(ctx.db, topup.id, ["creating"], "failed", {
      reason: "no invoice was made (the service stopped while making it)",
      at: nowIso(ctx),
    });
}
