import {
  accountById,
  accountByTelegramId,
  chargedSince,
  endKeyGrace,
  endSessions,
  insertStandardAccount,
  keysInGrace,
  keyHolder,
  type KeyHolder,
  liveKeyPrefix,
  replaceKey,
  updateAccount,
  walletAccount,
} from "../db/accounts.js";
import type { Db, Executor } from "../db/database.js";
import { type Account, KEY_GRACE_MAX_HOURS, type KeyInGrace, type ReadWithKey } from "./model/account.js";
import { transaction } from "../db/transaction.js";
import { DomainError, invalid, notFound } from "./model/errors.js";
import { generateKey, hashKey, looksLikeKey, sameDigest } from "./keys.js";
import { micro, type Micro } from "./model/money.js";
import type { Clock } from "./model/clock.js";
import type { Order } from "./model/products.js";
import type { RequestCounter, WindowCount } from "./request-counter.js";

/** Who is buying: the account, and how the ledger names the hand that placed the order. */
export interface Caller {
  account: Account;
  /** `key:<id>` for the API, `bot:<telegram id>` for the bot. */
  actor: string;
  /** The account was read for this request (its key or session checked just now), not kept from earlier. */
  fresh?: boolean;
  /**
   * The order this request asks about, read with the key in the same round trip (PostgreSQL; see authenticate):
   * undefined when the account has no order of that id.
   */
  ownOrder?: { id: number; order: Order | undefined };
  /** Whether the account had a webhook endpoint when its key was read, when read with it likewise (a sandbox call). */
  hasEndpoint?: boolean;
  /** The request came with a replaced key in its grace period: when that key stops answering. */
  keyExpiresAt?: string;
}

export interface IssuedKey {
  /** Shown once to its owner, never stored or logged. */
  key: string;
  displayPrefix: string;
  account: Account;
  created: boolean;
  /** The key it replaced answers until then (the grace chosen); null when that key stopped at once or there was none. */
  previousKeyExpiresAt: string | null;
  /** The replaced key's shown prefix; null when there was none. */
  previousKeyPrefix: string | null;
}

export async function getAccount(db: Executor, id: number): Promise<Account> {
  const account = await accountById(db, id);
  if (!account) throw notFound(`account ${id} not found`);
  return account;
}

export { walletAccount };

/** The languages the service speaks (the bot and the Mini App). */
export const LANGUAGES = ["en", "ru"] as const;
export type Language = (typeof LANGUAGES)[number];

/** A Telegram language code to one we speak: Russian for ru, English otherwise. */
export const speak = (code: string | null | undefined): Language => (code?.toLowerCase().startsWith("ru") ? "ru" : "en");

/** The language an account reads: the one chosen with /language, else the one Telegram last reported. */
export const languageOf = (account: Pick<Account, "language" | "telegramLanguage">): Language => speak(account.language ?? account.telegramLanguage);
export const findByTelegramId = accountByTelegramId;

/** A caller of the API by key, and (when counted with the key's read) this request's count in the key's bucket. */
export type KeyCaller = Caller & { counted: WindowCount | null };

/** Where every instance counts requests (PostgreSQL), and the window. */
type Counting = { counter: RequestCounter; windowMs: number };

/**
 * Registers the Telegram user when new and issues a key; the account's key before it is revoked in the same
 * transaction: it answers 401 from the next request on, or, with `graceHours` (0 to KEY_GRACE_MAX_HOURS), once
 * that grace period has passed by the database's clock (so a partner can switch systems over without downtime).
 * Every Mini App session of the account ends with the rotation (whichever face rotated the key: a session could
 * otherwise outlive the key it stood beside).
 */
async function issueKey(db: Db, clock: Clock, telegramId: string, username?: string | null, graceHours = 0): Promise<IssuedKey> {
  if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > KEY_GRACE_MAX_HOURS) {
    throw invalid(`grace_hours must be a whole number of hours from 0 to ${KEY_GRACE_MAX_HOURS}`);
  }
  const now = clock.now();
  const at = now.toISOString();
  const fresh = generateKey();
  return transaction(db, async (trx) => {
    let account = await findByTelegramId(trx, telegramId);
    const created = !account;
    if (!account) {
      account = await insertStandardAccount(trx, { telegramId, username: username ?? null, at });
    } else if (username && username !== account.username) {
      await updateAccount(trx, account.id, { username });
      account = { ...account, username };
    }
    const previousKeyPrefix = created ? null : await liveKeyPrefix(trx, account.id);
    const graceUntil = previousKeyPrefix !== null && graceHours > 0 ? new Date(now.getTime() + graceHours * 3_600_000).toISOString() : null;
    await replaceKey(trx, account.id, { hash: fresh.hash, displayPrefix: fresh.displayPrefix, at, graceUntil });
    account = { ...account, sessionGeneration: await endSessions(trx, account.id) };
    return { key: fresh.key, displayPrefix: fresh.displayPrefix, account, created, previousKeyExpiresAt: graceUntil, previousKeyPrefix };
  });
}

/**
 * Resolves a presented key to its account: 401 when unknown or revoked (a replaced key: once its grace period has
 * passed), 403 when the account is blocked.
 * `also`: what the request reads first (its order, or whether it has a webhook endpoint); where the key's read
 * is a statement of its own (PostgreSQL, counting), it reads that too, in the same round trip (Caller.ownOrder,
 * hasEndpoint).
 */
async function authenticate(
  db: Db,
  clock: Clock,
  counting: Counting | undefined,
  presented: string | undefined,
  also?: ReadWithKey,
): Promise<KeyCaller> {
  if (!presented) throw new DomainError("unauthorized", "API key missing: send X-API-Key or Authorization: Bearer");
  const wrong = () => new DomainError("unauthorized", "API key is not valid");
  if (!looksLikeKey(presented)) throw wrong();
  const hash = hashKey(presented);
  // The key and its account in one indexed read (and the request's count with it): this runs on every request.
  const holder: (KeyHolder & Pick<Caller, "ownOrder" | "hasEndpoint"> & { counted?: WindowCount | null }) | undefined = counting
    ? await counting.counter.keyHolder(hash, counting.windowMs, also)
    : await keyHolder(db, hash, clock.now().toISOString());
  if (!holder || !sameDigest(holder.keyHash, hash)) throw wrong();
  const { account } = holder;
  if (account.blocked) throw new DomainError("key_blocked", "API key is blocked: contact support");
  const caller: KeyCaller = { account, actor: `key:${holder.keyId}`, fresh: true, counted: holder.counted ?? null };
  if (holder.ownOrder) caller.ownOrder = holder.ownOrder;
  if (holder.hasEndpoint !== undefined) caller.hasEndpoint = holder.hasEndpoint;
  if (holder.graceUntil) caller.keyExpiresAt = holder.graceUntil;
  return caller;
}

/**
 * Accounts and their keys: a key issued (issueKey) and presented (authenticate), a Telegram user registered,
 * their profile and settings noted, and what they can spend. `counting`: a key's read then counts the request
 * in its bucket in the same round trip.
 */
export function createAccounts({ db, clock, counting }: { db: Db; clock: Clock; counting?: Counting }) {
  return {
    issueKey: (telegramId: string, username?: string | null, graceHours?: number) => issueKey(db, clock, telegramId, username, graceHours),

    /** The account's replaced keys still answering (their grace periods), the soonest to end first. */
    async keysInGrace(accountId: number): Promise<KeyInGrace[]> {
      const keys = await keysInGrace(db, accountId, clock.now().toISOString());
      return keys.map((key) => ({ displayPrefix: key.displayPrefix, expiresAt: key.graceUntil }));
    },

    /** Ends every replaced key's grace period now (a leaked key, or the switch done): only the live key answers. */
    endKeyGrace: (accountId: number) => endKeyGrace(db, accountId, clock.now().toISOString()),

    /**
     * The Telegram user's account, registered now if new (as /start registers, without a key: the Mini App
     * signs in by Telegram's init data, and a key is issued in the bot when wanted); their username noted, and the
     * language Telegram reports now (what they read until they choose one with /language; never taken for a choice).
     */
    async register(telegramId: string, username: string | null, telegramLanguage?: string | null): Promise<Account> {
      return transaction(db, async (trx) => {
        const found = await findByTelegramId(trx, telegramId);
        const account = found ?? (await insertStandardAccount(trx, { telegramId, username, at: clock.now().toISOString() }));
        const reported = telegramLanguage ?? account.telegramLanguage;
        if (username !== account.username || reported !== account.telegramLanguage)
          await updateAccount(trx, account.id, { username, telegramLanguage: reported });
        return { ...account, username, telegramLanguage: reported };
      });
    },

    /** The language Telegram reports for the user now (the bot's /start): followed until they choose one. */
    async noteTelegramLanguage(accountId: number, code: string): Promise<void> {
      await updateAccount(db, accountId, { telegramLanguage: code });
    },

    authenticate: (presented: string | undefined, also?: ReadWithKey) => authenticate(db, clock, counting, presented, also),

    get: (id: number) => getAccount(db, id),
    byTelegramId: (telegramId: string) => findByTelegramId(db, telegramId),

    /** The bot's caller for a Telegram user, or undefined when the user has no account yet. */
    async botCaller(telegramId: string): Promise<Caller | undefined> {
      const account = await findByTelegramId(db, telegramId);
      return account && { account, actor: `bot:${telegramId}` };
    },

    /**
     * Remembers the Telegram username the bot last saw, for admin targets (@username) and search's "myself";
     * any other account that held it lets it go, in the same transaction (usernames move between people).
     */
    async noteProfile(accountId: number, username: string | null): Promise<void> {
      await transaction(db, (trx) => updateAccount(trx, accountId, { username }));
    },

    async setLanguage(accountId: number, language: string | null): Promise<void> {
      await updateAccount(db, accountId, { language });
    },

    async setLowBalanceNotice(accountId: number, on: boolean): Promise<void> {
      await updateAccount(db, accountId, { lowBalanceNotice: on });
    },

    /** What the caller can spend now (see `spendable`); `account` is this request's own read of it. */
    balance: (account: Account) => spendable(db, account, clock.now(), false),

    /** Just the amount of `balance`: what every "balance after" shows. */
    available: async (account: Account): Promise<Micro> => (await spendable(db, account, clock.now())).availableMicro,

    /** What the caller can spend now, when nothing this request did has moved the balance (see availableTo). */
    availableTo: (caller: Caller): Promise<Micro> => availableTo(db, caller, clock.now(), true),
  };
}

export type Accounts = ReturnType<typeof createAccounts>;

/** Start of the current UTC day, the window of an owner key's daily limit. */
export function startOfUtcDay(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
}

export interface Spendable {
  /** What the caller can spend now: its balance, or for an owner key the wallet within the daily limit. */
  availableMicro: Micro;
  unlimited: boolean;
  fundingAccountId: number;
  /** Owner keys only: the largest single order allowed. */
  orderLimitMicro: Micro | null;
  /** Owner keys with a daily limit only: what the limit leaves today; null without one. */
  dailyLeftMicro: Micro | null;
}

/**
 * What the caller can spend now: the account as this request read it, when it was read for it (`fresh`) and nothing
 * since has moved its balance (`unmoved`); otherwise read again.
 */
export async function availableTo(exec: Executor, caller: Caller, now: Date, unmoved: boolean): Promise<Micro> {
  return (await spendable(exec, caller.account, now, !(unmoved && caller.fresh === true))).availableMicro;
}

/**
 * Where a caller's purchases are paid from and how much is available. `reread` reads the account afresh (an
 * owner key's, under its lock, in the purchase transaction); `false` takes `account` as read a moment ago (a
 * balance shown to its owner, or a standard account's purchase, whose debit the ledger's guarded update decides).
 */
export async function spendable(trx: Executor, account: Account, now: Date, reread = true): Promise<Spendable> {
  if (account.kind !== "owner") {
    const fresh = reread ? await getAccount(trx, account.id) : account;
    return { availableMicro: fresh.balanceMicro, unlimited: false, fundingAccountId: fresh.id, orderLimitMicro: null, dailyLeftMicro: null };
  }
  const owner = reread ? await getAccount(trx, account.id) : account;
  const wallet = await walletAccount(trx);
  const dailyLeft =
    owner.dailyLimitMicro === null ? null : Math.max(0, owner.dailyLimitMicro - (await chargedSince(trx, owner.id, startOfUtcDay(now))));
  const available = dailyLeft === null ? wallet.balanceMicro : Math.min(wallet.balanceMicro, dailyLeft);
  return {
    availableMicro: micro(available),
    unlimited: true,
    fundingAccountId: wallet.id,
    orderLimitMicro: owner.orderLimitMicro,
    dailyLeftMicro: dailyLeft === null ? null : micro(dailyLeft),
  };
}
