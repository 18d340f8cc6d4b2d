import type { Db } from "../db/database.js";
import type { Topup, TopupStatus } from "./model/topup.js";
import { insertAudit } from "../db/accounts.js";
import {
  insertTopupWithin,
  invoiceMade,
  listTopups,
  moveTopup,
  noticesOf,
  pendingTransfers,
  recordAnomaly,
  referenceKeyOf,
  sameReference,
  saveNotices,
  staleCreating,
  topupById,
  topupByInvoice,
  type TopupRefusal,
  topupStats,
} from "../db/topups.js";
import { transaction } from "../db/transaction.js";
import type { Account } from "./model/account.js";
import { DomainError, invalid, notFound, unavailable } from "./model/errors.js";
import { post } from "./ledger.js";
import { formatUsdt, type Micro, micro } from "./model/money.js";
import { type CryptoInvoice, type CryptoPayPort, UpstreamError } from "./ports.js";
import type { Clock } from "./model/clock.js";
import type { Outbox } from "./webhooks/outbox.js";

export interface TopupLimits {
  minMicro: Micro;
  maxMicro: Micro;
  /** How long an invoice may be paid. */
  invoiceTtlSeconds: number;
  /** Unpaid invoices one account may hold, and transfers waiting for a decision. */
  openInvoicesMax: number;
  pendingTransfersMax: number;
  /** Top-ups (both kinds, cancelled ones too) one account may start in 24 hours. */
  dailyMax: number;
  /** Whether users may state a transfer for an administrator to approve. */
  transfers: boolean;
  /** How often the poll looks at every open invoice. */
  pollMs: number;
  /** A top-up still `creating` after this long was cut short (a stop mid-call): the poll settles it. */
  creatingStaleMs: number;
  /** Approving a transfer above this needs a second, confirmed step (ADMIN_CONFIRM_ABOVE_USDT). */
  confirmAboveMicro: Micro;
}

export const REFERENCE_MAX = 200;
const DAY_MS = 86_400_000;
/** Invoices scanned, newest first, for one cut short while it was made (its id never reached us). */
const PAYLOAD_SCAN = 1_000;

/** A reference reduced to its letters and digits: "Bank TX-7781" and "bank tx 7781" are the same transfer. */
const referenceKey = (reference: string) =>
  reference
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");

/** Why approving a transfer needs a second, confirmed step. */
type ConfirmReason = "above_threshold" | "reference_reused";

/** What the deciding administrator is shown of a transfer: other transfers with its reference, and why to confirm. */
export interface TransferReview {
  reused: Array<{ topup: Topup; telegramId: string | null }>;
  confirm: ConfirmReason[];
}

/** What Crypto Pay told us that matches no top-up as it should: logged, alerted, never credited. */
export type AnomalyKind = "unknown_invoice" | "not_as_made" | "update_disagrees" | "no_record" | "invoice_id_reused";

/** What listeners hear: a top-up credited (the bot tells its owner), a transfer stated (the bot asks the admins). */
export type TopupListener = (topup: Topup, balanceMicro: Micro | null) => void;
/** What happened to a top-up on this instance (the metrics count it). */
export type TopupEvent = "created" | "paid" | "expired" | "credited";
type Admin = { telegramId: string; name: string };

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

/** The fields of an invoice that a webhook's claim and Crypto Pay's record must agree on. */
const claimed = (invoice: CryptoInvoice) => ({
  status: invoice.status,
  currency_type: invoice.currencyType,
  asset: invoice.asset,
  amount_micro: invoice.amountMicro,
  paid_asset: invoice.paidAsset,
  paid_amount_micro: invoice.paidAmountMicro,
  payload: invoice.payload,
});

/**
 * Money in without an administrator in the loop. A Crypto Pay invoice is credited once, with the amount it was
 * made for, when Crypto Pay's own record (getInvoices) says it was paid in USDT: a webhook only says where to
 * look. A transfer the user states is credited once when an administrator approves it. Every start is bounded
 * per account (open ones and a daily count, atomically); owner keys spend the service wallet and are refused.
 */
export function createTopups(options: {
  db: Db;
  clock: Clock;
  cryptoPay: CryptoPayPort | null;
  outbox: Outbox;
  limits: TopupLimits;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}) {
  const { db, clock, outbox, limits, log } = options;
  const cryptoPay = options.cryptoPay?.configured ? options.cryptoPay : null;
  const creditedListeners: TopupListener[] = [];
  const requestedListeners: TopupListener[] = [];
  const cancelledListeners: Array<(topup: Topup) => void> = [];
  const decidedListeners: Array<(topup: Topup, admin: Admin) => void> = [];
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

  /** A bound that refused a new top-up, said as a 429 with when to try again. */
  function refused(refusal: TopupRefusal, open: string): DomainError {
    const now = clock.now().getTime();
    if (refusal.bound === "daily") {
      const retryAfterSeconds = Math.max(1, Math.ceil((Date.parse(refusal.oldestAt) + DAY_MS - now) / 1000));
      return new DomainError("rate_limited", `You started ${refusal.count} top-ups in the last 24 hours, the most you may: try again later`, {
        retryAfterSeconds,
      });
    }
    const soonest = refusal.oldest.map((t) => (t.expiresAt ? Date.parse(t.expiresAt) : Infinity)).sort((a, b) => a - b)[0];
    const retryAfterSeconds = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 60;
    return new DomainError(
      "rate_limited",
      `You have ${refusal.count} ${open}, the most you may have: ${open.startsWith("unpaid") ? "pay" : "wait for"} or cancel one first`,
      {
        retryAfterSeconds,
      },
    );
  }

  /** Logged at once and recorded (once per invoice and kind) for the administrators' alert; never credited. */
  async function anomaly(kind: AnomalyKind, invoiceId: number, topupId: number | null, details: object) {
    log.error({ anomaly: kind, invoiceId, topupId, ...details }, "Crypto Pay reported something that matches no top-up as made: not credited");
    await recordAnomaly(db, { invoiceId, topupId, kind, details, at: at() });
  }

  /** Credits the top-up with `amountMicro` once, in one transaction with its ledger entry, audit and webhook event. */
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
      // Who approved is the audit's to keep, not the customer's note nor the partner's event.
      if (entry.decidedBy) {
        await insertAudit(trx, {
          actor: entry.actor,
          action: "approve_transfer",
          accountId: topup.accountId,
          details: { topup_id: topup.id, amount_micro: amountMicro },
          at: when,
        });
      }
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
   * Crypto Pay's own record of an invoice (getInvoices: the poll, a webhook's check, a cancel, the sweep). Paid:
   * the top-up its id and payload name is credited once with the amount it was made for, if the record is a
   * crypto invoice in USDT for that amount; anything else is an anomaly, never credited. Expired: closed. Active:
   * tied to a top-up cut short while it was made. `unknown` when the invoice ties to no top-up of ours.
   */
  async function invoiceSeen(record: CryptoInvoice): Promise<{ topup: Topup | null; credited: boolean; unknown: boolean }> {
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
      if (record.status === "paid") await anomaly("unknown_invoice", record.invoiceId, topup?.id ?? null, { record: claimed(record) });
      return { topup: null, credited: false, unknown: true };
    }
    const now = at();
    if (record.status === "expired") {
      const expired = await moveTopup(db, topup.id, ["creating", "active"], "expired", { invoice_id: record.invoiceId, at: now });
      const current = (await topupById(db, topup.id))!;
      if (expired) emit("expired", current);
      return { topup: current, credited: false, unknown: false };
    }
    if (record.status === "active") {
      if (topup.status === "creating") await tie(topup.id, record);
      return { topup: (await topupById(db, topup.id))!, credited: false, unknown: false };
    }
    if (record.currencyType !== "crypto" || record.asset !== "USDT" || record.amountMicro !== topup.amountMicro) {
      await anomaly("not_as_made", record.invoiceId, topup.id, { record: claimed(record), made_micro: topup.amountMicro });
      await moveTopup(db, topup.id, ["creating", "active", "expired", "cancelled"], "failed", {
        reason: "paid, but not in USDT for the amount it was made for: an administrator checks it",
        invoice_id: record.invoiceId,
        at: now,
      });
      return { topup: (await topupById(db, topup.id))!, credited: false, unknown: false };
    }
    const credited = await credit(topup, CREDITABLE, topup.amountMicro, {
      actor: "cryptopay",
      note: `Crypto Pay invoice ${record.invoiceId}`,
      invoiceId: record.invoiceId,
    });
    return { topup: credited ?? (await topupById(db, topup.id))!, credited: credited !== null, unknown: false };
  }

  /** A top-up cut short while it was made gets the invoice Crypto Pay did make (the poll looks at it next). */
  async function tie(id: number, invoice: CryptoInvoice) {
    const now = at();
    await invoiceMade(db, id, {
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
  async function recordOf(invoiceId: number): Promise<CryptoInvoice | undefined> {
    try {
      const { found, unreadable } = await cryptoPay!.invoices([invoiceId]);
      if (unreadable.length) throw unavailable("Crypto Pay's record of the invoice does not read as one just now: nothing changed; try again later");
      return found[0];
    } catch (error) {
      if (error instanceof UpstreamError) throw unavailable("Crypto Pay cannot be asked about the invoice just now: nothing changed; try again");
      throw error;
    }
  }

  /** A top-up left `creating`: Crypto Pay's invoice with its payload, if one was made, decides what it becomes. */
  async function settleCreating(topup: Topup): Promise<void> {
    let found: CryptoInvoice | null;
    try {
      found = await cryptoPay!.findByPayload(payloadOf(topup), PAYLOAD_SCAN);
    } catch (error) {
      if (error instanceof UpstreamError) throw unavailable("Crypto Pay cannot be asked about the invoice just now: nothing changed; try again");
      throw error;
    }
    if (found) await invoiceSeen(found);
    else await moveTopup(db, topup.id, ["creating"], "failed", { reason: "no invoice was made (the service stopped while making it)", at: at() });
  }

  /** The transfer's review: other transfers with its reference (any account) and why approving needs confirming. */
  async function review(topup: Topup): Promise<TransferReview> {
    const key = await referenceKeyOf(db, topup.id);
    const reused = key ? await sameReference(db, { id: topup.id, referenceKey: key }) : [];
    const confirm: ConfirmReason[] = [];
    if (topup.amountMicro > limits.confirmAboveMicro) confirm.push("above_threshold");
    if (reused.length) confirm.push("reference_reused");
    return { reused, confirm };
  }

  return {
    invoiceSeen,

    /**
     * Crypto Pay's webhook, raw. A forged one is refused (401) and logged by its length; a signed one only says
     * which invoice to look at: Crypto Pay's own record decides, and a claim the record contradicts is an anomaly.
     * While the record cannot be read the answer is 503, so Crypto Pay delivers again (and the poll looks anyway).
     */
    async webhook(rawBody: string, signature: string | undefined): Promise<void> {
      if (!cryptoPay) throw notFound("Crypto Pay is not configured here");
      const read = cryptoPay.readWebhook(rawBody, signature);
      if ("forged" in read) {
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
      const record = await recordOf(claim.invoiceId);
      if (!record) {
        await anomaly("no_record", claim.invoiceId, null, { claimed: claimed(claim) });
        return;
      }
      if (JSON.stringify(claimed(claim)) !== JSON.stringify(claimed(record))) {
        await anomaly("update_disagrees", record.invoiceId, null, { claimed: claimed(claim), record: claimed(record) });
      }
      const seen = await invoiceSeen(record);
      if (seen.unknown) log.warn({ invoiceId: record.invoiceId }, "a Crypto Pay webhook for an invoice that ties to no top-up was ignored");
    },

    /** An open invoice the provider no longer has (deleted there): closed as expired. */
    async invoiceGone(id: number): Promise<void> {
      await moveTopup(db, id, ["active"], "expired", { reason: "the provider no longer has this invoice", at: at() });
    },

    /** Top-ups left `creating` past the provider call's bound (a stop mid-call): each settled by what Crypto Pay made. */
    async sweepCreating(): Promise<number> {
      if (!cryptoPay) return 0;
      const stale = await staleCreating(db, new Date(clock.now().getTime() - limits.creatingStaleMs).toISOString(), 20);
      for (const topup of stale) await settleCreating(topup);
      return stale.length;
    },

    /** Which ways of paying this deployment offers. */
    methods: () => ({ invoice: cryptoPay !== null, transfer: limits.transfers }),
    limits,

    /** A Crypto Pay invoice for `amountMicro`: its pay link and expiry. Nothing is credited until it is paid. */
    async startInvoice(account: Account, amountMicro: number): Promise<Topup> {
      checkAccount(account);
      if (!cryptoPay) throw unavailable("Crypto top-ups are not offered here: state a transfer for an administrator to approve");
      checkAmount(amountMicro);
      const now = clock.now();
      const made = await insertTopupWithin(
        db,
        { accountId: account.id, method: "invoice", status: "creating", amountMicro, at: now.toISOString() },
        { open: OPEN_INVOICE, openMax: limits.openInvoicesMax, dailyMax: limits.dailyMax, since: new Date(now.getTime() - DAY_MS).toISOString() },
      );
      if ("refused" in made) throw refused(made.refused, "unpaid invoices");
      const { topup } = made;
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
      // An invoice id another top-up already holds is never tied twice (nor answered 500).
      const holder = await topupByInvoice(db, invoice.invoiceId);
      if (holder && holder.id !== topup.id) {
        await anomaly("invoice_id_reused", invoice.invoiceId, topup.id, { held_by: holder.id });
        await moveTopup(db, topup.id, ["creating"], "failed", {
          reason: `Crypto Pay answered invoice ${invoice.invoiceId}, which top-up ${holder.id} holds`,
          at: at(),
        });
        throw unavailable("Crypto Pay could not make the invoice just now: nothing was charged; try again");
      }
      await tie(topup.id, invoice);
      const current = (await topupById(db, topup.id))!;
      emit("created", current);
      return current;
    },

    /** A transfer the user states (an amount and a reference), for an administrator to approve. */
    async requestTransfer(account: Account, amountMicro: number, reference: string): Promise<Topup> {
      checkAccount(account);
      if (!limits.transfers) throw unavailable("Transfer top-ups are not offered here");
      checkAmount(amountMicro);
      const text = reference.trim();
      const key = referenceKey(text);
      if (!text || text.length > REFERENCE_MAX || /\p{Cc}/u.test(text) || !key) {
        throw invalid(
          `reference must be 1 to ${REFERENCE_MAX} characters, with letters or digits: the transaction id or a note the administrator can check`,
        );
      }
      const now = clock.now();
      const made = await insertTopupWithin(
        db,
        { accountId: account.id, method: "transfer", status: "pending", amountMicro, reference: { text, key }, at: now.toISOString() },
        { open: ["pending"], openMax: limits.pendingTransfersMax, dailyMax: limits.dailyMax, since: new Date(now.getTime() - DAY_MS).toISOString() },
      );
      if ("refused" in made) throw refused(made.refused, "transfers waiting for a decision");
      for (const listener of requestedListeners) listener(made.topup, null);
      return made.topup;
    },

    /** What the deciding administrator must see of a transfer (by id): reused references, and why to confirm. */
    async review(id: number): Promise<{ topup: Topup; review: TransferReview }> {
      const topup = await topupById(db, id);
      if (!topup || topup.method !== "transfer") throw notFound(`No transfer top-up ${id}`);
      return { topup, review: await review(topup) };
    },

    /**
     * An administrator's decision on a pending transfer; the first decision wins. Approve credits exactly the
     * amount asked, once, and needs `confirmed` when the amount is above ADMIN_CONFIRM_ABOVE_USDT or the reference
     * is another transfer's too; reject records the reason. `decided` is false when another decision came first.
     */
    async decide(id: number, admin: Admin, decision: { approve: true; confirmed?: boolean } | { approve: false; reason: string }) {
      const topup = await topupById(db, id);
      if (!topup || topup.method !== "transfer") throw notFound(`No transfer top-up ${id}`);
      let decided: boolean;
      if (decision.approve) {
        const { confirm, reused } = topup.status === "pending" ? await review(topup) : { confirm: [], reused: [] };
        if (confirm.length && !decision.confirmed) {
          const why = [
            ...(confirm.includes("above_threshold")
              ? [`${formatUsdt(topup.amountMicro)} USDT is above ${formatUsdt(limits.confirmAboveMicro)}`]
              : []),
            ...(reused.length ? [`its reference is also on transfer ${reused.map((r) => `${r.topup.id} (${r.topup.status})`).join(", ")}`] : []),
          ];
          throw invalid(`Approving transfer ${id} needs confirming: ${why.join("; ")}`, { rule: "confirm_needed", confirm });
        }
        decided =
          (await credit(topup, ["pending"], topup.amountMicro, {
            actor: `admin:${admin.telegramId}`,
            note: `Transfer top-up ${id} approved`,
            decidedBy: admin.telegramId,
          })) !== null;
      } else {
        const reason = decision.reason.trim().slice(0, REFERENCE_MAX);
        if (!reason) throw invalid("A rejection needs a reason the user is told");
        const when = at();
        decided = await transaction(db, async (trx) => {
          const moved = await moveTopup(trx, id, ["pending"], "rejected", { decided_by: admin.telegramId, reason, at: when });
          if (moved)
            await insertAudit(trx, {
              actor: `admin:${admin.telegramId}`,
              action: "reject_transfer",
              accountId: topup.accountId,
              details: { topup_id: id, reason },
              at: when,
            });
          return moved;
        });
      }
      const now = (await topupById(db, id))!;
      if (decided) for (const listener of decidedListeners) listener(now, admin);
      return { decided, topup: now };
    },

    /**
     * Cancels an unpaid invoice or a pending transfer of the account. An invoice is looked up at Crypto Pay
     * first: one already paid is credited (never lost) and answered as such; one still open is deleted there.
     */
    async cancel(account: Account, id: number): Promise<Topup> {
      let topup = await topupById(db, id);
      if (!topup || topup.accountId !== account.id) throw notFound(`No top-up ${id} for this key`);
      if (topup.status === "pending") {
        if (!(await moveTopup(db, id, ["pending"], "cancelled", { at: at() }))) throw invalid(`Top-up ${id} was decided meanwhile`);
        const cancelled = (await topupById(db, id))!;
        for (const listener of cancelledListeners) listener(cancelled);
        return cancelled;
      }
      if (topup.status === "creating" && cryptoPay) {
        if (clock.now().getTime() - Date.parse(topup.createdAt) < limits.creatingStaleMs) {
          throw invalid(`Top-up ${id}'s invoice is still being made: try again in a few seconds`);
        }
        await settleCreating(topup);
        topup = (await topupById(db, id))!;
      }
      if (topup.status !== "active" || !cryptoPay || topup.invoiceId === null) {
        if (topup.status === "credited" || topup.status === "expired" || topup.status === "failed") return topup;
        throw invalid(`Top-up ${id} is ${topup.status}: only an unpaid invoice or a pending transfer can be cancelled`);
      }
      const invoiceId = topup.invoiceId;
      const before = await recordOf(invoiceId);
      if (!before || before.status !== "active") {
        if (before) await invoiceSeen(before);
        else await this.invoiceGone(id);
        return (await topupById(db, id))!;
      }
      try {
        await cryptoPay.deleteInvoice(invoiceId);
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        // Refused: paid meanwhile? Crypto Pay's record says.
        const after = await recordOf(invoiceId);
        if (after?.status === "paid" || after?.status === "expired") {
          await invoiceSeen(after);
          return (await topupById(db, id))!;
        }
        throw unavailable("Crypto Pay could not cancel the invoice just now: try again");
      }
      await moveTopup(db, id, ["active"], "cancelled", { at: at() });
      return (await topupById(db, id))!;
    },

    async get(account: Account, id: number): Promise<Topup> {
      const topup = await topupById(db, id);
      if (!topup || topup.accountId !== account.id) throw notFound(`No top-up ${id} for this key`);
      return topup;
    },

    list: (account: Account, page: { limit: number; before?: number }) => listTopups(db, account.id, page),

    /** Transfers waiting for a decision, oldest first, with whose they are and their review (the admin desk). */
    async pendingTransfers(limit: number) {
      const pending = await pendingTransfers(db, limit);
      return Promise.all(pending.map(async (entry) => ({ ...entry, review: await review(entry.topup) })));
    },

    /** The messages the administrators got about a transfer: stored, so any instance can edit them. */
    saveNotices: (topupId: number, sent: Array<{ chat: number; message: number }>) => saveNotices(db, topupId, sent),
    notices: (topupId: number) => noticesOf(db, topupId),

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
    onDecided(listener: (topup: Topup, admin: Admin) => void) {
      decidedListeners.push(listener);
    },
    /** Told after a user states a transfer. Must not throw. */
    onRequested(listener: TopupListener) {
      requestedListeners.push(listener);
    },
    /** Told after a user cancels a pending transfer (its administrators' messages lose their buttons). Must not throw. */
    onCancelled(listener: (topup: Topup) => void) {
      cancelledListeners.push(listener);
    },
  };
}

export type Topups = ReturnType<typeof createTopups>;
