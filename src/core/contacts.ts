import type { Db } from "../db/database.js";
import { contactByUsername, noteContact } from "../db/telegram-contacts.js";
import type { Clock } from "./model/clock.js";
import type { TelegramContact, TelegramUser } from "./model/contact.js";

/** A known contact's row is written again after this long even unchanged, so `seen_at` says who holds a name now. */
const REFRESH_AFTER_MS = 24 * 60 * 60_000;
/** Users noted lately, remembered in memory so their next updates cost no read at all. */
const REMEMBERED_MAX = 10_000;

/**
 * The users the bot knows: the Bot API addresses a user by numeric id, never by @username (T3 in
 * docs/providers/telegram-bot-api.md), so the Telegram backend finds a recipient's id here.
 */
export function createContacts({ db, clock }: { db: Db; clock: Clock }) {
  // Telegram id → what was last written for them and when: an unchanged user inside the refresh window is skipped.
  const remembered = new Map<string, { fingerprint: string; at: number }>();

  return {
    /** Keeps the user as this update shows them; writes only when something changed. */
    async note(user: TelegramUser): Promise<void> {
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
  };
}
