import { sql } from "kysely";
import type { Account, MarkupProduct } from "../core/model/account.js";
import { type Micro, micro } from "../core/model/money.js";
import { compiledOnce } from "./compiled.js";
import { type Executor, isPostgres } from "./database.js";
import type { AccountRow } from "./schema.js";
import type { Trx } from "./transaction.js";

// Accounts and their API keys.

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    kind: row.kind,
    telegramId: row.telegram_id,
    username: row.username,
    balanceMicro: micro(row.balance_micro),
    blocked: row.blocked,
    dailyLimitMicro: row.daily_limit_micro === null ? null : micro(row.daily_limit_micro),
    orderLimitMicro: row.order_limit_micro === null ? null : micro(row.order_limit_micro),
    markupBp: { store: row.markup_store_bp, games: row.markup_games_bp, giftcards: row.markup_giftcards_bp },
    language: row.language,
    telegramLanguage: row.telegram_language ?? null,
    lowBalanceNotice: row.low_balance_notice,
    createdAt: row.created_at,
    sessionGeneration: Number(row.session_generation),
  };
}

const markupColumn = {
  store: "markup_store_bp",
  games: "markup_games_bp",
  giftcards: "markup_giftcards_bp",
} as const;

const accountQuery = compiledOnce(1, (exec, id: number) => exec.selectFrom("accounts").selectAll().where("id", "=", id));

export async function accountById(exec: Executor, id: number): Promise<Account | undefined> {
  const [row] = await accountQuery(exec, id);
  return row && toAccount(row);
}

/** The service wallet, which owner keys spend (the migrations create it). */
export async function walletAccount(exec: Executor): Promise<Account> {
  return toAccount(await exec.selectFrom("accounts").selectAll().where("kind", "=", "wallet").executeTakeFirstOrThrow());
}

export async function accountByTelegramId(exec: Executor, telegramId: string): Promise<Account | undefined> {
  const row = await exec.selectFrom("accounts").selectAll().where("telegram_id", "=", telegramId).executeTakeFirst();
  return row && toAccount(row);
}

/** By the Telegram username the bot has seen, case-insensitively (without the @); one account at most holds it. */
export async function accountByUsername(exec: Executor, username: string): Promise<Account | undefined> {
  const row = await exec
    .selectFrom("accounts")
    .selectAll()
    .where(sql`lower(username)`, "=", username.toLowerCase())
    .executeTakeFirst();
  return row && toAccount(row);
}

/** A username is one account's at a time (a unique index): whoever else held it has let it go. */
async function releaseUsername(exec: Executor, username: string, keeper: number | null): Promise<void> {
  let release = exec
    .updateTable("accounts")
    .set({ username: null })
    .where(sql`lower(username)`, "=", username.toLowerCase());
  if (keeper !== null) release = release.where("id", "!=", keeper);
  await release.execute();
}

export async function insertStandardAccount(exec: Executor, account: { telegramId: string; username: string | null; at: string }): Promise<Account> {
  if (account.username) await releaseUsername(exec, account.username, null);
  const row = await exec
    .insertInto("accounts")
    .values({ kind: "standard", telegram_id: account.telegramId, username: account.username, created_at: account.at })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAccount(row);
}

/** What may change on an account outside the ledger (balances change only through db/ledger.ts). */
export interface AccountChanges {
  username?: string | null;
  language?: string | null;
  telegramLanguage?: string | null;
  lowBalanceNotice?: boolean;
  blocked?: boolean;
  markup?: { product: MarkupProduct; basisPoints: number | null };
  /** Makes it an owner key with these limits. */
  owner?: { dailyLimitMicro: Micro | null; orderLimitMicro: Micro | null };
}

export async function updateAccount(exec: Executor, id: number, changes: AccountChanges): Promise<void> {
  if (changes.username) await releaseUsername(exec, changes.username, id);
  await exec
    .updateTable("accounts")
    .set({
      ...(changes.username === undefined ? {} : { username: changes.username }),
      ...(changes.language === undefined ? {} : { language: changes.language }),
      ...(changes.telegramLanguage === undefined ? {} : { telegram_language: changes.telegramLanguage }),
      ...(changes.lowBalanceNotice === undefined ? {} : { low_balance_notice: changes.lowBalanceNotice }),
      ...(changes.blocked === undefined ? {} : { blocked: changes.blocked }),
      ...(changes.markup ? { [markupColumn[changes.markup.product]]: changes.markup.basisPoints } : {}),
      ...(changes.owner
        ? { kind: "owner" as const, daily_limit_micro: changes.owner.dailyLimitMicro, order_limit_micro: changes.owner.orderLimitMicro }
        : {}),
    })
    .where("id", "=", id)
    .execute();
}

/** Ends every Mini App session of the account (they carry the generation before this one); returns the new generation. */
export async function endSessions(exec: Executor, id: number): Promise<number> {
  const row = await exec
    .updateTable("accounts")
    .set({ session_generation: sql<number>`session_generation + 1` })
    .where("id", "=", id)
    .returning("session_generation")
    .executeTakeFirstOrThrow();
  return Number(row.session_generation);
}

/**
 * Locks the account's row until the transaction ends, so two instances cannot both read-then-write it (an
 * owner's daily limit). SQLite needs nothing: its write transactions already run one at a time (BEGIN IMMEDIATE).
 */
export async function lockAccount(trx: Trx, id: number): Promise<void> {
  if (isPostgres(trx)) await trx.selectFrom("accounts").select("id").where("id", "=", id).forUpdate().execute();
}

/** What the account's orders not failed since `since` were charged: an owner key's spending of the day. */
export async function chargedSince(exec: Executor, accountId: number, since: string): Promise<Micro> {
  const row = await exec
    .selectFrom("orders")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("charge_micro"), eb.lit(0)).as("total"))
    .where("account_id", "=", accountId)
    .where("status", "!=", "failed")
    .where("created_at", ">=", since)
    .executeTakeFirstOrThrow();
  return micro(row.total);
}

/** An administrator's change, for the audit log. */
export async function insertAudit(
  exec: Executor,
  entry: { actor: string; action: string; accountId: number | null; details: object; at: string },
): Promise<void> {
  await exec
    .insertInto("audit_log")
    .values({ actor: entry.actor, action: entry.action, account_id: entry.accountId, details: JSON.stringify(entry.details), created_at: entry.at })
    .execute();
}

// ---- API keys ---------------------------------------------------------------------------------------

/**
 * The key with this hash and its account, in one indexed read (this runs on every request): the live key, or a
 * replaced one still in its grace period at `now` (the database's clock, as the core reads it).
 */
const keyHolderQuery = compiledOnce(2, (exec, keyHash: string, now: string) =>
  exec
    .selectFrom("api_keys")
    .innerJoin("accounts", "accounts.id", "api_keys.account_id")
    .selectAll("accounts")
    .select(["api_keys.id as key_id", "api_keys.key_hash", "api_keys.grace_until"])
    .where("api_keys.key_hash", "=", keyHash)
    .where((eb) => eb.or([eb("api_keys.revoked_at", "is", null), eb("api_keys.grace_until", ">", now)])),
);

export interface KeyHolder {
  keyId: number;
  keyHash: string;
  /** A replaced key's end (its grace period's); null for the live key. */
  graceUntil: string | null;
  account: Account;
}

export async function keyHolder(exec: Executor, keyHash: string, now: string): Promise<KeyHolder | undefined> {
  const [row] = await keyHolderQuery(exec, keyHash, now);
  return row && { keyId: row.key_id, keyHash: row.key_hash, graceUntil: row.grace_until, account: toAccount(row) };
}

/**
 * Revokes the account's live key, which answers on until `graceUntil` when given (a replaced key in grace keeps
 * its own end), then stores the new one.
 */
export async function replaceKey(
  exec: Executor,
  accountId: number,
  key: { hash: string; displayPrefix: string; at: string; graceUntil?: string | null },
): Promise<void> {
  await exec
    .updateTable("api_keys")
    .set({ revoked_at: key.at, grace_until: key.graceUntil ?? null })
    .where("account_id", "=", accountId)
    .where("revoked_at", "is", null)
    .execute();
  await exec
    .insertInto("api_keys")
    .values({ account_id: accountId, key_hash: key.hash, display_prefix: key.displayPrefix, created_at: key.at })
    .execute();
}

/** The account's replaced keys still in their grace period at `now`, the soonest to end first. */
export async function keysInGrace(exec: Executor, accountId: number, now: string): Promise<Array<{ displayPrefix: string; graceUntil: string }>> {
  const rows = await exec
    .selectFrom("api_keys")
    .select(["display_prefix", "grace_until"])
    .where("account_id", "=", accountId)
    .where("revoked_at", "is not", null)
    .where("grace_until", ">", now)
    .orderBy("grace_until")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({ displayPrefix: row.display_prefix, graceUntil: row.grace_until! }));
}

/** Ends the grace period of every replaced key of the account now; returns how many were still answering. */
export async function endKeyGrace(exec: Executor, accountId: number, now: string): Promise<number> {
  const result = await exec
    .updateTable("api_keys")
    .set({ grace_until: now })
    .where("account_id", "=", accountId)
    .where("revoked_at", "is not", null)
    .where("grace_until", ">", now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The accounts whose live key's display prefix starts with `prefix`. */
export async function accountIdsByKeyPrefix(exec: Executor, prefix: string): Promise<number[]> {
  const keys = await exec
    .selectFrom("api_keys")
    .select("account_id")
    .where("display_prefix", "like", `${prefix}%`)
    .where("revoked_at", "is", null)
    .execute();
  return keys.map((key) => key.account_id);
}

/** The display prefix of the account's live key, or null. */
export async function liveKeyPrefix(exec: Executor, accountId: number): Promise<string | null> {
  const row = await exec
    .selectFrom("api_keys")
    .select("display_prefix")
    .where("account_id", "=", accountId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row?.display_prefix ?? null;
}
