import type { Db } from "../../db/database.js";
import { insertTopupWithin, type NewTopup, type TopupRefusal } from "../../db/topups.js";
import type { ConfirmRule } from "../confirm.js";
import type { Account } from "../model/account.js";
import type { Clock } from "../model/clock.js";
import { DomainError, invalid } from "../model/errors.js";
import { formatUsdt, type Micro } from "../model/money.js";
import type { Topup, TopupStatus } from "../model/topup.js";
import type { CryptoPayPort, StarPaymentsPort } from "../ports.js";
import type { Outbox } from "../webhooks/outbox.js";

export interface TopupLimits {
  minMicro: Micro;
  maxMicro: Micro;
  /** How long an invoice may be paid. */
  invoiceTtlMs: number;
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
}

export interface StarsSettings {
  /** USDT credited for one Star, micro-USDT (STARS_TOPUP_USDT_PER_STAR, at most what a Star costs). */
  rateMicro: Micro;
  /** The packs offered, in Stars. */
  packs: number[];
  /** Stars top-ups one account may have credited in 24 hours, micro-USDT. */
  dailyMaxMicro: Micro;
  /** Invoice links, refunds and the bot's transactions. */
  port: StarPaymentsPort;
}

/** What listeners hear: a top-up credited (the bot tells its owner), a transfer stated (the bot asks the admins). */
export type TopupListener = (topup: Topup, balanceMicro: Micro | null) => void;
/** What happened to a top-up on this instance (the metrics count it). */
export type TopupEvent = "created" | "paid" | "expired" | "credited";
export type DecidingAdmin = { telegramId: string; name: string };

/** Who is told what; the lists are filled through `createTopups`' `on…` methods. */
export interface TopupListeners {
  credited: TopupListener[];
  requested: TopupListener[];
  cancelled: Array<(topup: Topup) => void>;
  /** A Stars top-up refunded, and what of its credit the balance could not give back (0: all of it). */
  refunded: Array<(topup: Topup, shortMicro: number) => void>;
  decided: Array<(topup: Topup, admin: DecidingAdmin) => void>;
  events: Array<(event: TopupEvent, topup: Topup) => void>;
}

/** What every part of top-ups (invoices, transfers, the credit) works with. */
export interface TopupContext {
  db: Db;
  clock: Clock;
  /** Crypto Pay when it is configured here, otherwise null. */
  cryptoPay: CryptoPayPort | null;
  outbox: Outbox;
  limits: TopupLimits;
  /** Approving a transfer above its threshold needs a second, confirmed step (core/confirm.ts). */
  confirm: ConfirmRule;
  /** Stars top-ups where the bot runs and a rate is set, otherwise null. */
  stars: StarsSettings | null;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  listeners: TopupListeners;
}

const DAY_MS = 86_400_000;

/** Now on the service's clock, as a row stores it. */
export const nowIso = (ctx: TopupContext) => ctx.clock.now().toISOString();

export function emit(ctx: TopupContext, event: TopupEvent, topup: Topup) {
  for (const listener of ctx.listeners.events) listener(event, topup);
}

export function checkAccount(account: Account) {
  if (account.kind === "owner") {
    throw invalid("An owner key spends the service wallet and has no balance to top up: an administrator changes the wallet instead", {
      rule: "owner_topup",
    });
  }
}

export function checkTopupAmount(limits: TopupLimits, amountMicro: Micro) {
  if (!Number.isSafeInteger(amountMicro) || amountMicro < limits.minMicro || amountMicro > limits.maxMicro) {
    throw invalid(`A top-up is from ${formatUsdt(limits.minMicro)} to ${formatUsdt(limits.maxMicro)} USDT`, {
      minMicro: limits.minMicro,
      maxMicro: limits.maxMicro,
    });
  }
}

/**
 * A new top-up, inserted only within its account's bounds: fewer than `openMax` in the `open` states and fewer
 * than the daily count started in the last 24 hours. `what` names the open ones in the refusal.
 */
export async function insertWithinBounds(
  ctx: TopupContext,
  topup: Omit<NewTopup, "at">,
  open: { statuses: TopupStatus[]; max: number; what: string },
): Promise<Topup> {
  const now = ctx.clock.now();
  const made = await insertTopupWithin(
    ctx.db,
    { ...topup, at: now.toISOString() },
    { open: open.statuses, openMax: open.max, dailyMax: ctx.limits.dailyMax, since: new Date(now.getTime() - DAY_MS).toISOString() },
  );
  if ("refused" in made) throw refused(ctx, made.refused, open.what);
  return made.topup;
}

/** A bound that refused a new top-up, said as a 429 with when to try again. */
function refused(ctx: TopupContext, refusal: TopupRefusal, open: string): DomainError {
  const now = ctx.clock.now().getTime();
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
