import { accountByUsername, accountIdsByKeyPrefix, endSessions, insertAudit, liveKeyPrefix, updateAccount } from "../db/accounts.js";
import type { Db, Executor } from "../db/database.js";
import { entriesOf } from "../db/ledger.js";
import { latestOrders, orderById, orderVolumeByDay } from "../db/orders.js";
import { topupById } from "../db/topups.js";
import { eventsOfOrder } from "../db/webhook-events.js";
import { transaction } from "../db/transaction.js";
import { type Accounts, findByTelegramId, getAccount, startOfUtcDay, walletAccount } from "./accounts.js";
import type { Account, MarkupProduct } from "./model/account.js";
import { invalid, notFound } from "./model/errors.js";
import { post } from "./ledger.js";
import { BARE_USERNAME_PATTERN } from "./formats.js";
import { formatUsdt, MAX_MICRO, MAX_USDT, type Micro, withinBound, micro } from "./model/money.js";
import type { Clock } from "./model/clock.js";
import type { ConfirmRule } from "./confirm.js";
import type { Outbox } from "./webhooks/outbox.js";

/** An owner key's limits: a number sets one, null removes it, undefined keeps what the key has (none for a new owner key). */
interface OwnerLimits {
  dailyLimitMicro?: Micro | null;
  orderLimitMicro?: Micro | null;
}

/**
 * What administrators do, from the CLI and (later) the bot. `actor` names who did it; every balance change
 * is a ledger entry and every other change an audit entry.
 */
export interface AdminOptions {
  db: Db;
  clock: Clock;
  accounts: Accounts;
  outbox: Outbox;
  /** Money moves above its threshold are refused unless confirmed. */
  confirm: ConfirmRule;
}

/** A money move's extras: the ledger's note, and whether the administrator confirmed it (needed above the threshold). */
interface MoveOptions {
  note?: string;
  confirmed?: boolean;
}

/**
 * How the ledger and the audit name an administrator acting from Telegram (the bot, the Mini App's desk); how the
 * core knows an administrator is acting on their own account. The CLI's operator is `cli:<user>`, no account.
 */
export const telegramActor = (telegramId: string) => `tg:${telegramId}`;

/** What the user hears of (the bot tells them, whichever face the administrator used). */
export type AdminNotice =
  { telegramId: string; kind: "credit" | "debit"; amountMicro: Micro; balanceMicro: Micro } | { telegramId: string; kind: "block" | "unblock" };

/** How replies and confirmations name an account: its Telegram id and the @username the bot last saw. */
export const targetLabel = (account: Pick<Account, "telegramId" | "username">) =>
  `${account.telegramId}${account.username ? ` @${account.username}` : ""}`;

/** What the administrators' operations share: the options, and telling the listeners what a user hears of. */
interface AdminContext extends AdminOptions {
  notify(notice: AdminNotice): void;
}

const audit = (ctx: AdminContext, trx: Executor, actor: string, action: string, accountId: number | null, details: object) =>
  insertAudit(trx, { actor, action, accountId, details, at: ctx.clock.now().toISOString() });

async function targetAccount(trx: Executor, telegramId: string): Promise<Account> {
  const account = await findByTelegramId(trx, telegramId);
  if (!account) throw notFound(`No account for Telegram user ${telegramId}: issue a key first`, { rule: "no_account" });
  return account;
}

function positive(amountMicro: number) {
  if (!withinBound(amountMicro) || amountMicro === 0) {
    throw invalid(`The amount must be more than 0 and at most ${MAX_USDT} USDT`, { rule: "amount_bound", maxMicro: MAX_MICRO });
  }
}

/** A move above the threshold not confirmed is refused, whichever face forgot to ask. */
function checkConfirmed(ctx: AdminContext, amountMicro: Micro, confirmed: boolean | undefined) {
  if (ctx.confirm.needed(amountMicro) && !confirmed) {
    const above = formatUsdt(ctx.confirm.aboveMicro);
    throw invalid(`Moves above ${above} USDT need confirming: nothing changed`, { rule: "move_unconfirmed", maxMicro: ctx.confirm.aboveMicro });
  }
}

/**
 * A credit or debit of a standard account. An owner key spends the service wallet: money put on its own
 * balance could never be spent, so it is refused with a pointer to the wallet.
 */
async function adjust(
  ctx: AdminContext,
  telegramId: string,
  amountMicro: Micro,
  kind: "credit" | "debit",
  actor: string,
  { note, confirmed }: MoveOptions,
): Promise<Micro> {
  const { outbox } = ctx;
  positive(Math.abs(amountMicro));
  checkConfirmed(ctx, amountMicro, confirmed);
  const { balance, event } = await transaction(ctx.db, async (trx) => {
    const account = await targetAccount(trx, telegramId);
    if (account.kind === "owner") {
      throw invalid(
        `${telegramId} is an owner key: it spends the service wallet, not a balance of its own; change the wallet instead (wallet <usdt>)`,
        { rule: "owner_key" },
      );
    }
    const after = await post(trx, { accountId: account.id, amountMicro, kind, actor, note, at: ctx.clock.now().toISOString() });
    // The partner's webhook hears of it in the same transaction (the outbox).
    const change = { kind, amountMicro, balanceAfterMicro: after, note: note ?? null };
    return { balance: after, event: await outbox.balanceChanged(trx, account.id, change) };
  });
  if (event) outbox.committed();
  ctx.notify({ telegramId, kind, amountMicro: micro(Math.abs(amountMicro)), balanceMicro: balance });
  return balance;
}

/**
 * The money moves: a standard account's credit and debit, and the service wallet's amount; each a ledger entry.
 * Above the confirmation threshold each needs `confirmed` (the amount, or the wallet's new amount).
 */
function moneyMoves(ctx: AdminContext) {
  return {
    /** Adds to a standard account's balance; returns the new balance. */
    credit: (telegramId: string, amountMicro: Micro, actor: string, move: MoveOptions = {}) =>
      adjust(ctx, telegramId, amountMicro, "credit", actor, move),

    /** Takes from a balance; refuses to go below zero. */
    debit: (telegramId: string, amountMicro: Micro, actor: string, move: MoveOptions = {}) => {
      positive(amountMicro);
      return adjust(ctx, telegramId, micro(-amountMicro), "debit", actor, move);
    },

    /** Sets the service wallet to an amount, as one adjustment entry of the difference. */
    async setWallet(amountMicro: Micro, actor: string, { confirmed }: Pick<MoveOptions, "confirmed"> = {}): Promise<Micro> {
      if (!withinBound(amountMicro))
        throw invalid(`The wallet amount must be from 0 to ${MAX_USDT} USDT`, { rule: "amount_bound", maxMicro: MAX_MICRO });
      checkConfirmed(ctx, amountMicro, confirmed);
      return transaction(ctx.db, async (trx) => {
        const wallet = await walletAccount(trx);
        const difference = amountMicro - wallet.balanceMicro;
        if (difference === 0) return amountMicro;
        return post(trx, {
          accountId: wallet.id,
          amountMicro: micro(difference),
          kind: "adjustment",
          actor,
          note: "wallet set",
          at: ctx.clock.now().toISOString(),
        });
      });
    },
  };
}

/** What an account may do and pay: blocked or not, its personal markup, an owner key's limits; each audited. */
function accountStanding(ctx: AdminContext) {
  const { db } = ctx;
  return {
    /**
     * Blocks or unblocks; either way every Mini App session of the account ends (an unblocked user signs in afresh).
     * An administrator cannot block their own account: they would lock themselves out of the bot and the desk.
     */
    async setBlocked(telegramId: string, blocked: boolean, actor: string): Promise<Account> {
      if (blocked && actor === telegramActor(telegramId)) throw invalid("An administrator cannot block their own account", { rule: "self_block" });
      const account = await transaction(db, async (trx) => {
        const found = await targetAccount(trx, telegramId);
        await updateAccount(trx, found.id, { blocked });
        const sessionGeneration = await endSessions(trx, found.id);
        await audit(ctx, trx, actor, blocked ? "block" : "unblock", found.id, {});
        return { ...found, blocked, sessionGeneration };
      });
      ctx.notify({ telegramId, kind: blocked ? "block" : "unblock" });
      return account;
    },

    /** A personal markup in basis points, or null to return to the default. */
    setMarkup(telegramId: string, product: MarkupProduct, basisPoints: number | null, actor: string): Promise<void> {
      if (basisPoints !== null && (!Number.isInteger(basisPoints) || basisPoints < 0 || basisPoints > 10_000)) {
        throw invalid("The markup must be a percentage from 0 to 100", { rule: "markup_range" });
      }
      return transaction(db, async (trx) => {
        const account = await targetAccount(trx, telegramId);
        await updateAccount(trx, account.id, { markup: { product, basisPoints } });
        await audit(ctx, trx, actor, "markup", account.id, { product, basis_points: basisPoints });
      });
    },

    /**
     * Turns an account into an owner key that spends the service wallet, with optional limits. An account
     * holding a balance is refused: that money would sit unused while the key spends the wallet.
     */
    makeOwner(telegramId: string, limits: OwnerLimits, actor: string): Promise<Required<OwnerLimits>> {
      for (const limit of [limits.dailyLimitMicro, limits.orderLimitMicro]) if (limit !== undefined && limit !== null) positive(limit);
      return transaction(db, async (trx) => {
        const account = await targetAccount(trx, telegramId);
        if (account.kind !== "owner" && account.balanceMicro > 0) {
          throw invalid(`Account ${telegramId} still holds a balance: debit it before making it an owner key`, { rule: "holds_balance" });
        }
        const owner = account.kind === "owner";
        const applied = {
          dailyLimitMicro: limits.dailyLimitMicro !== undefined ? limits.dailyLimitMicro : owner ? account.dailyLimitMicro : null,
          orderLimitMicro: limits.orderLimitMicro !== undefined ? limits.orderLimitMicro : owner ? account.orderLimitMicro : null,
        };
        await updateAccount(trx, account.id, { owner: applied });
        await audit(ctx, trx, actor, "owner", account.id, { daily_limit_micro: applied.dailyLimitMicro, order_limit_micro: applied.orderLimitMicro });
        return applied;
      });
    },
  };
}

/** The desk's reads: one account by what an administrator typed, a key's display prefix, the order volume. */
function deskReads(db: Db) {
  return {
    /**
     * Exactly one account, by Telegram user id, by the @username the bot has seen (held by one account at a
     * time), or by its live key's display prefix; else refused: `no_account`, or `ambiguous_target` naming the
     * candidates (a short key prefix that several keys share).
     */
    async resolveTarget(target: string): Promise<Account & { telegramId: string }> {
      let accounts: Account[] = [];
      if (/^\d{1,20}$/.test(target)) accounts = [await findByTelegramId(db, target)].filter((a) => a !== undefined);
      else if (target.startsWith("@") && BARE_USERNAME_PATTERN.test(target.slice(1)))
        accounts = [await accountByUsername(db, target.slice(1))].filter((a) => a !== undefined);
      else if (/^sj_[A-Za-z0-9_-]{4,8}$/.test(target))
        accounts = await Promise.all((await accountIdsByKeyPrefix(db, target)).map((id) => getAccount(db, id)));
      const users = accounts.filter((a): a is Account & { telegramId: string } => a.telegramId !== null);
      if (users.length === 1) return users[0];
      if (!users.length)
        throw notFound(`No account for ${target}: name a Telegram user id, an @username the bot has seen, or a key prefix`, { rule: "no_account" });
      const candidates = users.map(targetLabel);
      throw invalid(`${target} could be any of ${candidates.join(", ")}: name one by its Telegram id`, { rule: "ambiguous_target", candidates });
    },

    keyPrefix: (accountId: number): Promise<string | null> => liveKeyPrefix(db, accountId),

    /**
     * Any account's order as stored (not asked about at its backend), with whose it is, its ledger entries (the
     * charge, a refund) and the webhook events its settling wrote; refused `order_not_found` when there is none.
     */
    async order(orderId: number) {
      const order = await orderById(db, orderId);
      if (!order) throw notFound(`No order #${orderId}`, { reason: "order_not_found" });
      const [owner, entries, events] = await Promise.all([getAccount(db, order.accountId), entriesOf(db, { orderId }), eventsOfOrder(db, orderId)]);
      return { order, owner, entries, events };
    },

    /** The latest orders, newest first, each with whose it is: of one account, or (null) of every account. */
    latestOrders: (accountId: number | null, limit: number) => latestOrders(db, accountId, limit),

    /** Any account's top-up, with whose it is and its ledger entries (its credit, a reversal); refused when there is none. */
    async topup(topupId: number) {
      const topup = await topupById(db, topupId);
      if (!topup) throw notFound(`No top-up #${topupId}`);
      const [owner, entries] = await Promise.all([getAccount(db, topup.accountId), entriesOf(db, { topupId })]);
      return { topup, owner, entries };
    },

    /**
     * Orders and volume by UTC day, product and status over the last `days` days, and today's rows among them
     * (refunds are the failed ones): the bot's /stats and the Mini App's desk, in one read.
     */
    async volume(now: Date, days: number) {
      const rows = await orderVolumeByDay(db, startOfUtcDay(new Date(now.getTime() - (days - 1) * 86_400_000)));
      const today = startOfUtcDay(now).slice(0, 10);
      return { days: rows, today: rows.filter((row) => row.day === today) };
    },
  };
}

export function createAdmin(options: AdminOptions) {
  const listeners: Array<(notice: AdminNotice) => void> = [];
  const notify = (notice: AdminNotice) => {
    for (const listener of listeners) listener(notice);
  };
  const ctx: AdminContext = { ...options, notify };
  return {
    issueKey: (telegramId: string, username?: string | null) => options.accounts.issueKey(telegramId, username),
    /** The confirmation rule the money moves keep: faces ask it before a move, to put the question first. */
    confirm: options.confirm,
    ...moneyMoves(ctx),
    ...accountStanding(ctx),
    ...deskReads(options.db),

    /** Told after a credit, debit, block or unblock took effect on this instance. Must not throw. */
    onNotice(listener: (notice: AdminNotice) => void) {
      listeners.push(listener);
    },
  };
}

export type Admin = ReturnType<typeof createAdmin>;
