import { gzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import type { AcceptedGiftTypes, ChatFullInfo, File, Gift, MessageEntity, StarAmount, StarTransaction, Sticker, User } from "grammy/types";
import { type EmulatorState, type Handler, fail } from "./state.js";
import { giftLottie } from "../simulator/gifts.js";

/*
 * The bot's Telegram Stars and what it buys with them: getMyStarBalance, getAvailableGifts, sendGift,
 * giftPremiumSubscription, getStarTransactions, and getFile with the file download for the gifts' stickers. Every
 * shape and refusal follows docs/providers/telegram-bot-api.md, and each comment names the source it took there:
 * T1 the Bot API reference (https://core.telegram.org/bots/api), T3 the Bot API server's source, T4 TDLib's, T5 the
 * MTProto method pages, T6 grammY's types, T7 the stickers page, T8 tests against the live Bot API. A refusal no
 * published source states is marked UNCONFIRMED where it is thrown.
 */

/** What a user received from the bot, kept so a test can see it. */
export type ReceivedGift = {
  date: number;
  star_count: number;
  text?: string;
  text_parse_mode?: string;
  text_entities?: MessageEntity[];
} & ({ type: "gift"; gift_id: string; pay_for_upgrade: boolean } | { type: "premium"; month_count: number });

type CatalogueGift = { id: string; emoji: string; star_count: number; upgrade_star_count?: number; total_count?: number; remaining_count?: number };
type StickerFile = { sticker: Sticker; file: File; bytes: Buffer };

// Gift ids are 64-bit numbers written as decimal strings (T3 JsonGift). The last two are limited.
const CATALOGUE: CatalogueGift[] = [
  { id: "5170145012310081615", emoji: "💝", star_count: 15 },
  { id: "5170233102089322756", emoji: "🧸", star_count: 15 },
  { id: "5168103777563050263", emoji: "🌹", star_count: 25 },
  { id: "6028601630662853006", emoji: "🍾", star_count: 50 },
  { id: "5170521118301225164", emoji: "💎", star_count: 100 },
  { id: "5782984811920491178", emoji: "🎄", star_count: 100, upgrade_star_count: 25, total_count: 500, remaining_count: 3 },
  { id: "5999277561060787166", emoji: "🎃", star_count: 350, upgrade_star_count: 50, total_count: 1000, remaining_count: 1000 },
];

/** Premium gifted for Stars: the month counts and their fixed prices (T1 giftPremiumSubscription; T6 types). */
const PREMIUM_STARS: Record<number, number> = { 3: 1000, 6: 1500, 12: 2500 };
/** The entity types kept in a gift's text (T1 sendGift.text_parse_mode). */
const GIFT_TEXT_ENTITIES = new Set(["bold", "italic", "underline", "strikethrough", "spoiler", "custom_emoji", "date_time"]);
/** A user who set nothing accepts every class of gift. */
export const ALL_GIFTS: AcceptedGiftTypes = {
  unlimited_gifts: true,
  limited_gifts: true,
  unique_gifts: true,
  premium_subscription: true,
  gifts_from_channels: true,
};

/** An animated sticker's bytes: TGS, "a gzipped bodymovin JSON file" (T7), the simulator's gift animation. */
const tgs = (id: string): Buffer => gzipSync(JSON.stringify(giftLottie(id)));

/** The gift's sticker and its file: an animated (TGS) 512×512 sticker, as T1's Sticker and File describe them. */
function stickerFile(gift: CatalogueGift, index: number): StickerFile {
  const bytes = tgs(gift.id);
  const ids = { file_id: `CAACAgIAAxUAAWgift${gift.id}`, file_unique_id: `AgADgift${index + 1}`, file_size: bytes.length };
  const sticker: Sticker = {
    ...ids,
    width: 512,
    height: 512,
    emoji: gift.emoji,
    is_animated: true,
    is_video: false,
    // UNCONFIRMED: no document says which type a gift's sticker has; is_animated is what tells its format (T1).
    type: "custom_emoji",
    custom_emoji_id: gift.id,
  };
  // UNCONFIRMED: the ".tgs" extension of the path (the notes' "Getting the gift sticker").
  return { sticker, file: { ...ids, file_path: `stickers/file_${index + 1}.tgs` }, bytes };
}

/** The bot's Star balance, the gift catalogue with its stock, what each user received, and the bot's transactions. */
export function createStarsAndGifts() {
  const gifts = CATALOGUE.map((gift) => ({ ...gift }));
  const stickers = new Map(gifts.map((gift, index) => [gift.id, stickerFile(gift, index)]));
  return {
    balance: { amount: 0, nanostar_amount: 0 },
    gifts,
    stickers,
    /** A user's privacy: the gift classes they accept (every class unless set). */
    accepted: new Map<number, AcceptedGiftTypes>(),
    received: new Map<number, ReceivedGift[]>(),
    transactions: [] as StarTransaction[],
  };
}

export type StarsAndGifts = ReturnType<typeof createStarsAndGifts>;

const now = () => Math.floor(Date.now() / 1000);
const limited = (gift: CatalogueGift) => gift.total_count !== undefined;

/** A catalogue gift as the Bot API shows it (T1 Gift; T3 JsonGift writes the counts only for a limited gift). */
function asGift(gift: CatalogueGift, sticker: Sticker): Gift {
  return {
    id: gift.id,
    sticker,
    star_count: gift.star_count,
    ...(gift.upgrade_star_count ? { upgrade_star_count: gift.upgrade_star_count } : {}),
    ...(limited(gift) ? { total_count: gift.total_count, remaining_count: gift.remaining_count } : {}),
  };
}

/** A text the bot attaches (T3 get_formatted_text, then T1's 0–128 characters and its entity filter). */
function giftText(p: Record<string, any>): Pick<ReceivedGift, "text" | "text_parse_mode" | "text_entities"> {
  const text = p.text === undefined ? "" : String(p.text);
  const parseMode = p.text_parse_mode === undefined ? "" : String(p.text_parse_mode);
  if (text && parseMode && !["markdown", "markdownv2", "html", "none"].includes(parseMode.toLowerCase())) {
    throw fail(400, "Bad Request: unsupported parse_mode");
  }
  // UNCONFIRMED: the refusal of a text over 128 characters (TDLib's "Text is too long", lower-cased by T3's rule).
  if (text.length > 128) throw fail(400, "Bad Request: text is too long");
  if (!text) return {};
  const entities = (typeof p.text_entities === "string" ? JSON.parse(p.text_entities) : p.text_entities) as MessageEntity[] | undefined;
  const kept = entities?.filter((entity) => GIFT_TEXT_ENTITIES.has(entity.type));
  return { text, ...(parseMode ? { text_parse_mode: parseMode } : {}), ...(kept?.length ? { text_entities: kept } : {}) };
}

/**
 * The methods (and getChat, to check a recipient before paying). A recipient must be a user the bot knows (one who
 * has sent it an update): an unknown `user_id` is "user not found", a `chat_id` that is no known user (an @username
 * included) is "chat not found" (T3).
 */
export function starsAndGiftsMethods(state: EmulatorState, shop: StarsAndGifts): Record<string, Handler> {
  const sticker = (gift: CatalogueGift) => shop.stickers.get(gift.id)!.sticker;

  /** T3 get_user_id, then check_user. */
  function knownUser(value: unknown): User {
    const id = Math.max(Math.trunc(Number(value)) || 0, 0);
    if (id === 0) throw fail(400, "Bad Request: invalid user_id specified");
    const user = state.users.get(id);
    if (!user) throw fail(400, "Bad Request: user not found");
    return user;
  }

  /** sendGift's recipient: chat_id when given (T3 check_chat), else user_id. */
  function recipient(p: Record<string, any>): User {
    if (p.chat_id === undefined || p.chat_id === "") return knownUser(p.user_id);
    const user = /^-?\d+$/.test(String(p.chat_id)) ? state.users.get(Number(p.chat_id)) : undefined;
    if (!user) throw fail(400, "Bad Request: chat not found");
    return user;
  }

  /** Takes `stars` from the balance, or refuses as Telegram does when it is short (T8 live tests, T5). */
  function debit(stars: number) {
    if (shop.balance.amount < stars) throw fail(400, "Bad Request: BALANCE_TOO_LOW");
    shop.balance.amount -= stars;
  }

  function record(user: User, gift: ReceivedGift, receiver: StarTransaction["receiver"]) {
    shop.received.set(user.id, [...(shop.received.get(user.id) ?? []), gift]);
    // T1 StarTransaction: an outgoing one has a positive amount and a receiver (T3 JsonStarTransaction).
    shop.transactions.push({ id: `emulated-${shop.transactions.length + 1}`, amount: gift.star_count, date: gift.date, receiver });
  }

  return {
    // T1 getMyStarBalance → StarAmount; nanostar_amount omitted when 0 (T3 JsonStarAmount).
    getMyStarBalance: (): StarAmount => ({
      amount: shop.balance.amount,
      ...(shop.balance.nanostar_amount ? { nanostar_amount: shop.balance.nanostar_amount } : {}),
    }),

    // T1 getAvailableGifts → Gifts. T4: a bot is not shown a sold-out gift (UNCONFIRMED for current TDLib).
    getAvailableGifts: () => ({ gifts: shop.gifts.filter((gift) => gift.remaining_count !== 0).map((gift) => asGift(gift, sticker(gift))) }),

    // T1 sendGift → True; refusals in the order T3 then TDLib meet them (T3, T4, T5).
    sendGift(p) {
      const text = giftText(p);
      const user = recipient(p);
      const gift = shop.gifts.find((g) => g.id === String(p.gift_id ?? ""));
      // UNCONFIRMED: the Bot API's text for an unknown gift (MTProto's STARGIFT_INVALID, T5).
      if (!gift) throw fail(400, "Bad Request: STARGIFT_INVALID");
      const accepts = shop.accepted.get(user.id) ?? ALL_GIFTS;
      // Derived (T5's 403 turned 400 by T3): the recipient's privacy refuses this class of gift.
      if (!(limited(gift) ? accepts.limited_gifts : accepts.unlimited_gifts)) throw fail(400, "Bad Request: USER_DISALLOWED_STARGIFTS");
      if (gift.remaining_count === 0) throw fail(400, "Bad Request: STARGIFT_USAGE_LIMITED");
      const payForUpgrade = p.pay_for_upgrade === true || p.pay_for_upgrade === "true";
      const stars = gift.star_count + (payForUpgrade ? (gift.upgrade_star_count ?? 0) : 0);
      debit(stars);
      if (gift.remaining_count !== undefined) gift.remaining_count -= 1;
      const sent: ReceivedGift = { type: "gift", gift_id: gift.id, pay_for_upgrade: payForUpgrade, star_count: stars, date: now(), ...text };
      // T1 TransactionPartnerUser with transaction_type "gift_purchase" and the gift.
      record(user, sent, { type: "user", transaction_type: "gift_purchase", user, gift: asGift(gift, sticker(gift)) });
      return true;
    },

    // T1 giftPremiumSubscription → True: 3, 6 or 12 months for exactly 1000, 1500 or 2500 Stars.
    giftPremiumSubscription(p) {
      const user = knownUser(p.user_id);
      const text = giftText(p);
      const months = Number(p.month_count);
      const stars = Number(p.star_count);
      // UNCONFIRMED: both texts (MTProto's GIFT_MONTHS_INVALID and GIFT_STARS_INVALID, T5).
      if (!(months in PREMIUM_STARS)) throw fail(400, "Bad Request: GIFT_MONTHS_INVALID");
      if (PREMIUM_STARS[months] !== stars) throw fail(400, "Bad Request: GIFT_STARS_INVALID");
      // UNCONFIRMED: Premium refused by the recipient's privacy gives the gifts' refusal.
      if (!(shop.accepted.get(user.id) ?? ALL_GIFTS).premium_subscription) throw fail(400, "Bad Request: USER_DISALLOWED_STARGIFTS");
      debit(stars);
      const sent: ReceivedGift = { type: "premium", month_count: months, star_count: stars, date: now(), ...text };
      // T1 TransactionPartnerUser with transaction_type "premium_purchase" and premium_subscription_duration.
      record(user, sent, { type: "user", transaction_type: "premium_purchase", user, premium_subscription_duration: months });
      return true;
    },

    // T1 getStarTransactions → StarTransactions, in chronological order; offset ≥ 0, limit clamped to 1–100 (T3).
    getStarTransactions(p) {
      const offset = Math.max(Math.trunc(Number(p.offset ?? 0)) || 0, 0);
      const limit = Math.min(Math.max(Math.trunc(Number(p.limit ?? 100)) || 1, 1), 100);
      return { transactions: shop.transactions.slice(offset, offset + limit) };
    },

    // T1 getChat → ChatFullInfo of a known user, with the gift classes they accept (accepted_gift_types, 9.0): how
    // the bot sees a refusal coming before it pays. Any other chat (an @username too) is "chat not found" (T3).
    getChat(p): ChatFullInfo {
      const user = /^\d+$/.test(String(p.chat_id)) ? state.users.get(Number(p.chat_id)) : undefined;
      if (!user) throw fail(400, "Bad Request: chat not found");
      return {
        id: user.id,
        type: "private",
        first_name: user.first_name,
        ...(user.last_name ? { last_name: user.last_name } : {}),
        ...(user.username ? { username: user.username } : {}),
        // Required fields the gifts do not depend on.
        accent_color_id: 0,
        max_reaction_count: 11,
        accepted_gift_types: shop.accepted.get(user.id) ?? ALL_GIFTS,
      };
    },

    // T1 getFile → File with its file_path: a gift's sticker, or a document the bot sent.
    getFile(p) {
      if (p.file_id === undefined || p.file_id === "") throw fail(400, "Bad Request: file_id not specified");
      const sticker = [...shop.stickers.values()].find((s) => s.file.file_id === p.file_id);
      if (sticker) return sticker.file;
      const document = state.documents.get(String(p.file_id));
      if (!document) throw fail(400, "Bad Request: invalid file_id");
      return {
        file_id: document.file_id,
        file_unique_id: document.file_id,
        file_size: document.file_size,
        file_path: `documents/${document.file_id}`,
      };
    },
  };
}

/** GET /file/bot<token>/<file_path>: the file's bytes as they are (a sticker stays gzip), as T1's getFile says. */
export function fileRoutes(app: FastifyInstance, state: EmulatorState, shop: StarsAndGifts): void {
  app.get<{ Params: { token: string; "*": string } }>("/file/bot:token/*", async (request, reply) => {
    const path = request.params["*"];
    const sticker = [...shop.stickers.values()].find((s) => s.file.file_path === path);
    const document = path.startsWith("documents/") ? state.documents.get(path.slice("documents/".length)) : undefined;
    const bytes = sticker?.bytes ?? (document ? Buffer.from(document.content, "base64") : undefined);
    if (!bytes) return reply.code(404).send(fail(404, "Not Found"));
    return reply.type("application/octet-stream").send(bytes);
  });
}
