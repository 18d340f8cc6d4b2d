import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { type TelegramContact, unknownRecipient } from "../core/model/contact.js";
import { PREMIUM_STARS } from "../core/model/products.js";
import type { Reason } from "../core/model/reasons.js";
import {
  type Delivery,
  type Funds,
  type GatewayPort,
  type GiftsPort,
  type Precheck,
  type RecipientProfile,
  UpstreamError,
  type UpstreamOutcome,
} from "../core/ports.js";
import { type Answer, createBotApi } from "./bot-api.js";
import { READY_TIMEOUT_MS, type UpstreamCall } from "./http.js";
import { judgeBotApi, noAnswer, notTaken, unreadable } from "./outcome.js";
import { createStarTransactions, type DeliveryBook } from "./star-transactions.js";

// Gifts and Premium sold through the Telegram Bot API, paid from the bot's own Star balance
// (docs/providers/telegram-bot-api.md; T1 to T10 below are that file's sources). The Bot API addresses users by id
// only (T3), so a recipient's @username is looked up among the users the bot has seen (`find`, core/contacts.ts)
// and checked against what `getChat` shows that id holding now, before the charge and again before the send; the id
// is kept on the order, and nothing resolves the name again after the charge.
// Nothing is ever sent twice: no retries, since sendGift and giftPremiumSubscription take no idempotency key (T1),
// and a lost answer is reconciled from the bot's Star transactions (`status`, ./star-transactions.ts), never by
// sending again.

/** A gift's text is 0–128 characters (T1 sendGift.text). */
const MESSAGE_MAX = 128;

// T1 Gift / Sticker (only the fields read here); ids are int64 written as decimal strings (T3 JsonGift).
const giftSchema = z.object({
  id: z.string().regex(/^\d{1,20}$/),
  star_count: z.number().int().positive(),
  total_count: z.number().int().optional(),
  remaining_count: z.number().int().min(0).optional(),
  sticker: z.object({ file_id: z.string(), emoji: z.string().optional(), is_animated: z.boolean(), is_video: z.boolean() }),
});
const giftsSchema = z.object({ gifts: z.array(giftSchema) });
// T1 StarAmount.
const starAmountSchema = z.object({ amount: z.number().int(), nanostar_amount: z.number().int().optional() });
// T1 File.
const fileSchema = z.object({ file_id: z.string(), file_path: z.string().optional() });
// T1 ChatFullInfo.accepted_gift_types (9.0; absent from older servers: everything accepted).
const chatSchema = z.object({
  id: z.number().int(),
  username: z.string().optional(),
  accepted_gift_types: z
    .object({ unlimited_gifts: z.boolean(), limited_gifts: z.boolean(), premium_subscription: z.boolean().optional() })
    .optional(),
});
export interface TelegramBackendOptions {
  token: string;
  /** https://api.telegram.org, or the emulator's URL. */
  apiRoot: string;
  timeoutMs: number;
  /** The contact most recently seen holding a @username (core/contacts.ts), or null when the bot has seen none. */
  find(username: string): Promise<TelegramContact | null>;
  /** Writes what getChat shows a contact's username to be now (null: none), when it no longer holds the one on file. */
  correct?(telegramId: string, username: string | null): Promise<void>;
  book?: DeliveryBook;
  onCall?: (call: UpstreamCall) => void;
}

const isUnknownChat = (description: string) => /chat not found|user not found/i.test(description);

/** A refusal as the order's failure (T3 keeps the MTProto names verbatim after "Bad Request: "). */
function refusalReason(description: string): Reason {
  if (description.includes("BALANCE_TOO_LOW")) return "provider_balance";
  if (description.includes("USER_DISALLOWED_STARGIFTS")) return "recipient_refuses";
  // STARGIFT_USAGE_LIMITED (sold out), user not found and every other refusal.
  return "provider_error";
}

/** The Telegram Bot API as the gift port and the Premium side of the gateway. */
export function createTelegramBackend(options: TelegramBackendOptions) {
  const { token, find } = options;
  const { api, read, hidden, http, root } = createBotApi({ ...options, provider: "gifts" });

  /** A call that spends Stars, as the order's outcome. */
  async function spend(method: string, params: object): Promise<UpstreamOutcome> {
    let answer: Answer<unknown>;
    try {
      answer = await api(method, params, z.unknown());
    } catch (error) {
      // A timeout, a cut or garbled answer: it may have been done; the reconciler asks `status`.
      return noAnswer(error, "The Telegram Bot API");
    }
    if (answer.ok) return answer.result === true ? { kind: "completed" } : unreadable(`${method}: answered ${JSON.stringify(answer.result)}`);
    const answered = judgeBotApi(answer);
    return notTaken(
      answered,
      answered === "unknown" ? `${method}: ${answer.description}` : `Telegram refused ${method}: ${answer.description}`,
      refusalReason(answer.description),
    );
  }

  const balance = async (timeoutMs?: number) => read("getMyStarBalance", {}, starAmountSchema, timeoutMs);
  const funds = async (): Promise<Funds> => {
    const star = await balance();
    return { amount: star.amount + (star.nanostar_amount ?? 0) / 1e9, unit: "stars" };
  };
  const ready = async () => {
    try {
      // Ready: the Bot API answers and takes the token. Not whether Stars remain: the public health must not tell
      // that (a purchase checks the balance before the charge; the operator sees it in preflight and the alerts).
      await balance(Math.min(options.timeoutMs, READY_TIMEOUT_MS));
      return true;
    } catch {
      return false;
    }
  };
  const gifts = async () => (await read("getAvailableGifts", {}, giftsSchema)).gifts;

  const bare = (username: string) => username.replace(/^@/, "");
  const sameName = (held: string | undefined, asked: string) => held !== undefined && held.toLowerCase() === bare(asked).toLowerCase();
  // A lost answer's status and a delivery's transaction, read from the bot's Star transactions.
  const { status, withTransaction, linkDeliveries } = createStarTransactions({ read, find, book: options.book });

  /** What getChat shows the user holding now; null when Telegram does not know the chat. Throws UpstreamError. */
  async function currentChat(userId: string): Promise<z.infer<typeof chatSchema> | null> {
    let answer: Answer<z.infer<typeof chatSchema>>;
    try {
      answer = await api("getChat", { chat_id: Number(userId) }, chatSchema);
    } catch (error) {
      throw new UpstreamError(`getChat: ${(error as Error).message}`, error);
    }
    if (answer.ok) return answer.result;
    if (isUnknownChat(answer.description)) return null;
    throw new UpstreamError(`getChat: ${answer.description}`);
  }

  /**
   * The user who holds @username now: the contact most recently seen with it, as long as getChat shows that id still
   * holding it. A contact whose name has moved on is corrected and the next one asked; null when none holds it.
   */
  async function resolve(username: string): Promise<{ id: string; chat: z.infer<typeof chatSchema> } | null> {
    for (let tries = 0; tries < 3; tries++) {
      const contact = await find(bare(username));
      if (!contact) return null;
      const chat = await currentChat(contact.telegramId);
      if (chat && sameName(chat.username, username)) return { id: contact.telegramId, chat };
      if (!options.correct) return null;
      await options.correct(contact.telegramId, chat?.username ?? null);
    }
    return null;
  }

  /**
   * Before a send, after the charge: the id fixed on the order still holds the name it was bought for. A failure
   * (refunded) when it does not or cannot be checked: nothing was sent.
   */
  async function checkedBeforeSend(recipientId: string | null, username: string, what: string): Promise<UpstreamOutcome | null> {
    if (recipientId === null)
      return {
        kind: "failed",
        error: `No Telegram user was fixed for @${bare(username)} before the charge: nothing was sent`,
        reason: "provider_error",
      };
    let chat: z.infer<typeof chatSchema> | null;
    try {
      chat = await currentChat(recipientId);
    } catch (error) {
      return {
        kind: "failed",
        error: `The recipient could not be checked before sending ${what}: ${(error as Error).message}; nothing was sent`,
        reason: "provider_unavailable",
      };
    }
    if (chat && sameName(chat.username, username)) return null;
    await options.correct?.(recipientId, chat?.username ?? null).catch(() => undefined);
    return {
      kind: "failed",
      error: `@${bare(username)} no longer belongs to the user this order was placed for: nothing was sent`,
      reason: "provider_error",
    };
  }

  const stickers = new Map<string, unknown>();

  const giftsPort: GiftsPort = {
    configured: true,
    messageMax: MESSAGE_MAX,
    // sendGift has no hide-sender parameter and shows the bot as the sender (T3): never the buyer.
    namesBuyer: false,
    ready,
    funds,
    async catalogue() {
      return (await gifts()).map((g) => ({
        giftId: g.id,
        stars: g.star_count,
        emoji: g.sticker.emoji ?? "🎁",
        // Limited ⇔ total_count present (T3 JsonGift).
        limited: g.total_count !== undefined,
        remaining: g.remaining_count ?? null,
      }));
    },
    async checkRecipient(username, gift) {
      const holder = await resolve(username);
      if (!holder) return { exists: false, acceptsGifts: false, why: unknownRecipient(bare(username)) };
      const accepted = holder.chat.accepted_gift_types;
      if (!accepted) return { exists: true, acceptsGifts: true, recipientId: holder.id };
      const acceptsGifts =
        gift === undefined ? accepted.limited_gifts || accepted.unlimited_gifts : gift.limited ? accepted.limited_gifts : accepted.unlimited_gifts;
      return { exists: true, acceptsGifts, recipientId: holder.id };
    },
    // `hideName` is not passed: the Bot API has no such parameter and always shows the bot as the sender (T1; T3
    // process_send_gift_query sends with is_private=false), never the buyer.
    async send(order) {
      const refused = await checkedBeforeSend(order.recipientId, order.recipient, "the gift");
      if (refused) return refused;
      const recipientId = order.recipientId!;
      const at = Date.now();
      const outcome = await spend("sendGift", {
        user_id: Number(recipientId),
        gift_id: order.giftId,
        ...(order.message ? { text: order.message } : {}),
      });
      return withTransaction(outcome, { reference: order.reference, recipientId, item: `gift:${order.giftId}`, at });
    },
    status,
    async sticker(giftId) {
      if (stickers.has(giftId)) return stickers.get(giftId);
      const gift = (await gifts()).find((g) => g.id === giftId);
      if (!gift) return null;
      // Only an animated sticker is a TGS, "a gzipped bodymovin JSON file" (T7); a video or static one has no Lottie,
      // which is kept too, so asking again costs no call.
      if (!gift.sticker.is_animated) {
        stickers.set(giftId, null);
        return null;
      }
      const file = await read("getFile", { file_id: gift.sticker.file_id }, fileSchema);
      if (!file.file_path) throw new UpstreamError("getFile: no file_path");
      let download: { status: number; bytes: Buffer };
      try {
        download = await http.download(`${root.prefix}/file/bot${token}/${file.file_path}`);
      } catch (error) {
        throw new UpstreamError(`sticker download: ${(hidden(error) as Error).message}`, error);
      }
      if (download.status !== 200) throw new UpstreamError(`sticker download: HTTP ${download.status}`);
      let lottie: unknown;
      try {
        const bytes = download.bytes[0] === 0x1f && download.bytes[1] === 0x8b ? gunzipSync(download.bytes) : download.bytes;
        lottie = JSON.parse(bytes.toString("utf8"));
      } catch (error) {
        throw new UpstreamError("sticker download: not a TGS (gzip JSON)", error);
      }
      if (typeof lottie !== "object" || lottie === null || Array.isArray(lottie)) throw new UpstreamError("sticker download: not a Lottie object");
      stickers.set(giftId, lottie);
      return lottie;
    },
  };

  // Premium gifted from the bot's Stars: the premium product's port.
  const premium = {
    configured: true as const,
    ready,
    funds,
    async search(username: string): Promise<RecipientProfile | null> {
      const contact = await find(username);
      if (!contact) return null;
      const name = contact.username ?? username.replace(/^@/, "");
      // Only what the purchase needs: the contact's real name and Premium status are theirs, not any key holder's.
      return { username: name, name, photo: `https://t.me/i/userpic/320/${name}.jpg`, premium: null };
    },
    async precheck({ username, amount }: Pick<Delivery, "username" | "amount">): Promise<Precheck> {
      const holder = await resolve(username);
      if (!holder) {
        return {
          refused: "recipient_unknown",
          message: unknownRecipient(bare(username)),
        };
      }
      const price = PREMIUM_STARS[amount];
      if (price !== undefined && (await funds()).amount < price)
        return { refused: "funds", message: "The bot's Star balance cannot pay for this now" };
      return { recipientId: holder.id };
    },
    async deliver({
      reference,
      username,
      amount,
      recipientId,
    }: Pick<Delivery, "reference" | "username" | "amount" | "recipientId">): Promise<UpstreamOutcome> {
      const price = PREMIUM_STARS[amount];
      if (price === undefined)
        return { kind: "failed", error: `Telegram gifts Premium for 3, 6 or 12 months, not ${amount}`, reason: "provider_error" };
      const refused = await checkedBeforeSend(recipientId, username, "Premium");
      if (refused) return refused;
      const at = Date.now();
      const outcome = await spend("giftPremiumSubscription", { user_id: Number(recipientId), month_count: amount, star_count: price });
      return withTransaction(outcome, { reference, recipientId: recipientId!, item: `premium:${amount}`, at });
    },
    status,
  } satisfies GatewayPort;

  return {
    gifts: giftsPort,
    premium,
    linkDeliveries,
    close: () => http.close(),
    /** Aborts the calls under way (a stop past its bound). */
    destroy: () => http.destroy(),
  };
}

export type TelegramBackend = ReturnType<typeof createTelegramBackend>;
