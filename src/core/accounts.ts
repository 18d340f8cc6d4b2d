import type { Db, Executor } from "../db/database.js";
import type { AccountRow } from "../db/schema.js";
import { DomainError, notFound } from "./errors.js";
import { generateKey, hashKey, looksLikeKey, sameDigest } from "./keys.js";
import type { MarkupProduct } from "./markup.js";
import type { Micro } from "./money.js";
import type { Clock } from "./ports.js";

/** An account as the faces see it: plain data, money in micro-USDT, flags as booleans. */
export interface Account {
  id: number;
  /** `standard` spends its own balance; `owner` spends the service wallet; `wallet` is that one wallet. */
  kind: "standard" | "owner" | "wallet";
  telegramId: string | null;
  username: string | null;
  balanceMicro: Micro;
  blocked: boolean;
  dailyLimitMicro: Micro | null;
  orderLimitMicro: Micro | null;
  /** Personal markups in basis points; null follows the default. */
  markupBp: Record<MarkupProduct, number | null>;
  /** Bot language chosen with /language; null follows the user's Telegram language. */
  language: string | null;
  /** Whether the bot tells the user when a purchase takes the balance below the low-balance line. */
  lowBalanceNotice: boolean;
  createdAt: string;
}

const orNull = (value: number | null) => (value === null ? null : Number(value));

export function toAccount(row: AccountRow): Account {
  return {
    id: Number(row.id),
    kind: row.kind,
    telegramId: row.telegram_id,
    username: row.username,
    balanceMicro: Number(row.balance_micro),
    blocked: row.blocked,
    dailyLimitMicro: orNull(row.daily_limit_micro),
    orderLimitMicro: orNull(row.order_limit_micro),
    markupBp: { store: orNull(row.markup_store_bp), games: orNull(row.markup_games_bp), giftcards: orNull(row.markup_giftcards_bp) },
    language: row.language,
    lowBalanceNotice: row.low_balance_notice,
    createdAt: row.created_at,
  };
}

/** Who is buying: the account, and how the ledger names the hand that placed the order. */
export interface Caller {
  account: Account;
  /** `key:<id>` for the API, `bot:<telegram id>` for the bot. */
  actor: string;
}

export interface IssuedKey {
  /** Shown once to its owner, never stored or logged. */
  key: string;
  displayPrefix: string;
  account: Account;
  created: boolean;
}

export async function getAccount(db: Executor, id: number): Promise<Account> {
  const row = await db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound(`account ${id} not found`);
  return toAccount(row);
}

export async function walletAccount(db: Executor): Promise<Account> {
  return toAccount(await db.selectFrom("accounts").selectAll().where("kind", "=", "wallet").executeTakeFirstOrThrow());
}

export async function findByTelegramId(db: Executor, telegramId: string): Promise<Account | undefined> {
  const row = await db.selectFrom("accounts").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
  return row && toAccount(row);
}

export function createAccounts(db: Db, clock: Clock) {
  return {
    /**
     * Registers the Telegram user when new and issues a key; any earlier key of the account is revoked in
     * the same transaction, so it answers 401 from the next request on.
     */
    async issueKey(telegramId: string, username?: string | null): Promise<IssuedKey> {
      const at = clock.now().toISOString();
      const fresh = generateKey();
      return db.transaction().execute(async (trx) => {
        let account = await findByTelegramId(trx, telegramId);
        const created = !account;
        if (!account) {
          account = toAccount(
            await trx
              .insertInto("accounts")
              .values({ kind: "standard", telegram_id: telegramId, username: username ?? null, created_at: at })
              .returningAll()
              .executeTakeFirstOrThrow(),
          );
        } else if (username && username !== account.username) {
          await trx.updateTable("accounts").set({ username }).where("id", "=", account.id).execute();
          account = { ...account, username };
        }
        await trx.updateTable("api_keys").set({ revoked_at: at }).where("account_id", "=", account.id).where("revoked_at", "is", null).execute();
        await trx
          .insertInto("api_keys")
          .values({ account_id: account.id, key_hash: fresh.hash, display_prefix: fresh.displayPrefix, created_at: at })
          .execute();
        return { key: fresh.key, displayPrefix: fresh.displayPrefix, account, created };
      });
    },

    /** Resolves a presented key to its account: 401 when unknown or revoked, 403 when the account is blocked. */
    async authenticate(presented: string | undefined): Promise<Caller> {
      if (!presented) throw new DomainError("unauthorized", "API key missing: send X-API-Key or Authorization: Bearer");
      const wrong = () => new DomainError("unauthorized", "API key is not valid");
      if (!looksLikeKey(presented)) throw wrong();
      const hash = hashKey(presented);
      // The key and its account in one indexed read: this runs on every request.
      const row = await db
        .selectFrom("api_keys")
        .innerJoin("accounts", "accounts.id", "api_keys.account_id")
        .selectAll("accounts")
        .select(["api_keys.id as key_id", "api_keys.key_hash"])
        .where("api_keys.key_hash", "=", hash)
        .where("api_keys.revoked_at", "is", null)
        .executeTakeFirst();
      if (!row || !sameDigest(row.key_hash, hash)) throw wrong();
      const account = toAccount(row);
      if (account.blocked) throw new DomainError("key_blocked", "API key is blocked: contact support");
      return { account, actor: `key:${row.key_id}` };
    },

    get: (id: number) => getAccount(db, id),
    byTelegramId: (telegramId: string) => findByTelegramId(db, telegramId),

    /** The bot's caller for a Telegram user, or undefined when the user has no account yet. */
    async botCaller(telegramId: string): Promise<Caller | undefined> {
      const account = await findByTelegramId(db, telegramId);
      return account && { account, actor: `bot:${telegramId}` };
    },

    /** Remembers the Telegram username the bot last saw, for admin targets (@username) and search's "myself". */
    async noteProfile(accountId: number, username: string | null): Promise<void> {
      await db.updateTable("accounts").set({ username }).where("id", "=", accountId).execute();
    },

    async setLanguage(accountId: number, language: string | null): Promise<void> {
      await db.updateTable("accounts").set({ language }).where("id", "=", accountId).execute();
    },

    async setLowBalanceNotice(accountId: number, on: boolean): Promise<void> {
      await db.updateTable("accounts").set({ low_balance_notice: on }).where("id", "=", accountId).execute();
    },

    /** What the caller can spend now (see `spendable`); `account` is this request's own read of it. */
    balance: (account: Account) => spendable(db, account, clock.now(), false),

    /** Just the amount of `balance`: what every "balance after" shows. */
    available: async (account: Account): Promise<Micro> => (await spendable(db, account, clock.now())).availableMicro,
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
}

/**
 * Where a caller's purchases are paid from and how much is available. Inside the purchase transaction the
 * account is read afresh; `reread = false` takes `account` as read a moment ago (a balance shown to its owner).
 */
export async function spendable(trx: Executor, account: Account, now: Date, reread = true): Promise<Spendable> {
  if (account.kind !== "owner") {
    const fresh = reread ? await getAccount(trx, account.id) : account;
    return { availableMicro: fresh.balanceMicro, unlimited: false, fundingAccountId: fresh.id, orderLimitMicro: null };
  }
  const owner = reread ? await getAccount(trx, account.id) : account;
  const wallet = await walletAccount(trx);
  let available = wallet.balanceMicro;
  if (owner.dailyLimitMicro !== null) {
    const spent = await trx
      .selectFrom("orders")
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("charge_micro"), eb.lit(0)).as("total"))
      .where("account_id", "=", owner.id)
      .where("status", "!=", "failed")
      .where("created_at", ">=", startOfUtcDay(now))
      .executeTakeFirstOrThrow();
    available = Math.min(available, Math.max(0, owner.dailyLimitMicro - Number(spent.total)));
  }
  return {
    availableMicro: available,
    unlimited: true,
    fundingAccountId: wallet.id,
    orderLimitMicro: owner.orderLimitMicro,
  };
}
