import type { Db } from "../db/database.js";
import { accountByUsername } from "../db/accounts.js";
import { contactByUsername, deleteContact, noteContact } from "../db/telegram-contacts.js";
import type { Clock } from "./model/clock.js";
import type { TelegramContact, TelegramUser } from "./model/contact.js";

/** A known contact's row is written again after this long even unchanged, so `seen_at` says who holds a name now. */
const REFRESH_AFTER_MS = 24 * 60 * 60_000;
/** Users noted lately, remembered in memory so their next updates cost no read at all. */
const REMEMBERED_MAX = 10_000;

export interface ContactsOptions {
  db: Db;
  clock: Clock;
  /** Whether users are noted at all: only while a Telegram backend (gifts or Premium) needs their ids. */
  recording: boolean;
  /** The administrators' Telegram ids (ADMIN_TELEGRAM_IDS). */
  admins: readonly number[];
  /** Whether administrators may receive gifts and Premium (GIFTS_TO_ADMINS); off, they are unknown recipients. */
  adminsReceive: boolean;
}

/**
 * The users the bot knows: the Bot API addresses a user by numeric id, never by @username (T3 in
 * docs/providers/telegram-bot-api.md), so the Telegram backend finds a recipient's id here.
 */
export function createContacts({ db, clock, recording, admins, adminsReceive }: ContactsOptions) {
  // Telegram id → what was last written for them and when: an unchanged user inside the refresh window is skipped.
  const remembered = new Map<string, { fingerprint: string; at: number }>();
  const adminIds = new Set(admins.map(String));

  return {
    /** Keeps the user as this update shows them; writes only when something changed. Nothing without a Telegram backend. */
    async note(user: TelegramUser): Promise<void> {
      if (!recording) return;
      const now = clock.now();
      const contact: TelegramContact = {
        telegramId: String(user.id),
        username: user.username || null,
        firstName: user.first_name,
        lastName: user.last_name || null,
        isPremium: user.is_premium === true,
        seenAt: now.toISOString(),
      };
      const fingerprint = JSON.stringify([contact.username, contact.firstName, contact.lastName, contact.isPremium]);
      const known = remembered.get(contact.telegramId);
      if (known && known.fingerprint === fingerprint && now.getTime() - known.at < REFRESH_AFTER_MS) return;
      await noteContact(db, contact, REFRESH_AFTER_MS);
      remembered.delete(contact.telegramId);
      if (remembered.size >= REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
      remembered.set(contact.telegramId, { fingerprint, at: now.getTime() });
    },
    /** The most recently seen user holding `username` (case-insensitive, the @ optional), or null. */
    find: (username: string): Promise<TelegramContact | null> => contactByUsername(db, username),
    /** Removes what the bot keeps of this user (they blocked it or sent /forget); returns what it kept, or null. */
    async forget(telegramId: string): Promise<TelegramContact | null> {
      // Forgotten here, noted again on their next update: the memory must not skip that write.
      remembered.delete(telegramId);
      return deleteContact(db, telegramId);
    },
    /**
     * Whether `username` is an administrator and administrators receive nothing (the default): by the contact or
     * the account holding the name. Asked before a gift's or Premium's charge; such a recipient is "unknown".
     */
    async barred(username: string): Promise<boolean> {
      if (adminsReceive || adminIds.size === 0) return false;
      const contact = await contactByUsername(db, username);
      if (contact && adminIds.has(contact.telegramId)) return true;
      const account = await accountByUsername(db, username.replace(/^@/, ""));
      return account?.telegramId != null && adminIds.has(account.telegramId);
    },
    /**
     * Whether the recipient the backend resolved (its Telegram id) is an administrator no one may send to: asked
     * again after the backend's lookup, so an administrator whose name was not yet on file when `barred` was asked
     * (they wrote to the bot that moment) is not sent to either.
     */
    barredId: (telegramId: string): boolean => !adminsReceive && adminIds.has(telegramId),
  };
}

export type Contacts = ReturnType<typeof createContacts>;
