import type { Db } from "../db/database.js";
import { listTopups, noticesOf, saveNotices, topupById, topupStats } from "../db/topups.js";
import type { ConfirmRule } from "./confirm.js";
import type { Account } from "./model/account.js";
import type { Clock } from "./model/clock.js";
import { notFound } from "./model/errors.js";
import type { Micro } from "./model/money.js";
import type { Topup } from "./model/topup.js";
import type { CryptoInvoice, CryptoPayPort } from "./ports.js";
import type { DecidingAdmin, StarsSettings, TopupContext, TopupEvent, TopupLimits, TopupListener, TopupListeners } from "./topups/context.js";
import { invoiceSeen } from "./topups/invoice-record.js";
import { cancelInvoice, invoiceGone, invoiceWebhook, startInvoice, sweepCreating } from "./topups/invoices.js";
import {
  cancelStars,
  preCheckout,
  type RefundingAdmin,
  refundStars,
  settleStars,
  type StarPaymentUpdate,
  starsCovering,
  starsLink,
  starsOffer,
  starsPaid,
  starsRefunded,
  startStars,
} from "./topups/stars.js";
import { cancelTransfer, decideTransfer, pendingWithReviews, requestTransfer, reviewTransfer, type TransferDecision } from "./topups/transfers.js";
import type { Outbox } from "./webhooks/outbox.js";

/**
 * Money in without an administrator in the loop. A Crypto Pay invoice is credited once, with the amount it was
 * made for, when Crypto Pay's own record (getInvoices) says it was paid in USDT: a webhook only says where to
 * look. A transfer the user states is credited once when an administrator approves it. Every start is bounded
 * per account (open ones and a daily count, atomically); owner keys spend the service wallet and are refused.
 * The invoices are in `topups/invoices.ts` and `topups/invoice-record.ts`, the transfers in `topups/transfers.ts`,
 * the one credit both end in in `topups/credit.ts`.
 */
export function createTopups(options: {
  db: Db;
  clock: Clock;
  cryptoPay: CryptoPayPort | null;
  /** Stars top-ups (the bot's XTR invoices), or null where they are not offered. */
  stars: StarsSettings | null;
  outbox: Outbox;
  limits: TopupLimits;
  confirm: ConfirmRule;
  log: TopupContext["log"];
}) {
  const { db, limits } = options;
  const listeners: TopupListeners = { credited: [], requested: [], cancelled: [], decided: [], events: [], refunded: [] };
  const ctx: TopupContext = { ...options, cryptoPay: options.cryptoPay?.configured ? options.cryptoPay : null, listeners };

  return {
    /** Which ways of paying this deployment offers. */
    methods: () => ({ invoice: ctx.cryptoPay !== null, transfer: limits.transfers, stars: ctx.stars !== null }),
    limits,

    // Crypto Pay invoices (topups/invoices.ts): Crypto Pay's own record decides; a webhook only says where to look.
    startInvoice: (account: Account, amountMicro: Micro) => startInvoice(ctx, account, amountMicro),
    webhook: (rawBody: string, signature: string | undefined, onForged?: () => void) => invoiceWebhook(ctx, rawBody, signature, onForged),
    invoiceSeen: (record: CryptoInvoice) => invoiceSeen(ctx, record),
    invoiceGone: (id: number) => invoiceGone(ctx, id),
    sweepCreating: () => sweepCreating(ctx),

    // Telegram Stars (topups/stars.ts): Telegram's successful_payment credits, once per charge.
    starsOffer: () => starsOffer(ctx),
    /** The fewest Stars covering a purchase's shortfall, and what they credit (null: Stars cannot cover it). */
    starsCovering: (shortMicro: Micro) => starsCovering(ctx, shortMicro),
    /** A Stars top-up and the invoice the bot sends (sendInvoice). */
    startStars: (account: Account, stars: number) => startStars(ctx, account, stars),
    /** A Stars top-up and a link the Mini App opens (openInvoice). */
    starsLink: (account: Account, stars: number) => starsLink(ctx, account, stars),
    preCheckout: (query: Omit<StarPaymentUpdate, "chargeId">) => preCheckout(ctx, query),
    starsPaid: (payment: StarPaymentUpdate) => starsPaid(ctx, payment),
    starsRefunded: (update: Pick<StarPaymentUpdate, "chargeId" | "totalAmount" | "userId">) => starsRefunded(ctx, update),
    /** An administrator's refund of a Stars top-up (refused when its credit is spent). */
    refundStars: (id: number, admin: RefundingAdmin) => refundStars(ctx, id, admin),
    /** Payments and refunds the bot's transactions show that its updates did not, and expiry: the scheduled look. */
    settleStars: () => settleStars(ctx),
    /** The Stars payments port, for the book's reconciliation (null where Stars are not taken). */
    starsPort: () => ctx.stars?.port ?? null,

    // Transfers (topups/transfers.ts): stated by a user, decided by an administrator.
    requestTransfer: (account: Account, amountMicro: Micro, reference: string) => requestTransfer(ctx, account, amountMicro, reference),
    review: (id: number) => reviewTransfer(ctx, id),
    decide: (id: number, admin: DecidingAdmin, decision: TransferDecision) => decideTransfer(ctx, id, admin, decision),
    pendingTransfers: (limit: number) => pendingWithReviews(ctx, limit),

    /**
     * Cancels an unpaid invoice (looked up at Crypto Pay first: a paid one is credited), an unpaid Stars top-up (a
     * payment still under way is credited) or a pending transfer.
     */
    async cancel(account: Account, id: number): Promise<Topup> {
      const topup = await topupById(db, id);
      if (!topup || topup.accountId !== account.id) throw notFound(`No top-up ${id} for this key`);
      if (topup.method === "stars") return cancelStars(ctx, topup);
      return topup.status === "pending" ? cancelTransfer(ctx, topup) : cancelInvoice(ctx, topup);
    },

    async get(account: Account, id: number): Promise<Topup> {
      const topup = await topupById(db, id);
      if (!topup || topup.accountId !== account.id) throw notFound(`No top-up ${id} for this key`);
      return topup;
    },

    /** Any account's top-up, for an administrator (the bot's /refund and the desk show it before asking to confirm). */
    async find(id: number): Promise<Topup> {
      const topup = await topupById(db, id);
      if (!topup) throw notFound(`No top-up ${id}`);
      return topup;
    },

    list: (account: Account, page: { limit: number; before?: number; method?: Topup["method"] }) => listTopups(db, account.id, page),

    /** The messages the administrators got about a transfer: stored, so any instance can edit them. */
    saveNotices: (topupId: number, sent: Array<{ chat: number; message: number }>) => saveNotices(db, topupId, sent),
    notices: (topupId: number) => noticesOf(db, topupId),

    stats: () => topupStats(db),

    /** Told after a top-up is credited (with the balance after). Must not throw. */
    onCredited: (listener: TopupListener) => void listeners.credited.push(listener),
    /** Told of each top-up event on this instance (metrics). Must not throw. */
    onEvent: (listener: (event: TopupEvent, topup: Topup) => void) => void listeners.events.push(listener),
    /** Told after an administrator's decision took effect (from the bot or the Mini App). Must not throw. */
    onDecided: (listener: (topup: Topup, admin: DecidingAdmin) => void) => void listeners.decided.push(listener),
    /** Told after a user states a transfer. Must not throw. */
    onRequested: (listener: TopupListener) => void listeners.requested.push(listener),
    /** Told after a Stars top-up is refunded, with what of its credit the balance could not give back. Must not throw. */
    onRefunded: (listener: (topup: Topup, shortMicro: number) => void) => void listeners.refunded.push(listener),
    /** Told after a user cancels a pending transfer (its administrators' messages lose their buttons). Must not throw. */
    onCancelled: (listener: (topup: Topup) => void) => void listeners.cancelled.push(listener),
  };
}

export type Topups = ReturnType<typeof createTopups>;
