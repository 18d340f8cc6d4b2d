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
