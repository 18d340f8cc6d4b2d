import { invalid } from "./errors.js";

/** A Telegram user the bot has seen in a private chat, as their last update showed them (src/db/telegram-contacts.ts). */
export interface TelegramContact {
  telegramId: string;
  username: string | null;
  firstName: string;
  lastName: string | null;
  isPremium: boolean;
  /** When the bot last saw them (ISO 8601). */
  seenAt: string;
}

/** A user as a Telegram update shows them (`User`: `id`, `username?`, `first_name`, `last_name?`, `is_premium?`, T1). */
export interface TelegramUser {
  id: number;
  username?: string;
  first_name: string;
  last_name?: string;
  is_premium?: boolean;
}

/**
 * The one answer for a recipient the bot cannot send to, whatever the reason (never wrote to the bot, forgotten,
 * blocked it, an administrator): telling the reasons apart would tell strangers who uses the bot. Search answers it
 * with 404, purchases with 400; the bot says it in the user's language (`recipient-not-found`).
 */
export const unknownRecipient = (username: string) =>
  `@${username.replace(/^@/, "")} is not a recipient this shop's bot can send to: ask them to open the bot and send /start, then try again`;

/** A purchase's refusal of such a recipient, before the charge (a 400). */
export const unknownRecipientRefusal = (username: string) => invalid(`${unknownRecipient(username)}; nothing was charged`);
