import type { Selectable } from "kysely";
import type { TelegramContact } from "../core/model/contact.js";
import type { Executor } from "./database.js";
import type { Database } from "./schema.js";

type Row = Selectable<Database["telegram_contacts"]>;

const contactOf = (row: Row): TelegramContact => ({
  telegramId: row.telegram_id,
  username: row.username,
  firstName: row.first_name,
  lastName: row.last_name,
  isPremium: row.is_premium,
  seenAt: row.seen_at,
});

/** A username as lookups compare it: without the @, lower-cased (Telegram usernames are case-insensitive). */
const usernameKey = (username: string) => username.replace(/^@/, "").toLowerCase();

/**
 * Keeps a contact as `contact` shows them. Reads first and writes only when a field changed or the row's `seen_at`
 * is older than `refreshAfterMs`: most updates come from users already known as they are, and a read takes no
 * write lock (SQLite has one writer). Returns whether it wrote.
 */
export async function noteContact(db: Executor, contact: TelegramContact, refreshAfterMs: number): Promise<boolean> {
  const row = await db.selectFrom("telegram_contacts").selectAll().where("telegram_id", "=", contact.telegramId).executeTakeFirst();
  if (row) {
    const same =
      row.username === contact.username &&
      row.first_name === contact.firstName &&
      row.last_name === contact.lastName &&
      row.is_premium === contact.isPremium &&
      Date.parse(contact.seenAt) - Date.parse(row.seen_at) < refreshAfterMs;
    if (same) return false;
  }
  const values = {
    telegram_id: contact.telegramId,
    username: contact.username,
    username_lower: contact.username === null ? null : usernameKey(contact.username),
    first_name: contact.firstName,
    last_name: contact.lastName,
    is_premium: contact.isPremium,
    seen_at: contact.seenAt,
  };
  const { telegram_id: _id, ...changed } = values;
  await db
    .insertInto("telegram_contacts")
    .values(values)
    .onConflict((oc) => oc.column("telegram_id").doUpdateSet(changed))
    .execute();
  return true;
}

/** The most recently seen contact holding `username` (case-insensitive, with or without the @), or null. */
export async function contactByUsername(db: Executor, username: string): Promise<TelegramContact | null> {
  const key = usernameKey(username);
  if (!key) return null;
  const row = await db
    .selectFrom("telegram_contacts")
    .selectAll()
    .where("username_lower", "=", key)
    .orderBy("seen_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row ? contactOf(row) : null;
}

/** What Telegram shows a contact's username to be now (null: none), where the row still had an older one. */
export async function correctContactUsername(db: Executor, telegramId: string, username: string | null): Promise<void> {
  await db
    .updateTable("telegram_contacts")
    .set({ username, username_lower: username === null ? null : usernameKey(username) })
    .where("telegram_id", "=", telegramId)
    .execute();
}

/** Removes the contact of `telegramId` (the user blocked the bot or sent /forget); returns what was kept, or null. */
export async function deleteContact(db: Executor, telegramId: string): Promise<TelegramContact | null> {
  const row = await db.deleteFrom("telegram_contacts").where("telegram_id", "=", telegramId).returningAll().executeTakeFirst();
  return row ? contactOf(row) : null;
}

/** Removes every contact not seen since `before` (ISO 8601); returns how many went. */
export async function purgeContacts(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom("telegram_contacts").where("seen_at", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
