import { randomBytes } from "node:crypto";
import { accountById, insertAudit, lockAccount } from "../../db/accounts.js";
import { recordStars } from "../../db/star-book.js";
import {
  claimRefund,
  expireStars,
  moveTopup,
  oldestUnsettledStars,
  releaseRefund,
  setPayUrl,
  staleRefunds,
  starsCreditedSince,
  topupByCharge,
  topupById,
  topupByPayload,
} from "../../db/topups.js";
import { transaction } from "../../db/transaction.js";
import { post } from "../ledger.js";
import type { Account } from "../model/account.js";
import { invalid, isRefusal, notFound, type StarsRefundRefusal, unavailable } from "../model/errors.js";
import { formatUsdt, type Micro, micro } from "../model/money.js";
import type { Topup } from "../model/topup.js";
import { type StarInvoice, type StarPaymentsPort, UpstreamError } from "../ports.js";
import { credit } from "./credit.js";
import { checkAccount, type DecidingAdmin, insertWithinBounds, nowIso, type StarsSettings, type TopupContext } from "./context.js";

// Money in as Telegram Stars. The bot (sendInvoice) or the Mini App (a createInvoiceLink link) shows an XTR invoice
// whose payload names a Stars top-up; Telegram asks the bot to confirm before it takes the Stars (pre-checkout),
// and only its successful_payment credits, once per telegram_payment_charge_id (unique on the top-up). A payment
// whose update was lost is found in the bot's Star transactions by its payload. A refund, an administrator's or one
// Telegram made on its own, takes the credit back through the ledger. Every Star in and out goes into the book.

/** The largest Stars invoice (docs/providers/telegram-bot-api.md, UNCONFIRMED: 10,000). */
const MAX_INVOICE_STARS = 10_000;
const DAY_MS = 86_400_000;
/** How far back a look for lost payments and refunds goes, at most. */
const LOOK_BACK_MS = 7 * DAY_MS;
/** A transaction dated this much before its top-up's creation still counts (the two clocks differ). */
const CLOCK_SLACK_MS = 60_000;
/** How long one attempt at Telegram's refund holds its top-up: a call's time, with room. */
const REFUND_LEASE_MS = 120_000;
/** A refund left `refunding` this long (its attempt cut short) is finished by the scheduled look. */
const REFUND_STALE_MS = 5 * 60_000;

/** Why a pre-checkout is refused: the faces word it in the payer's language. */
type CheckoutRefusal = "off" | "currency" | "unknown" | "closed" | "amount" | "blocked" | "daily" | "unchecked";

/**
 * What a pre-checkout is answered: go on, or refuse by a reason (with the day's bound for `daily`); `message` is the
 * reason in English, for logs and for a face without words of its own.
 */
export type CheckoutAnswer = { ok: true } | { ok: false; reason: CheckoutRefusal; message: string; dailyMaxMicro?: Micro };

/** A payment or a refund as Telegram tells the bot (successful_payment, refunded_payment). */
export interface StarPaymentUpdate {
  userId: string;
  currency: string;
  totalAmount: number;
  payload: string;
  chargeId: string;
}

const settingsOf = (ctx: TopupContext): StarsSettings => {
  if (!ctx.stars) throw unavailable("Stars top-ups are not offered here");
  return ctx.stars;
};

/** What `stars` Stars credit, at the configured rate. */
const usdtForStars = (settings: StarsSettings, stars: number) => micro(stars * settings.rateMicro);

/** The fewest Stars that credit at least `amountMicro`. */
const starsForUsdt = (settings: StarsSettings, amountMicro: Micro) => Math.ceil(amountMicro / settings.rateMicro);

export type StarsOffer = NonNullable<ReturnType<typeof starsOffer>>;

/** The offer as the faces show it: the rate, the packs within the top-up bounds, and the bounds in Stars. */
export function starsOffer(ctx: TopupContext) {
  if (!ctx.stars) return null;
  const settings = ctx.stars;
  const minStars = Math.max(1, starsForUsdt(settings, ctx.limits.minMicro));
  const maxStars = Math.min(MAX_INVOICE_STARS, Math.floor(ctx.limits.maxMicro / settings.rateMicro));
  const packs = settings.packs.filter((stars) => stars >= minStars && stars <= maxStars);
  return {
    rateMicro: settings.rateMicro,
    minStars,
    maxStars,
    packs: packs.map((stars) => ({ stars, amountMicro: usdtForStars(settings, stars) })),
  };
}

/**
 * The fewest Stars whose credit covers `shortMicro` (at least the smallest Stars top-up), and what they credit; null
 * where Stars are not taken, nothing is short, or one top-up cannot cover it.
 */
export function starsCovering(ctx: TopupContext, shortMicro: Micro): { stars: number; creditMicro: Micro } | null {
  const offer = starsOffer(ctx);
  if (!offer || !ctx.stars || shortMicro <= 0) return null;
  const stars = Math.max(offer.minStars, starsForUsdt(ctx.stars, shortMicro));
  return stars > offer.maxStars ? null : { stars, creditMicro: usdtForStars(ctx.stars, stars) };
}

/**
 * A Stars top-up for `stars` Stars, within the account's bounds, with the invoice the bot sends or links. Nothing
 * is credited until Telegram says it was paid.
 */
export async function startStars(ctx: TopupContext, account: Account, stars: number): Promise<{ topup: Topup; invoice: StarInvoice }> {
  const settings = settingsOf(ctx);
  checkAccount(account);
  const offer = starsOffer(ctx)!;
  if (!Number.isSafeInteger(stars) || stars < offer.minStars || stars > offer.maxStars) {
    throw invalid(`A Stars top-up is from ${offer.minStars} to ${offer.maxStars} Stars`);
  }
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.limits.invoiceTtlMs).toISOString();
  const payload = `topup:${randomBytes(12).toString("base64url")}`;
  const topup = await insertWithinBounds(
    ctx,
    {
      accountId: account.id,
      method: "stars",
      status: "active",
      amountMicro: usdtForStars(settings, stars),
      stars: { count: stars, payload, expiresAt },
    },
    { statuses: ["creating", "active"], max: ctx.limits.openInvoicesMax, what: "unpaid invoices" },
  );
  return { topup, invoice: invoiceOf(topup, payload) };
}

/** A Stars top-up with a link to pay it from the Mini App (openInvoice). */
export async function starsLink(ctx: TopupContext, account: Account, stars: number): Promise<{ topup: Topup; link: string }> {
  const { port } = settingsOf(ctx);
  const { topup, invoice } = await startStars(ctx, account, stars);
  let link: string;
  try {
    link = await port.invoiceLink(invoice);
  } catch (error) {
    await moveTopup(ctx.db, topup.id, ["active"], "failed", { reason: (error as Error).message, at: nowIso(ctx) });
    if (error instanceof UpstreamError) throw unavailable("Telegram could not make the invoice just now: nothing was charged; try again");
    throw error;
  }
  await setPayUrl(ctx.db, topup.id, link);
  return { topup: { ...topup, payUrl: link }, link };
}

/** The invoice for a Stars top-up: title at most 32 characters, description at most 255 (P1). */
function invoiceOf(topup: Topup, payload: string): StarInvoice {
  const usdt = formatUsdt(topup.creditedMicro ?? topup.amountMicro);
  return {
    title: `Top-up ${usdt} USDT`.slice(0, 32),
    description: `Adds ${usdt} USDT to the balance of account #${topup.accountId} (top-up ${topup.id}).`,
    payload,
    stars: topup.stars!,
  };
}

/**
 * Closes an unpaid Stars top-up (its form closed, or the payer changed their mind), so it no longer counts among the
 * open ones. Telegram cannot withdraw an invoice: checkout refuses it from now on, and a payment already under way
 * is still credited. Anything but an open one is answered as it is.
 */
export async function cancelStars(ctx: TopupContext, topup: Topup): Promise<Topup> {
  if (topup.status === "active") await moveTopup(ctx.db, topup.id, ["active"], "cancelled", { at: nowIso(ctx) });
  return (await topupById(ctx.db, topup.id))!;
}

/**
 * Telegram asks before it takes the Stars: the answer must come within 10 seconds, so this is a few reads. Goes on
 * only for an open Stars top-up of an account not blocked, for the Stars it was made for, within the day's bound.
 */
export async function preCheckout(ctx: TopupContext, query: Omit<StarPaymentUpdate, "chargeId">): Promise<CheckoutAnswer> {
  const refuse = (reason: CheckoutRefusal, message: string, dailyMaxMicro?: Micro): CheckoutAnswer => ({
    ok: false,
    reason,
    message,
    ...(dailyMaxMicro === undefined ? {} : { dailyMaxMicro }),
  });
  if (!ctx.stars) return refuse("off", "Payments in Stars are not taken here now.");
  if (query.currency !== "XTR") return refuse("currency", "This invoice is paid in Telegram Stars only.");
  const topup = await topupByPayload(ctx.db, query.payload);
  if (!topup || topup.method !== "stars") return refuse("unknown", "This invoice is not one of ours any more: start a new top-up.");
  const now = ctx.clock.now();
  if (topup.status !== "active" || (topup.expiresAt && Date.parse(topup.expiresAt) <= now.getTime()))
    return refuse("closed", "This top-up is closed (paid, expired or cancelled): start a new one.");
  if (query.totalAmount !== topup.stars) return refuse("amount", "The amount differs from the top-up's: start a new one.");
  const account = await accountById(ctx.db, topup.accountId);
  if (!account || account.blocked) return refuse("blocked", "This account is blocked: ask support.");
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const today = await starsCreditedSince(ctx.db, topup.accountId, since);
  const max = ctx.stars.dailyMaxMicro;
  if (today + topup.amountMicro > max)
    return refuse("daily", `Stars top-ups are limited to ${formatUsdt(max)} USDT a day: try a smaller amount or later.`, max);
  return { ok: true };
}

/**
 * A payment Telegram made (successful_payment, or found among the bot's transactions): credited once per charge.
 * Credited even when the top-up expired or was cancelled meanwhile: the Stars were taken. A payment that names no
 * top-up, or one already paid by another charge, is recorded in the book unmatched (the monitor alerts).
 */
export async function starsPaid(ctx: TopupContext, payment: StarPaymentUpdate): Promise<{ topup: Topup | null; credited: boolean }> {
  const { db } = ctx;
  const at = nowIso(ctx);
  const book = (topupId: number | null) => ({
    kind: "payment" as const,
    stars: payment.totalAmount,
    transaction_id: payment.chargeId,
    topup_id: topupId,
    order_id: null,
    user_id: payment.userId,
    created_at: at,
  });
  const already = await topupByCharge(db, payment.chargeId);
  if (already) return { topup: already, credited: false };
  const topup = await topupByPayload(db, payment.payload);
  if (!topup || topup.method !== "stars" || payment.currency !== "XTR" || (topup.chargeId !== null && topup.chargeId !== payment.chargeId)) {
    if (await recordStars(db, book(null)))
      ctx.log.error(
        { chargeId: payment.chargeId, payload: payment.payload, topupId: topup?.id },
        "a Stars payment matches no open top-up: not credited",
      );
    return { topup: topup ?? null, credited: false };
  }
  // What the payment credits, at the rate the top-up was made at (a partial amount pro rata: never more than asked).
  const creditMicro = micro(Math.floor((topup.amountMicro * Math.min(payment.totalAmount, topup.stars!)) / topup.stars!));
  const credited = await credit(ctx, topup, ["active", "expired", "cancelled", "failed"], creditMicro, {
    actor: "telegram-stars",
    note: `Top-up ${topup.id}: ${payment.totalAmount} Telegram Stars`,
    charge: { chargeId: payment.chargeId, payerId: payment.userId, also: (trx) => recordStars(trx, book(topup.id)).then(() => undefined) },
  });
  if (credited) return { topup: credited, credited: true };
  // Another instance or delivery got there first (the unique charge id), or the top-up was paid by another charge.
  const now = await topupByCharge(db, payment.chargeId);
  if (!now && (await recordStars(db, book(null))))
    ctx.log.error({ chargeId: payment.chargeId, topupId: topup.id }, "a second Stars payment for a paid top-up: not credited");
  return { topup: now ?? topup, credited: false };
}

/** Who refunds: an administrator in Telegram, or an operator named by their actor (the CLI's `cli:<user>`). */
export type RefundingAdmin = DecidingAdmin | { actor: string };

/** Why an administrator's refund cannot go ahead, said to them. */
const refusal = (refund: Exclude<StarsRefundRefusal, "spent" | "no_answer">, message: string) => invalid(message, { rule: "stars_refund", refund });

/**
 * An administrator gives a Stars top-up's Stars back. The credit is taken back first, in one transaction with the
 * move to `refunding` (so a purchase racing it finds the balance without it, or the refund finds it spent and is
 * refused); then Telegram is asked. Refused there: the credit is put back. No answer: it stays `refunding`, and a
 * second call (or the look at the bot's transactions) finishes it.
 */
export async function refundStars(ctx: TopupContext, id: number, admin: RefundingAdmin): Promise<Topup> {
  settingsOf(ctx);
  const { db } = ctx;
  const topup = await topupById(db, id);
  if (!topup) throw notFound(`No top-up ${id}`);
  if (topup.method !== "stars") throw refusal("not_stars", `Top-up ${id} was not paid in Stars: only a Stars top-up is refunded in Stars`);
  if (topup.status === "refunded") throw refusal("refunded", `Top-up ${id} was refunded already`);
  if (topup.status !== "credited" && topup.status !== "refunding")
    throw refusal("not_paid", `Top-up ${id} is ${topup.status}: only a paid one can be refunded`);
  // An administrator in Telegram (the bot, the desk), or the CLI's operator.
  const actor = "actor" in admin ? admin.actor : `telegram:${admin.telegramId}`;
  const decidedBy = "actor" in admin ? admin.actor : admin.telegramId;
  if (topup.status === "credited") {
    const creditedMicro = topup.creditedMicro!;
    const event = await transaction(db, async (trx) => {
      if (!(await moveTopup(trx, id, ["credited"], "refunding", { decided_by: decidedBy, at: nowIso(ctx) })))
        throw refusal("changed", `Top-up ${id} changed meanwhile: look again`);
      try {
        const balance = await post(trx, {
          accountId: topup.accountId,
          amountMicro: micro(-creditedMicro),
          kind: "reversal",
          actor,
          topupId: id,
          note: `Top-up ${id} refunded: ${topup.stars} Telegram Stars given back`,
          at: nowIso(ctx),
        });
        await insertAudit(trx, {
          actor,
          action: "refund_stars",
          accountId: topup.accountId,
          details: { topup_id: id, amount_micro: creditedMicro },
          at: nowIso(ctx),
        });
        const event = await ctx.outbox.balanceChanged(trx, topup.accountId, {
          kind: "reversal",
          amountMicro: micro(-creditedMicro),
          balanceAfterMicro: balance,
          note: `Top-up ${id} refunded in Telegram Stars`,
        });
        return event;
      } catch (error) {
        if (isRefusal(error, "insufficient_funds")) {
          const balance = error.details.balanceMicro;
          throw invalid(
            `Top-up ${id}'s ${formatUsdt(creditedMicro)} USDT is already spent (the balance is ${formatUsdt(balance)} USDT): it cannot be refunded`,
            { rule: "stars_refund", refund: "spent", requiredMicro: creditedMicro, balanceMicro: balance },
          );
        }
        throw error;
      }
    });
    if (event) ctx.outbox.committed();
  }
  return finishRefund(ctx, id, actor);
}

/**
 * Asks Telegram to give back the Stars of a top-up whose credit is already reversed (`refunding`). One attempt at a
 * time holds the top-up (a lease), so a refusal is never undone while another attempt may have refunded it.
 */
async function finishRefund(ctx: TopupContext, id: number, actor: string): Promise<Topup> {
  const { port } = settingsOf(ctx);
  const { db } = ctx;
  const now = ctx.clock.now().getTime();
  const lease = new Date(now + REFUND_LEASE_MS).toISOString();
  if (!(await claimRefund(db, id, new Date(now).toISOString(), lease)))
    throw refusal("under_way", `A refund of top-up ${id} is under way: look again in a minute`);
  const topup = (await topupById(db, id))!;
  let answer: Awaited<ReturnType<StarPaymentsPort["refund"]>>;
  try {
    answer = await port.refund(topup.payerId!, topup.chargeId!);
  } catch (error) {
    await releaseRefund(db, id, lease);
    ctx.log.warn({ err: error, topupId: id }, "refundStarPayment gave no answer: the refund stays under way");
    throw unavailable(`Telegram did not answer the refund of top-up ${id}: it is under way; ask again to finish it`, {
      rule: "stars_refund",
      refund: "no_answer",
    });
  }
  if (typeof answer === "object") {
    // Undone only while still ours to undo: a refund Telegram made on its own meanwhile has finished it.
    if (!(await undoReversal(ctx, topup, actor, answer.refused))) return (await topupById(db, id))!;
    throw refusal("telegram_refused", `Telegram refused the refund of top-up ${id} (${answer.refused}): the credit is back on the balance`);
  }
  return (await refunded(ctx, topup, topup.creditedMicro!)) ?? (await topupById(db, id))!;
}

/**
 * Telegram refused a refund: the reversal is undone (an adjustment naming the top-up) and the top-up is credited
 * again; false when it was no longer `refunding`.
 */
async function undoReversal(ctx: TopupContext, topup: Topup, actor: string, why: string): Promise<boolean> {
  const undone = await transaction(ctx.db, async (trx) => {
    if (!(await moveTopup(trx, topup.id, ["refunding"], "credited", { reason: `refund refused: ${why}`, at: nowIso(ctx) }))) return null;
    const amount = micro(topup.creditedMicro!);
    const balance = await post(trx, {
      accountId: topup.accountId,
      amountMicro: amount,
      kind: "adjustment",
      actor,
      topupId: topup.id,
      note: `Top-up ${topup.id}: refund refused by Telegram, credit restored`,
      at: nowIso(ctx),
    });
    const event = await ctx.outbox.balanceChanged(trx, topup.accountId, {
      kind: "credit",
      amountMicro: amount,
      balanceAfterMicro: balance,
      note: `Top-up ${topup.id}: refund refused, credit restored`,
    });
    return { event };
  });
  if (undone?.event) ctx.outbox.committed();
  return undone !== null;
}

/** A refund done at Telegram for a top-up already reversed (`refunding`): marked refunded, its Stars out of the book. */
async function refunded(ctx: TopupContext, topup: Topup, reversedMicro: number): Promise<Topup | null> {
  const at = nowIso(ctx);
  const done = await transaction(ctx.db, async (trx) => {
    if (!(await moveTopup(trx, topup.id, ["refunding"], "refunded", { reversed_micro: reversedMicro, at }))) return false;
    await recordStars(trx, refundEntry(topup, at));
    return true;
  });
  if (!done) return null;
  const now = (await topupById(ctx.db, topup.id))!;
  for (const listener of ctx.listeners.refunded) listener(now, 0);
  return now;
}

const refundEntry = (topup: Topup, at: string) => ({
  kind: "refund" as const,
  stars: -topup.stars!,
  transaction_id: topup.chargeId,
  topup_id: topup.id,
  order_id: null,
  user_id: topup.payerId,
  created_at: at,
});

/**
 * Telegram refunded a payment on its own (refunded_payment, or a refund among the bot's transactions): the credit is
 * taken back as far as the balance allows, once; what the balance could not cover is told to the administrators.
 */
export async function starsRefunded(
  ctx: TopupContext,
  update: Pick<StarPaymentUpdate, "chargeId" | "totalAmount" | "userId">,
): Promise<Topup | null> {
  const { db } = ctx;
  const topup = await topupByCharge(db, update.chargeId);
  const at = nowIso(ctx);
  if (!topup) {
    const entry = {
      kind: "refund" as const,
      stars: -update.totalAmount,
      transaction_id: update.chargeId,
      topup_id: null,
      order_id: null,
      user_id: update.userId,
      created_at: at,
    };
    if (await recordStars(db, entry)) ctx.log.error({ chargeId: update.chargeId }, "Telegram refunded a Stars payment that credited no top-up");
    return null;
  }
  if (topup.status === "refunding") return refunded(ctx, topup, topup.creditedMicro!);
  if (topup.status !== "credited") return topup;
  const done = await transaction(db, async (trx) => {
    await lockAccount(trx, topup.accountId);
    const account = await accountById(trx, topup.accountId);
    const taken = micro(Math.min(topup.creditedMicro!, Math.max(0, account?.balanceMicro ?? 0)));
    if (!(await moveTopup(trx, topup.id, ["credited"], "refunded", { decided_by: "telegram", reversed_micro: taken, at }))) return null;
    let event = null;
    if (taken > 0) {
      const balance = await post(trx, {
        accountId: topup.accountId,
        amountMicro: micro(-taken),
        kind: "reversal",
        actor: "telegram-stars",
        topupId: topup.id,
        note: `Top-up ${topup.id}: Telegram refunded the ${topup.stars} Stars`,
        at,
      });
      event = await ctx.outbox.balanceChanged(trx, topup.accountId, {
        kind: "reversal",
        amountMicro: micro(-taken),
        balanceAfterMicro: balance,
        note: `Top-up ${topup.id}: refunded by Telegram`,
      });
    }
    await recordStars(trx, refundEntry(topup, at));
    return { taken, event };
  });
  if (done === null) return (await topupById(db, topup.id)) ?? null;
  if (done.event) ctx.outbox.committed();
  const now = (await topupById(db, topup.id))!;
  const shortMicro = topup.creditedMicro! - done.taken;
  if (shortMicro > 0) ctx.log.error({ topupId: topup.id, shortMicro }, "Telegram refunded a Stars top-up whose credit was spent: the rest is lost");
  for (const listener of ctx.listeners.refunded) listener(now, shortMicro);
  return now;
}

/**
 * What the bot's transactions say that its updates may not have: payments whose successful_payment was lost are
 * credited, refunds Telegram made are taken back; unpaid top-ups past their time expire (first: a failed read must
 * not keep them open), and refunds whose attempt was cut short are asked again. Run on a schedule.
 */
export async function settleStars(ctx: TopupContext): Promise<{ credited: number; refunded: number; expired: number }> {
  if (!ctx.stars) return { credited: 0, refunded: 0, expired: 0 };
  const now = ctx.clock.now().getTime();
  const expired = await expireStars(ctx.db, new Date(now).toISOString());
  const oldest = await oldestUnsettledStars(ctx.db, new Date(now - LOOK_BACK_MS).toISOString());
  let credited = 0;
  let refunds = 0;
  if (oldest) {
    const since = Math.floor((Date.parse(oldest) - CLOCK_SLACK_MS) / 1000);
    for (const t of await ctx.stars.port.transactions(since)) {
      if (!t.userId || !t.payload) continue;
      if (t.kind === "payment") {
        const paid = await starsPaid(ctx, { userId: t.userId, currency: "XTR", totalAmount: t.stars, payload: t.payload, chargeId: t.id });
        if (paid.credited) credited += 1;
      } else if (t.kind === "refund") {
        const topup = await topupByCharge(ctx.db, t.id);
        if (topup && (topup.status === "credited" || topup.status === "refunding")) {
          await starsRefunded(ctx, { chargeId: t.id, totalAmount: -t.stars, userId: t.userId });
          refunds += 1;
        }
      }
    }
  }
  for (const id of await staleRefunds(ctx.db, new Date(now - REFUND_STALE_MS).toISOString(), new Date(now).toISOString(), 20)) {
    const done = await finishRefund(ctx, id, "telegram-stars").catch((error: unknown) => {
      ctx.log.warn({ err: error, topupId: id }, "a refund under way could not be finished now; it will be asked again");
      return null;
    });
    if (done?.status === "refunded") refunds += 1;
  }
  return { credited, refunded: refunds, expired };
}
