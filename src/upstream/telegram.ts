import { gunzipSync } from "node:zlib";
import { z } from "zod";
import type { TelegramContact } from "../core/model/contact.js";
import { PREMIUM_STARS } from "../core/model/products.js";
import type { Reason } from "../core/model/reasons.js";
import {
  type Delivery,
  type Funds,
  type GiftsPort,
  type Precheck,
  type RecipientProfile,
  type SentOrder,
  UpstreamError,
  type UpstreamOutcome,
  type UpstreamStatus,
} from "../core/ports.js";
import { createHttpClient, NotSentError, READY_TIMEOUT_MS, type UpstreamCall, type UpstreamResponse } from "./http.js";

// Gifts and Premium sold through the Telegram Bot API, paid from the bot's own Star balance
// (docs/providers/telegram-bot-api.md; T1 to T10 below are that file's sources). The Bot API addresses users by id
// only (T3), so a recipient's @username is looked up among the users the bot has seen (`find`, core/contacts.ts).
// Nothing is ever sent twice: no retries, since sendGift and giftPremiumSubscription take no idempotency key (T1),
// and a lost answer is reconciled from the bot's Star transactions (`status`), never by sending again.

/** A gift's text is 0–128 characters (T1 sendGift.text). */
const MESSAGE_MAX = 128;
/** A transaction dated this much before the order's creation still counts as its delivery (the two clocks differ). */
const CLOCK_SLACK_MS = 5_000;
/** getStarTransactions' largest page (T1 `limit` 1–100). */
const PAGE = 100;
/** The most pages one scan reads: a bound, not an expectation. */
const MAX_PAGES = 1_000;

// The answer envelope (T1 "Making requests").
const errorSchema = z.object({
  ok: z.literal(false),
  error_code: z.number().int(),
  description: z.string(),
  parameters: z.object({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
});
const okOf = <T extends z.ZodType>(result: T) => z.object({ ok: z.literal(true), result });

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
  accepted_gift_types: z
    .object({ unlimited_gifts: z.boolean(), limited_gifts: z.boolean(), premium_subscription: z.boolean().optional() })
    .optional(),
});
// T1 StarTransaction with a TransactionPartnerUser receiver (outgoing); other partners are only skipped.
const transactionSchema = z.object({
  id: z.string(),
  date: z.number().int(),
  receiver: z
    .object({
      type: z.string(),
      transaction_type: z.string().optional(),
      user: z.object({ id: z.number().int() }).optional(),
      gift: z.object({ id: z.string() }).optional(),
      premium_subscription_duration: z.number().int().optional(),
    })
    .optional(),
});
const transactionsSchema = z.object({ transactions: z.array(transactionSchema) });
type Transaction = z.infer<typeof transactionSchema>;

type Answer<T> = { ok: true; result: T } | { ok: false; status: number; code: number; description: string };

/** An answer that is no Bot API envelope (a proxy's page, a cut body): its effect is unknown. */
class GarbledAnswer extends Error {}

export interface TelegramBackendOptions {
  token: string;
  /** https://api.telegram.org, or the emulator's URL. */
  apiRoot: string;
  timeoutMs: number;
  /** The contact holding a @username (core/contacts.ts), or null when the bot has never seen them. */
  find(username: string): Promise<TelegramContact | null>;
  /** Of these Star transaction ids, those already the transaction_id of some order (the database's answer). */
  claimed?(transactionIds: string[]): Promise<string[]>;
  onCall?: (call: UpstreamCall) => void;
}

/** Premium gifted from the bot's Stars, shaped as the gateway's Premium side. */
export interface TelegramPremium {
  readonly configured: true;
  ready(): Promise<boolean>;
  funds(): Promise<Funds>;
  search(username: string): Promise<RecipientProfile | null>;
  precheck(order: Pick<Delivery, "username" | "amount">): Promise<Precheck>;
  deliver(order: Pick<Delivery, "reference" | "username" | "amount">): Promise<UpstreamOutcome>;
  status(reference: string, order?: SentOrder): Promise<UpstreamStatus>;
}

/** A base URL as undici's pool (the origin) and the path prefix every call carries. */
function split(url: string) {
  const parsed = new URL(url);
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, "") };
}

const isUnknownChat = (description: string) => /chat not found|user not found/i.test(description);

/** A refusal as the order's failure (T3 keeps the MTProto names verbatim after "Bad Request: "). */
function refusalReason(status: number, description: string): Reason {
  if (status === 429) return "provider_unavailable";
  if (description.includes("BALANCE_TOO_LOW")) return "provider_balance";
  if (description.includes("USER_DISALLOWED_STARGIFTS")) return "recipient_refuses";
  // STARGIFT_USAGE_LIMITED (sold out), user not found and every other refusal.
  return "provider_error";
}

/** The Telegram Bot API as the gift port and the Premium side of the gateway. */
export function createTelegramBackend(options: TelegramBackendOptions) {
  const { token, find } = options;
  const root = split(options.apiRoot);
  // The token is in every path: it never reaches the log or a metric label.
  const redact = (path: string) => path.split(token).join("<token>");
  const http = createHttpClient(root.origin, options.timeoutMs, {
    provider: "gifts",
    onCall: options.onCall && ((call) => options.onCall!({ ...call, path: redact(call.path) })),
  });

  /** A failed call's error, its message and stack cleared of the token its path carried (orders, logs, the CLI show them). */
  const hidden = (error: unknown) => {
    if (error instanceof Error) {
      error.message = redact(error.message);
      if (error.stack) error.stack = redact(error.stack);
    }
    return error;
  };

  /** One Bot API call, JSON POST; throws NotSentError or a no-answer error from http, or GarbledAnswer. */
  async function api<T>(method: string, params: object, result: z.ZodType<T>, timeoutMs?: number): Promise<Answer<T>> {
    const response: UpstreamResponse = await http.call("POST", `${root.prefix}/bot${token}/${method}`, params, timeoutMs).catch((error: unknown) => {
      throw hidden(error);
    });
    const ok = okOf(result).safeParse(response.body);
    if (ok.success && response.status === 200) return { ok: true, result: ok.data.result };
    const refused = errorSchema.safeParse(response.body);
    if (refused.success) return { ok: false, status: response.status, code: refused.data.error_code, description: refused.data.description };
    throw new GarbledAnswer(`${method}: unexpected Bot API answer (HTTP ${response.status})`);
  }

  /** A read that must succeed: its result, or UpstreamError. */
  async function read<T>(method: string, params: object, result: z.ZodType<T>, timeoutMs?: number): Promise<T> {
    let answer: Answer<T>;
    try {
      answer = await api(method, params, result, timeoutMs);
    } catch (error) {
      throw new UpstreamError(`${method}: ${(error as Error).message}`, error);
    }
    if (!answer.ok) throw new UpstreamError(`${method}: ${answer.description}`);
    return answer.result;
  }

  /** A call that spends Stars, as the order's outcome. */
  async function spend(method: string, params: object): Promise<UpstreamOutcome> {
    let answer: Answer<unknown>;
    try {
      answer = await api(method, params, z.unknown());
    } catch (error) {
      if (error instanceof NotSentError) return { kind: "failed", error: "The Telegram Bot API is unreachable", reason: "provider_unavailable" };
      // A timeout, a cut or garbled answer: it may have been done; the reconciler asks `status`.
      return { kind: "unknown", error: (error as Error).message };
    }
    if (answer.ok)
      return answer.result === true ? { kind: "completed" } : { kind: "unknown", error: `${method}: answered ${JSON.stringify(answer.result)}` };
    // A 5xx may come after the work was done; a 4xx (429 included) means it was not.
    if (answer.status >= 500 || answer.code >= 500) return { kind: "unknown", error: `${method}: ${answer.description}` };
    return { kind: "failed", error: `Telegram refused ${method}: ${answer.description}`, reason: refusalReason(answer.code, answer.description) };
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

  // --- Reconciliation from getStarTransactions -------------------------------------------------------------
  // The list is chronological (T1), so its offsets only grow: `marks` remembers where earlier scans saw which
  // dates, and a scan for an order starts at the last mark dated before it.
  const marks: Array<{ offset: number; date: number }> = [];

  /** The date of the transaction at `offset`, or null past the end. */
  async function dateAt(offset: number): Promise<number | null> {
    const { transactions } = await read("getStarTransactions", { offset, limit: 1 }, transactionsSchema);
    return transactions[0]?.date ?? null;
  }

  /**
   * Where a scan for transactions since `since` may begin: the last mark dated before it; with none (the first scan
   * after a start), found by galloping then halving over the dates, so a long history costs tens of calls, not pages.
   */
  async function startOffset(since: number): Promise<number> {
    let start = 0;
    for (const mark of marks) if (mark.date < since && mark.offset > start) start = mark.offset;
    if (start > 0) return start;
    let low = 0;
    let high = PAGE;
    for (let probe = 0; probe < 40; probe++) {
      const date = await dateAt(high);
      // Within the first page: reading it from 0 is one call.
      if (date === null || date >= since) {
        if (probe === 0) return 0;
        break;
      }
      low = high;
      high *= 2;
    }
    // Every transaction before `low` is older than `since`; the first one at or after it lies in [low, high].
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      const date = await dateAt(middle);
      if (date === null || date >= since) high = middle;
      else low = middle;
    }
    return low;
  }

  /** Every transaction dated at or after `since` (unix seconds) matching `wanted`, oldest first. */
  async function scan(since: number, wanted: (t: Transaction) => boolean): Promise<Transaction[]> {
    const found: Transaction[] = [];
    let offset = await startOffset(since);
    for (let page = 0; page < MAX_PAGES; page++) {
      const { transactions } = await read("getStarTransactions", { offset, limit: PAGE }, transactionsSchema);
      if (transactions.length > 0 && !marks.some((m) => m.offset === offset)) marks.push({ offset, date: transactions[0]!.date });
      for (const t of transactions) if (t.date >= since && wanted(t)) found.push(t);
      if (transactions.length < PAGE) return found;
      offset += transactions.length;
    }
    throw new UpstreamError(`getStarTransactions: more than ${MAX_PAGES} pages`);
  }

  const detailsSchema = z.object({ gift_id: z.string().optional(), months: z.coerce.number().int().optional() }).passthrough();

  async function status(_reference: string, order?: SentOrder): Promise<UpstreamStatus> {
    // The Bot API has no lookup by our reference: without the order there is nothing to match by.
    if (!order) return { kind: "unknown", error: "the Bot API cannot look an order up by reference" };
    const details = detailsSchema.safeParse(order.details);
    const giftId = order.productType === "gift" ? details.data?.gift_id : undefined;
    const months = order.productType === "premium" ? details.data?.months : undefined;
    if (giftId === undefined && months === undefined)
      return { kind: "unknown", error: `cannot match a ${order.productType} order to a Star transaction` };
    try {
      const contact = await find(order.recipient);
      // Never seen, so never sent to: nothing can have been delivered.
      if (!contact) return { kind: "not_found" };
      const userId = Number(contact.telegramId);
      const since = Math.floor((Date.parse(order.createdAt) - CLOCK_SLACK_MS) / 1000);
      const matches = await scan(since, giftId !== undefined ? giftTo(userId, giftId) : premiumTo(userId, months!));
      // A transaction already another order's delivery is not this one's. Residual case: two orders for the same
      // gift to the same user, both answers lost, only one sent, and neither reconciled yet: the first one asked
      // claims the one transaction, whichever it was, so the one refunded may be the one that was in fact sent.
      // The books still hold (one delivery, one charge kept); only which order shows it can be wrong.
      const taken = new Set(matches.length && options.claimed ? await options.claimed(matches.map((t) => t.id)) : []);
      const mine = matches.find((t) => !taken.has(t.id));
      return mine ? { kind: "completed", transactionId: mine.id } : { kind: "not_found" };
    } catch (error) {
      return { kind: "unknown", error: (error as Error).message };
    }
  }

  /**
   * A delivery Telegram confirmed, with the id of its Star transaction where it can be read now (sendGift answers
   * only `true`, T1): kept on the order, it lets `claimed` keep a later reconciliation off this transaction. Not
   * found, or not readable, the delivery stands without it.
   */
  async function withTransaction(outcome: UpstreamOutcome, sentAt: number, mine: (t: Transaction) => boolean): Promise<UpstreamOutcome> {
    if (outcome.kind !== "completed") return outcome;
    try {
      const matches = await scan(Math.floor((sentAt - CLOCK_SLACK_MS) / 1000), mine);
      const taken = new Set(matches.length && options.claimed ? await options.claimed(matches.map((t) => t.id)) : []);
      const newest = matches.reverse().find((t) => !taken.has(t.id));
      return newest ? { kind: "completed", transactionId: newest.id } : outcome;
    } catch {
      return outcome;
    }
  }

  const giftTo = (userId: number, giftId: string) => (t: Transaction) =>
    t.receiver?.type === "user" &&
    t.receiver.user?.id === userId &&
    t.receiver.transaction_type === "gift_purchase" &&
    t.receiver.gift?.id === giftId;
  const premiumTo = (userId: number, months: number) => (t: Transaction) =>
    t.receiver?.type === "user" &&
    t.receiver.user?.id === userId &&
    t.receiver.transaction_type === "premium_purchase" &&
    t.receiver.premium_subscription_duration === months;

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
      const contact = await find(username);
      const why = `@${username.replace(/^@/, "")} has not started this bot, so it cannot send them a gift: ask them to open the bot once`;
      if (!contact) return { exists: false, acceptsGifts: false, why };
      let answer: Answer<z.infer<typeof chatSchema>>;
      try {
        answer = await api("getChat", { chat_id: Number(contact.telegramId) }, chatSchema);
      } catch (error) {
        throw new UpstreamError(`getChat: ${(error as Error).message}`, error);
      }
      if (!answer.ok) {
        if (isUnknownChat(answer.description)) return { exists: false, acceptsGifts: false };
        throw new UpstreamError(`getChat: ${answer.description}`);
      }
      const accepted = answer.result.accepted_gift_types;
      if (!accepted) return { exists: true, acceptsGifts: true };
      const acceptsGifts =
        gift === undefined ? accepted.limited_gifts || accepted.unlimited_gifts : gift.limited ? accepted.limited_gifts : accepted.unlimited_gifts;
      return { exists: true, acceptsGifts };
    },
    // `hideName` is not passed: the Bot API has no such parameter and always shows the bot as the sender (T1; T3
    // process_send_gift_query sends with is_private=false), never the buyer.
    async send(order) {
      const contact = await find(order.recipient).catch((error: unknown) => error as Error);
      if (contact instanceof Error) return { kind: "failed", error: `The contacts could not be read: ${contact.message}`, reason: "provider_error" };
      if (!contact)
        return { kind: "failed", error: `@${order.recipient} has not started this bot, so it cannot send them a gift`, reason: "provider_error" };
      const userId = Number(contact.telegramId);
      const sentAt = Date.now();
      const outcome = await spend("sendGift", { user_id: userId, gift_id: order.giftId, ...(order.message ? { text: order.message } : {}) });
      return withTransaction(outcome, sentAt, giftTo(userId, order.giftId));
    },
    status,
    async sticker(giftId) {
      if (stickers.has(giftId)) return stickers.get(giftId);
      const gift = (await gifts()).find((g) => g.id === giftId);
      if (!gift) return null;
      // Only an animated sticker is a TGS, "a gzipped bodymovin JSON file" (T7); a video or static one has no Lottie.
      if (!gift.sticker.is_animated) return null;
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

  const premium: TelegramPremium = {
    configured: true,
    ready,
    funds,
    async search(username) {
      const contact = await find(username);
      if (!contact) return null;
      const name = contact.username ?? username.replace(/^@/, "");
      return {
        username: name,
        name: contact.lastName ? `${contact.firstName} ${contact.lastName}` : contact.firstName,
        photo: `https://t.me/i/userpic/320/${name}.jpg`,
        premium: contact.isPremium,
      };
    },
    async precheck({ username, amount }) {
      const name = username.replace(/^@/, "");
      if (!(await find(name))) {
        return {
          refused: "recipient_unknown",
          message: `@${name} has not started this bot, so it cannot send them Premium: ask them to open the bot once`,
        };
      }
      const price = PREMIUM_STARS[amount];
      if (price !== undefined && (await funds()).amount < price)
        return { refused: "funds", message: "The bot's Star balance cannot pay for this now" };
      return null;
    },
    async deliver({ username, amount }) {
      const price = PREMIUM_STARS[amount];
      if (price === undefined)
        return { kind: "failed", error: `Telegram gifts Premium for 3, 6 or 12 months, not ${amount}`, reason: "provider_error" };
      const contact = await find(username).catch((error: unknown) => error as Error);
      if (contact instanceof Error) return { kind: "failed", error: `The contacts could not be read: ${contact.message}`, reason: "provider_error" };
      if (!contact)
        return { kind: "failed", error: `@${username} has not started this bot, so it cannot send them Premium`, reason: "provider_error" };
      const userId = Number(contact.telegramId);
      const sentAt = Date.now();
      const outcome = await spend("giftPremiumSubscription", { user_id: userId, month_count: amount, star_count: price });
      return withTransaction(outcome, sentAt, premiumTo(userId, amount));
    },
    status,
  };

  return {
    gifts: giftsPort,
    premium,
    close: () => http.close(),
    /** Aborts the calls under way (a stop past its bound). */
    destroy: () => http.destroy(),
  };
}

export type TelegramBackend = ReturnType<typeof createTelegramBackend>;
