import { moveTopup, staleCreating, topupById, topupByInvoice } from "../../db/topups.js";
import type { Account } from "../model/account.js";
import { DomainError, invalid, notFound, unavailable } from "../model/errors.js";
import { formatUsdt, type Micro } from "../model/money.js";
import type { Topup, TopupStatus } from "../model/topup.js";
import { type CryptoInvoice, UpstreamError } from "../ports.js";
import { checkAccount, checkTopupAmount, emit, insertWithinBounds, nowIso, type TopupContext } from "./context.js";
import { anomaly, claimed, invoiceSeen, payloadOf, recordOf, settleCreating, tie } from "./invoice-record.js";

/** States in which a top-up still waits for money or a decision. */
const OPEN_INVOICE: TopupStatus[] = ["creating", "active"];

/** A Crypto Pay invoice for `amountMicro`: its pay link and expiry. Nothing is credited until it is paid. */
export async function startInvoice(ctx: TopupContext, account: Account, amountMicro: Micro): Promise<Topup> {
  const { db, cryptoPay, limits } = ctx;
  checkAccount(account);
  if (!cryptoPay) throw unavailable("Crypto top-ups are not offered here: state a transfer for an administrator to approve");
  checkTopupAmount(limits, amountMicro);
  const topup = await insertWithinBounds(
    ctx,
    { accountId: account.id, method: "invoice", status: "creating", amountMicro },
    { statuses: OPEN_INVOICE, max: limits.openInvoicesMax, what: "unpaid invoices" },
  );
  let invoice: CryptoInvoice;
  try {
    invoice = await cryptoPay.createInvoice({
      amountMicro,
      description: `Top-up of ${formatUsdt(amountMicro)} USDT`,
      payload: payloadOf(topup),
      expiresInSeconds: Math.round(limits.invoiceTtlMs / 1000),
    });
  } catch (error) {
    // The invoice may exist even so (an answer lost): its payload still ties it to this top-up, so should it
    // be paid, the webhook or a reconciling look credits it (CREDITABLE holds `failed`).
    await moveTopup(db, topup.id, ["creating"], "failed", { reason: error instanceof Error ? error.message : String(error), at: nowIso(ctx) });
    if (error instanceof UpstreamError) throw unavailable("Crypto Pay could not make the invoice just now: nothing was charged; try again");
    throw error;
  }
  // An invoice id another top-up already holds is never tied twice (nor answered 500).
  const holder = await topupByInvoice(db, invoice.invoiceId);
  if (holder && holder.id !== topup.id) {
    await anomaly(ctx, "invoice_id_reused", invoice.invoiceId, topup.id, { held_by: holder.id });
    await moveTopup(db, topup.id, ["creating"], "failed", {
      reason: `Crypto Pay answered invoice ${invoice.invoiceId}, which top-up ${holder.id} holds`,
      at: nowIso(ctx),
    });
    throw unavailable("Crypto Pay could not make the invoice just now: nothing was charged; try again");
  }
  await tie(ctx, topup.id, invoice);
  const current = (await topupById(db, topup.id))!;
  emit(ctx, "created", current);
  return current;
}

/**
 * Cancels the account's top-up that is not a pending transfer: an unpaid invoice. It is looked up at Crypto Pay
 * first: one already paid is credited (never lost) and answered as such; one still open is deleted there.
 */
export async function cancelInvoice(ctx: TopupContext, topup: Topup): Promise<Topup> {
  const { db, cryptoPay, clock, limits } = ctx;
  const id = topup.id;
  if (topup.status === "creating" && cryptoPay) {
    if (clock.now().getTime() - Date.parse(topup.createdAt) < limits.creatingStaleMs) {
      throw invalid(`Top-up ${id}'s invoice is still being made: try again in a few seconds`);
    }
    await settleCreating(ctx, topup);
    topup = (await topupById(db, id))!;
  }
  if (topup.status !== "active" || !cryptoPay || topup.invoiceId === null) {
    if (topup.status === "credited" || topup.status === "expired" || topup.status === "failed") return topup;
    throw invalid(`Top-up ${id} is ${topup.status}: only an unpaid invoice or a pending transfer can be cancelled`);
  }
  const invoiceId = topup.invoiceId;
  const before = await recordOf(ctx, invoiceId);
  if (!before || before.status !== "active") {
    if (before) await invoiceSeen(ctx, before);
    else await invoiceGone(ctx, id);
    return (await topupById(db, id))!;
  }
  try {
    await cryptoPay.deleteInvoice(invoiceId);
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    // Refused: paid meanwhile? Crypto Pay's record says.
    const after = await recordOf(ctx, invoiceId);
    if (after?.status === "paid" || after?.status === "expired") {
      await invoiceSeen(ctx, after);
      return (await topupById(db, id))!;
    }
    throw unavailable("Crypto Pay could not cancel the invoice just now: try again");
  }
  await moveTopup(db, id, ["active"], "cancelled", { at: nowIso(ctx) });
  return (await topupById(db, id))!;
}

/**
 * Crypto Pay's webhook, raw. A forged one is refused (401) and logged by its length; a signed one only says
 * which invoice to look at: Crypto Pay's own record decides, and a claim the record contradicts is an anomaly.
 * While the record cannot be read the answer is 503, so Crypto Pay delivers again (and the poll looks anyway).
 *
 * `onForged` hears of a wrong signature before it is refused, and may throw a refusal of its own (a bound on
 * forgeries, then nothing is logged): it never sees a signed update, so forgeries cannot hold a real one back.
 */
export async function invoiceWebhook(ctx: TopupContext, rawBody: string, signature: string | undefined, onForged?: () => void): Promise<void> {
  const { cryptoPay, log } = ctx;
  if (!cryptoPay) throw notFound("Crypto Pay is not configured here");
  const read = cryptoPay.readWebhook(rawBody, signature);
  if ("forged" in read) {
    onForged?.();
    log.warn({ signatureLength: signature?.length ?? 0, bytes: rawBody.length }, "a Crypto Pay webhook with a wrong signature was refused");
    throw new DomainError("unauthorized", "The webhook's signature does not verify");
  }
  if ("malformed" in read) {
    log.warn(
      { bytes: rawBody.length, why: read.malformed },
      "a signed Crypto Pay update does not read as one: ignored (the poll still looks at every open invoice)",
    );
    return;
  }
  if (!read.invoice) return;
  const claim = read.invoice;
  const record = await recordOf(ctx, claim.invoiceId);
  if (!record) {
    await anomaly(ctx, "no_record", claim.invoiceId, null, { claimed: claimed(claim) });
    return;
  }
  if (JSON.stringify(claimed(claim)) !== JSON.stringify(claimed(record))) {
    await anomaly(ctx, "update_disagrees", record.invoiceId, null, { claimed: claimed(claim), record: claimed(record) });
  }
  const seen = await invoiceSeen(ctx, record);
  if (seen.unknown) log.warn({ invoiceId: record.invoiceId }, "a Crypto Pay webhook for an invoice that ties to no top-up was ignored");
}

/** An open invoice the provider no longer has (deleted there): closed as expired. */
export async function invoiceGone(ctx: TopupContext, id: number): Promise<void> {
  await moveTopup(ctx.db, id, ["active"], "expired", { reason: "the provider no longer has this invoice", at: nowIso(ctx) });
}

/** Top-ups left `creating` past the provider call's bound (a stop mid-call): each settled by what Crypto Pay made. */
export async function sweepCreating(ctx: TopupContext): Promise<number> {
  if (!ctx.cryptoPay) return 0;
  const stale = await staleCreating(ctx.db, new Date(ctx.clock.now().getTime() - ctx.limits.creatingStaleMs).toISOString(), 20);
  for (const topup of stale) await settleCreating(ctx, topup);
  return stale.length;
}
