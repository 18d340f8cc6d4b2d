import type { Caller } from "./accounts.js";

/**
 * What a gift's text may say (docs/decisions/0028-gift-texts-and-contacts.md). Where the shop's bot sends the gift, its text arrives
 * from the shop, so it must not pass as the shop speaking: it carries the buyer's label, and no one can send a link,
 * a mention, hidden characters or a word of a system notice. Every face reads these rules from here.
 */

/** The label the text Telegram carries starts with: the buyer's account number, which no buyer can choose. */
export const buyerLabel = (accountId: number) => `From customer #${accountId}: `;

/** Whether the caller is a partner's program (an API key), not a person in the bot or the Mini App. */
export const isKeyCaller = (caller: Caller) => caller.actor.startsWith("key:");

/** Invisible and direction-changing characters: controls (line breaks too), bidi controls, zero-width and fillers. */
const INVISIBLE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0e\ufeff\uffa0\ufff9-\ufffb]/u;
/** A zero-width joiner inside an emoji sequence (👨‍👩‍👧) is how emoji are written, not a hidden character. */
const EMOJI_JOINER = /(?<=[\p{Extended_Pictographic}\u{fe0f}\u{1f3fb}-\u{1f3ff}])\u200d(?=\p{Extended_Pictographic})/gu;
/** Look-alike letter forms: fullwidth Latin and the mathematical alphanumerics (𝐏𝐚𝐲). */
const LETTER_FORMS = /[\uff01-\uff5e\u{1d400}-\u{1d7ff}]/u;
/** Links and mentions: a scheme, www., Telegram's own domains, anything shaped like name.tld, an @mention. */
const LINK = /[a-z][a-z0-9+.-]*:\/\/|\bwww\.|\bt\.me\b|\btelegram\.(?:me|dog|org)\b|[\p{L}\p{N}-]\.[a-z]{2,24}\b|xn--|@\w/iu;
/** Scripts whose letters pass for each other: a word mixing two of them (a Cyrillic "а" in "pаypal") is a disguise. */
const SCRIPTS = [/\p{Script=Latin}/u, /\p{Script=Cyrillic}/u, /\p{Script=Greek}/u, /\p{Script=Armenian}/u, /\p{Script=Cherokee}/u];
/** Words of the shop's and Telegram's own notices (stems, English and Russian), matched at a word's start. */
const NOTICE_WORDS = [
  "support",
  "admin",
  "moderator",
  "official",
  "telegram",
  "security",
  "verif",
  "account",
  "balance",
  "password",
  "wallet",
  "frozen",
  "suspend",
  "blocked",
  "login",
  "поддержк",
  "админ",
  "модератор",
  "официальн",
  "телеграм",
  "безопасн",
  "верифи",
  "подтверд",
  "аккаунт",
  "баланс",
  "пароль",
  "кошел",
  "заморож",
  "заблок",
  "логин",
];

const NOTICE = new RegExp(`(?<![\\p{L}\\p{N}])(?:${NOTICE_WORDS.join("|")})`, "iu");

export const GIFT_TEXT_RULES =
  "A gift's text may not hold links, web addresses or @mentions, hidden, look-alike or mixed-alphabet letters, line breaks, or words of the shop's or Telegram's notices (support, admin, account, balance, verify, password, wallet...)";

/** Why a text breaks the rules, or null when it keeps them. */
export function giftTextFault(text: string): string | null {
  if (INVISIBLE.test(text.replace(EMOJI_JOINER, ""))) return "it holds an invisible, line-break or direction character";
  if (LETTER_FORMS.test(text)) return "it holds look-alike letters (fullwidth or mathematical)";
  if (LINK.test(text)) return "it holds a link, a web address or an @mention";
  for (const word of text.match(/[\p{L}\p{M}]+/gu) ?? []) {
    if (SCRIPTS.filter((script) => script.test(word)).length > 1) return `the word "${word}" mixes alphabets`;
  }
  const notice = NOTICE.exec(text);
  if (notice) return `it uses a word of the shop's or Telegram's notices ("${notice[0]}")`;
  return null;
}
