import { invalid } from "./model/errors.js";

/**
 * Every input format of the service, once: lengths, patterns and ranges of what callers type (money bounds are
 * elsewhere). The HTTP schemas, the bot's questions and the core's own checks all read them from here, so the
 * faces cannot disagree.
 */

export const STARS_MIN = 50;
export const STARS_MAX = 10_000;
export const PREMIUM_MONTHS = [3, 6, 12] as const;
export type PremiumMonths = (typeof PREMIUM_MONTHS)[number];

/** A Telegram username's length, as every face takes it (the Mini App reads it from GET /miniapp/forms). */
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 32;
const USERNAME_BODY = `[A-Za-z0-9_]{${USERNAME_MIN},${USERNAME_MAX}}`;
/** A Telegram username: 3 to 32 letters, digits or underscores, with an optional leading @ (group 1: the name). */
export const USERNAME_PATTERN = new RegExp(`^@?(${USERNAME_BODY})$`);
/** A username as Telegram hands it over, without the @ (a Mini App user's own, from the init data). */
export const BARE_USERNAME_PATTERN = new RegExp(`^${USERNAME_BODY}$`);
export const USERNAME_RULE = `${USERNAME_MIN} to ${USERNAME_MAX} letters, digits or underscores, optionally after a leading @`;

/** The username without its @, or null when the text is not one. */
export function parseUsername(text: string): string | null {
  return USERNAME_PATTERN.exec(text.trim())?.[1] ?? null;
}

/** A recipient's username without its @; refused (400) when it breaks the rule. */
export function recipientOf(text: string, field = "username"): string {
  const username = parseUsername(text);
  if (username === null) throw invalid(`${field} must be ${USERNAME_RULE}`);
  return username;
}

export const IDEMPOTENCY_KEY_MAX = 128;
/** No control characters, C0 or C1 (a NUL byte cannot even be stored in PostgreSQL text). */
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/** Characters no one can see or type back: controls, bidi controls, zero-width and other invisible format characters. */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/;
/** In a `u` pattern a paired surrogate is one code point: only an unpaired one is a surrogate still. */
const LONE_SURROGATE = /\p{Cs}/u;
export const IDEMPOTENCY_KEY_RULE = `1 to ${IDEMPOTENCY_KEY_MAX} characters, with no control, bidi, zero-width or unpaired surrogate characters`;

/**
 * An idempotency key as it is compared and stored: NFC-normalised, so a composed and a decomposed "é" are one key;
 * null when it breaks IDEMPOTENCY_KEY_RULE (a lone surrogate, which PostgreSQL would store like another, included).
 */
export function idempotencyKeyOf(key: string): string | null {
  if (LONE_SURROGATE.test(key) || INVISIBLE.test(key)) return null;
  const normal = key.normalize("NFC");
  return normal.length >= 1 && normal.length <= IDEMPOTENCY_KEY_MAX ? normal : null;
}

/** A player ID as the game provider takes it: letters, digits, _ or -, at most 64 characters. */
export const PLAYER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const PLAYER_ID_RULE = "1 to 64 letters, digits, _ or -";
export const SERVER_ID_MAX = 64;

/** A binding quote's id (POST /v1/quotes): `q_` and 24 base64url characters, 144 random bits. */
export const QUOTE_ID_PATTERN = /^q_[A-Za-z0-9_-]{24}$/;
export const QUOTE_ID_RULE = "an id from POST /v1/quotes: q_ and 24 letters, digits, _ or -";

export const GIFT_MESSAGE_MAX = 255;
/** Gift card quantity when an order names none, and the most one order may ask for (the catalogue may allow less). */
export const GIFTCARD_DEFAULT_QUANTITY = 1;
export const GIFTCARD_QUANTITY_MAX = 1000;

/** Store logins: a plain login, or the login inside a custom-id profile link. */
const STORE_LOGIN_PATTERN = /^[A-Za-z0-9_.-]{3,64}$/;
const STORE_LOGIN_LINK = /^(?:https?:\/\/)?[A-Za-z0-9.-]+\/id\/([A-Za-z0-9_.-]{3,64})\/?$/;
const STORE_NUMERIC_LINK = /\/profiles\/\d+\/?$/;

export type LoginCheck = { ok: true; login: string } | { ok: false; why: "email" | "numeric_link" | "pattern" };

/** A plain login or a custom-id profile link becomes the login; e-mail addresses and numeric-id links are refused. */
export function checkStoreLogin(input: string): LoginCheck {
  const text = input.trim();
  if (text.includes("@")) return { ok: false, why: "email" };
  if (STORE_NUMERIC_LINK.test(text)) return { ok: false, why: "numeric_link" };
  const link = STORE_LOGIN_LINK.exec(text);
  if (link) return { ok: true, login: link[1] };
  return STORE_LOGIN_PATTERN.test(text) ? { ok: true, login: text } : { ok: false, why: "pattern" };
}
