import type { Micro } from "./money.js";

/** The product groups an administrator can give a personal markup. */
export const MARKUP_PRODUCTS = ["store", "games", "giftcards"] as const;
export type MarkupProduct = (typeof MARKUP_PRODUCTS)[number];

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
  /** The language Telegram last reported for the user (its language_code); what they read until they choose one. */
  telegramLanguage: string | null;
  /** Whether the bot tells the user when a purchase takes the balance below the low-balance line. */
  lowBalanceNotice: boolean;
  createdAt: string;
  /** The Mini App's sessions carry it; a key rotation, a block and an unblock bump it, ending every older session. */
  sessionGeneration: number;
}

/** What a request reads first besides its key, read with it: its order of an id (a status), or whether it has a webhook endpoint (a sandbox call). */
export type ReadWithKey = { orderId: number } | { endpoint: true };

/** The longest a replaced API key may keep working beside its successor: 7 days (decision 0033). */
export const KEY_GRACE_MAX_HOURS = 168;
/** The grace periods the bot and the Mini App offer when a key is replaced, in hours (0: it stops at once). */
export const KEY_GRACE_CHOICES_HOURS = [0, 1, 24, 168] as const;

/** A replaced key still answering, and until when. */
export interface KeyInGrace {
  displayPrefix: string;
  /** When it stops answering (ISO 8601 UTC). */
  expiresAt: string;
}
