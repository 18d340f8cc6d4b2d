import type { Db } from "../db/database.js";
import type { TopupMethod, TopupStatus } from "../db/schema.js";
import {
  insertTopup,
  invoiceMade,
  listTopups,
  moveTopup,
  openTopups,
  pendingTransfers,
  topupById,
  topupByInvoice,
  topupStats,
} from "../db/topups.js";
import { transaction } from "../db/transaction.js";
import type { Account } from "./accounts.js";
import { DomainError, invalid, notFound, unavailable } from "./errors.js";
import { post } from "./ledger.js";
import { formatUsdt, type Micro, micro } from "./money.js";
import { type Clock, type CryptoInvoice, type CryptoPayPort, UpstreamError } from "./ports.js";
import type { Outbox } from "./webhooks/outbox.js";

export type { TopupMethod, TopupStatus };

/** A top-up as the faces see it. */
export interface Topup {
  id: number;
  accountId: number;
  method: TopupMethod;
  status: TopupStatus;
  /** What was asked for. */
  amountMicro: Micro;
  /** What was credited (an invoice: the amount received), once credited. */
  creditedMicro: Micro | null;
  invoiceId: number | null;
  payUrl: string | null;
  webAppUrl: string | null;
  expiresAt: string | null;
  /** A transfer's reference, as the user gave it. */
  reference: string | null;
  /** Who decided a transfer (the administrator's Telegram id), and a rejection's reason. */
  decidedBy: string | null;
  reason: string | null;
  createdAt: string;
  updatedAt: string;
  creditedAt: string | null;
}

export interface TopupLimits {
  minMicro: Micro;
  maxMicro: Micro;
  /** How long an invoice may be paid. */
  invoiceTtlSeconds: number;
  /** Unpaid invoices one account may hold, and transfers waiting for a decision. */
  openInvoicesMax: number;
  pendingTransfersMax: number;
  /** Whether users may state a transfer for an administrator to approve. */
  transfers: boolean;
  /** When the poll first looks at a new invoice, and then again while it is open. */
  pollMs: number;
}

export const REFERENCE_MAX = 200;

/** What listeners hear: a top-up credited (the bot tells its owner), a transfer stated (the bot asks the admins). */
export type TopupListener = (topup: Topup, balanceMicro: Micro | null) => void;
/** What happened to a top-up on this instance (the metrics count it). */
export type TopupEvent = "created" | "paid" | "expired" | "credited";

/** Our payload on an invoice: it ties the invoice to the top-up and the account, and is returned as sent. */
const payloadOf = (topup: { id: number; accountId: number }) => `topup:${topup.id}:${topup.accountId}`;
function parsePayload(payload: string | null): { id: number; accountId: number } | null {
  const match = /^topup:(\d{1,15}):(\d{1,15})$/.exec(payload ?? "");
  return match ? { id: Number(match[1]), accountId: Number(match[2]) } : null;
}

/** States in which a top-up still waits for money or a decision. */
const OPEN_INVOICE: TopupStatus[] = ["creating", "active"];
/** A paid invoice is credited whatever we thought of it meanwhile: money received is never lost. */
const CREDITABLE: TopupStatus[] = ["creating", "active", "expired", "cancelled", "failed"];

/**
 * Money in without an administrator in the loop. A Crypto Pay invoice is credited once, with the amount
 * received, when it is paid (the provider's webhook, or the poll that never misses one); a transfer the user
 * states is credited once when an administrator approves it. Owner keys spend the service wallet and are refused.
 */
export function createTopups(options: {
  db: Db;
  clock: Clock;
  cryptoPay: CryptoPayPort | null;
  outbox: Outbox;
  limits: TopupLimits;
  log: { warn(obj: object, msg: string): void };
}) {
  const { db, clock, outbox, limits, log } = options;
  const cryptoPay = options.cryptoPay?.configured ? options.cryptoPay : null;
  const creditedListeners: TopupListener[] = [];
  const requestedListeners: TopupListener[] = [];
  const decidedListeners: Array<(topup: Topup, admin: { telegramId: string; name: string }) => void> = [];
  const eventListeners: Array<(event: TopupEvent, topup: Topup) => void> = [];
  const emit = (event: TopupEvent, topup: Topup) => {
    for (const listener of eventListeners) listener(event, topup);
  };
  const at = () => clock.now().toISOString();

  function checkAccount(account: Account) {
    if (account.kind === "owner") {
      throw invalid("An owner key spends the service wallet and has no balance to top up: an administrator changes the wallet instead", {
        rule: "owner_topup",
      });
    }
  }

  function checkAmount(amountMicro: number) {
    if (!Number.isSafeInteger(amountMicro) || amountMicro < limits.minMicro || amountMicro > limits.maxMicro) {
      throw invalid(`A top-up is from ${formatUsdt(limits.minMicro)} to ${formatUsdt(limits.maxMicro)} USDT`, {
        minMicro: limits.minMicro,
        maxMicro: limits.maxMicro,
      });
    }
  }

  /** Credits the top-up with `amountMicro` once, in one transaction with its ledger entry and webhook event. */
  async function credit(
    topup: Topup,
    from: TopupStatus[],
    amountMicro: number,
    entry: { actor: string; note: string; decidedBy?: string; invoiceId?: number },
  ) {
    const when = at();
    const done = await transaction(db, async (trx) => {
      const moved = await moveTopup(trx, topup.id, from, "credited", {
        credited_micro: amountMicro,
        credited_at: when,
        at: when,
        ...(entry.decidedBy ? { decided_by: entry.decidedBy } : {}),
        // An invoice whose answer was lost when it was made is tied to its top-up now.
        ...(entry.invoiceId ? { invoice_id: entry.invoiceId } : {}),
      });
      if (!moved) return null;
      const balance = await post(trx, {
        accountId: topup.accountId,
        amountMicro: micro(amountMicro),
        kind: "topup",
        actor: entry.actor,
        topupId: topup.id,
        note: entry.note,
        at: when,
      });
      const event = await outbox.balanceChanged(trx, topup.accountId, {
        kind: "topup",
        amountMicro: micro(amountMicro),
        balanceAfterMicro: balance,
        note: entry.note,
      });
      return { balance, event };
    });
    if (!done) return null;
    if (done.event) outbox.committed();
    const credited = (await topupById(db, topup.id))!;
    if (credited.method === "invoice") emit("paid", credited);
    emit("credited", credited);
    for (const listener of creditedListeners) listener(credited, done.balance);
    return credited;
  }

  /**
   * What the provider says of an invoice (its webhook, or the poll). Paid: the top-up its payload names is
   * credited once with the amount received; expired: an active one is closed. `credited` is false when nothing
   * was credited (a replay, one already credited); `unknown` when the invoice ties to no top-up of ours.
   */
  async function invoiceSeen(invoice: CryptoInvoice): Promise<{ topup: Topup | null; credited: boolean; unknown: boolean }> {
    const tied = parsePayload(invoice.payload);
    const topup = (await topupByInvoice(db, invoice.invoiceId)) ?? (tied ? await topupById(db, tied.id) : undefined);
    if (
      !topup ||
      !tied ||
      topup.id !== tied.id ||
      topup.accountId !== tied.accountId ||
      (topup.invoiceId !== null && topup.invoiceId !== invoice.invoiceId)
    ) {
      return { topup: null, credited: false, unknown: true };
    }
    if (invoice.status === "expired") {
      const expired = await moveTopup(db, topup.id, ["active"], "expired", { at: at() });
      const now = (await topupById(db, topup.id))!;
      if (expired) emit("expired", now);
      return { topup: now, credited: false, unknown: false };
    }
    if (invoice.status !== "paid") return { topup, credited: false, unknown: false };
    // The amount received, in USDT; an invoice paid in another asset is credited at its own amount.
    const received = invoice.paidAsset === "USDT" && invoice.paidAmountMicro !== null ? invoice.paidAmountMicro : invoice.amountMicro;
    const credited = await credit(topup, CREDITABLE, received, {
      actor: "cryptopay",
      note: `Crypto Pay invoice ${invoice.invoiceId}`,
      invoiceId: invoice.invoiceId,
    });
    return { topup: credited ?? topup, credited: credited !== null, unknown: false };
  }

  return {
    invoiceSeen,

    /**
     * The provider's webhook, raw: a forged one is refused (401) and logged, and credits nothing; a paid
     * invoice is credited once however often it is delivered; an unknown one is ignored with a log line.
     */
    async webhook(rawBody: string, signature: string | undefined): Promise<void> {
      if (!cryptoPay) throw notFound("Crypto Pay is not configured here");
      const read = cryptoPay.readWebhook(rawBody, signature);
      if ("forged" in read) {
        log.warn({ signature: signature ?? null, bytes: rawBody.length }, "a Crypto Pay webhook with a wrong signature was refused");
        throw new DomainError("unauthorized", "The webhook's signature does not verify");
      }
      if (!read.invoice) return;
      const seen = await invoiceSeen(read.invoice);
      if (seen.unknown) log.warn({ invoiceId: read.invoice.invoiceId }, "a Crypto Pay webhook for an invoice that ties to no top-up was ignored");
    },

    /** An open invoice the provider no longer has (deleted there): closed as expired. */
    async invoiceGone(id: number): Promise<void> {
      await moveTopup(db, id, ["active"], "expired", { reason: "the provider no longer has this invoice", at: at() });
    },

    /** Which ways of paying this deployment offers. */
    methods: () => ({ invoice: cryptoPay !== null, transfer: limits.transfers }),
    limits,

    /** A Crypto Pay invoice for `amountMicro`: its pay link and expiry. Nothing is credited until it is paid. */
    async startInvoice(account: Account, amountMicro: number): Promise<Topup> {
      checkAccount(account);
      if (!cryptoPay) throw unavailable("Crypto top-ups are not offered here: state a transfer for an administrator to approve");
      checkAmount(amountMicro);
      const open = await openTopups(db, account.id, OPEN_INVOICE, limits.openInvoicesMax);
      if (open.length >= limits.openInvoicesMax) {
        const soonest = open.map((t) => (t.expiresAt ? Date.parse(t.expiresAt) : Infinity)).sort((a, b) => a - b)[0];
        const retryAfterSeconds = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - clock.now().getTime()) / 1000)) : 60;
        throw new DomainError("rate_limited", `You have ${open.length} unpaid invoices, the most you may have: pay or cancel one first`, {
          retryAfterSeconds,
        });
      }
      const topup = await insertTopup(db, { accountId: account.id, method: "invoice", status: "creating", amountMicro, at: at() });
      let invoice: CryptoInvoice;
      try {
        invoice = await cryptoPay.createInvoice({
          amountMicro,
          description: `Top-up of ${formatUsdt(amountMicro)} USDT`,
          payload: payloadOf(topup),
          expiresInSeconds: limits.invoiceTtlSeconds,
        });
      } catch (error) {
        // The invoice may exist even so (an answer lost): its payload still ties it to this top-up, so should it
        // be paid, the webhook or a reconciling look credits it (CREDITABLE holds `failed`).
        await moveTopup(db, topup.id, ["creating"], "failed", { reason: error instanceof Error ? error.message : String(error), at: at() });
        if (error instanceof UpstreamError) throw unavailable("Crypto Pay could not make the invoice just now: nothing was charged; try again");
        throw error;
      }
      const now = clock.now();
      await invoiceMade(db, topup.id, {
        invoiceId: invoice.invoiceId,
        payUrl: invoice.payUrl,
        webAppUrl: invoice.webAppUrl,
        expiresAt: invoice.expiresAt,
        checkAfter: new Date(now.getTime() + limits.pollMs).toISOString(),
        at: now.toISOString(),
      });
      const made = (await topupById(db, topup.id))!;
      emit("created", made);
      return made;
    },

    /** A transfer the user states (an amount and a reference), for an administrator to approve. */
    async requestTransfer(account: Account, amountMicro: number, reference: string): Promise<Topup> {
      checkAccount(account);
      if (!limits.transfers) throw unavailable("Transfer top-ups are not offered here");
      checkAmount(amountMicro);
      const text = reference.trim();
      if (!text || text.length > REFERENCE_MAX || /\p{Cc}/u.test(text)) {
        throw invalid(`reference must be 1 to ${REFERENCE_MAX} characters: the transaction id or a note the administrator can check`);
      }
      const pending = await openTopups(db, account.id, ["pending"], limits.pendingTransfersMax);
      if (pending.length >= limits.pendingTransfersMax) {
        throw new DomainError(
          "rate_limited",
          `You have ${pending.length} transfers waiting for a decision, the most you may have: wait or cancel one`,
          {
            retryAfterSeconds: 60,
          },
        );
      }
      const topup = await insertTopup(db, { accountId: account.id, method: "transfer", status: "pending", amountMicro, reference: text, at: at() });
      for (const listener of requestedListeners) listener(topup, null);
      return topup;
    },

    /**
     * An administrator's decision on a pending transfer; the first decision wins. Approve credits exactly the
     * amount asked, once; reject records the reason. `decided` is false when another decision came first (then
     * `topup` says which).
     */
    async decide(id: number, admin: { telegramId: string; name: string }, decision: { approve: true } | { approve: false; reason: string }) {
      const topup = await topupById(db, id);
      if (!topup || topup.method !== "transfer") throw notFound(`No transfer top-up ${id}`);
      let decided: boolean;
      if (decision.approve) {
        decided =
          (await credit(topup, ["pending"], topup.amountMicro, {
            actor: `admin:${admin.telegramId}`,
            note: `transfer top-up ${id} approved by ${admin.name} (${admin.telegramId})`,
            decidedBy: admin.telegramId,
          })) !== null;
      } else {
        const reason = decision.reason.trim().slice(0, REFERENCE_MAX);
        if (!reason) throw invalid("A rejection needs a reason the user is told");
        decided = await moveTopup(db, id, ["pending"], "rejected", { decided_by: admin.telegramId, reason, at: at() });
      }
      const now = (await topupById(db, id))!;
      if (decided) for (const listener of decidedListeners) listener(now, admin);
      return { decided, topup: now };
    },

    /** Cancels an unpaid invoice (deleted at the provider first) or a pending transfer of the account. */
    async cancel(account: Account, id: number): Promise<Topup> {
      const topup = await topupById(db, id);
      if (!topup || topup.accountId !== account.id) throw notFound(`No top-up ${id} for this key`);
      if (topup.status === "pending") {
        if (!(await moveTopup(db, id, ["pending"], "cancelled", { at: at() }))) throw invalid(`Top-up ${id} was decided meanwhile`);
      } else if (topup.status === "active" && cryptoPay && topup.invoiceId !== null) {
        try {
          await cryptoPay.deleteInvoice(topup.invoiceId);
        } catch (error) {
          if (error instanceof UpstreamError) throw unavailable("Crypto Pay could not cancel the invoice just now: try again");
          throw error;
        }
        // Paid meanwhile? Then the provider refused the deletion above, or the poll will still credit it.
        await moveTopup(db, id, ["active"], "cancelled", { at: at() });
      } else {
        throw invalid(`Top-up ${id} is ${topup.status}: only an unpaid invoice or a pending transfer can be cancelled`);
      }
      return (await topupById(db, id))!;
    },

    async get(account: Account, id: number): Promise<Topup> {
      const topup = await topupById(db, id);
      if (!topup || topup.accountId !== account.id) throw notFound(`No top-up ${id} for this key`);
      return topup;
    },

    list: (account: Account, page: { limit: number; before?: number }) => listTopups(db, account.id, page),

    /** Transfers waiting for a decision, oldest first, with whose they are (the admin desk). */
    pendingTransfers: (limit: number) => pendingTransfers(db, limit),

    stats: () => topupStats(db),

    /** Told after a top-up is credited (with the balance after). Must not throw. */
    onCredited(listener: TopupListener) {
      creditedListeners.push(listener);
    },
    /** Told of each top-up event on this instance (metrics). Must not throw. */
    onEvent(listener: (event: TopupEvent, topup: Topup) => void) {
      eventListeners.push(listener);
    },
    /** Told after an administrator's decision took effect (from the bot or the Mini App). Must not throw. */
    onDecided(listener: (topup: Topup, admin: { telegramId: string; name: string }) => void) {
      decidedListeners.push(listener);
    },
    /** Told after a user states a transfer. Must not throw. */
    onRequested(listener: TopupListener) {
      requestedListeners.push(listener);
    },
  };
}

export type Topups = ReturnType<typeof createTopups>;
