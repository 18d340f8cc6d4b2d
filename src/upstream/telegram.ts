import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { type TelegramContact, unknownRecipient } from "../core/model/contact.js";
import type { UnlinkedDelivery } from "../core/model/order.js";
import { PREMIUM_STARS } from "../core/model/products.js";
import type { Reason } from "../core/model/reasons.js";
import {
  type Delivery,
  type Funds,
  type GatewayPort,
  type GiftsPort,
  type Precheck,
  type RecipientProfile,
  type SentOrder,
  UpstreamError,
  type UpstreamOutcome,
  type UpstreamStatus,
} from "../core/ports.js";
import { type Answer, createBotApi } from "./bot-api.js";
import { READY_TIMEOUT_MS, type UpstreamCall } from "./http.js";
import { judgeBotApi, noAnswer, notTaken, unreadable } from "./outcome.js";

// Gifts and Premium sold through the Telegram Bot API, paid from the bot's own Star balance
// (docs/providers/telegram-bot-api.md; T1 to T10 below are that file's sources). The Bot API addresses users by id
// only (T3), so a recipient's @username is looked up among the users the bot has seen (`find`, core/contacts.ts)
// and checked against what `getChat` shows that id holding now, before the charge and again before the send; the id
// is kept on the order, and nothing resolves the name again after the charge.
// Nothing is ever sent twice: no retries, since sendGift and giftPremiumSubscription take no idempotency key (T1),
// and a lost answer is reconciled from the bot's Star transactions (`status`), never by sending again. One Star
// transaction belongs to at most one order (`DeliveryBook`); where the transactions cannot tell which of several
// orders was delivered, the order is held for an administrator rather than guessed.

/** A gift's text is 0–128 characters (T1 sendGift.text). */
const MESSAGE_MAX = 128;
/** A transaction dated this much before the order's creation still counts as its delivery (the two clocks differ). */
const CLOCK_SLACK_MS = 5_000;
/** getStarTransactions' largest page (T1 `limit` 1–100). */
const PAGE = 100;
/** The most pages one scan reads: a bound, not an expectation. */
const MAX_PAGES = 1_000;

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

/** The orders this backend delivered, as the database knows them: what a Star transaction can belong to. */
interface DeliveryBook {
  /** Of these Star transaction ids, those already some order's. */
  claimed(transactionIds: string[]): Promise<string[]>;
  /** This backend's orders to the user (processing, held or completed) with no transaction linked. */
  unlinked(recipientId: string): Promise<UnlinkedDelivery[]>;
  /** Completed orders with no transaction linked and none held for a decision, after order `afterId`, oldest first. */
  toLink(limit: number, afterId: number): Promise<UnlinkedDelivery[]>;
  /** Links a transaction to a completed order without one; false when it has one or the transaction is another's. */
  link(orderId: number, transactionId: string): Promise<boolean>;
}

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

  // --- Which order a Star transaction is ---------------------------------------------------------------------
  const detailsSchema = z.object({ gift_id: z.string().optional(), months: z.coerce.number().int().optional() }).passthrough();
  const bare = (username: string) => username.replace(/^@/, "");
  const sameName = (held: string | undefined, asked: string) => held !== undefined && held.toLowerCase() === bare(asked).toLowerCase();
  /** What an order delivers, as its transaction shows it: a gift's id or Premium's months; null when neither. */
  const itemOf = (productType: string, details: unknown): string | null => {
    const read = detailsSchema.safeParse(details);
    if (productType === "gift" && read.data?.gift_id !== undefined) return `gift:${read.data.gift_id}`;
    if (productType === "premium" && read.data?.months !== undefined) return `premium:${read.data.months}`;
    return null;
  };
  /** A transaction paying for `item` to the user. */
  const paysFor = (userId: number, item: string) => (t: Transaction) => {
    if (t.receiver?.type !== "user" || t.receiver.user?.id !== userId) return false;
    if (item.startsWith("gift:")) return t.receiver.transaction_type === "gift_purchase" && `gift:${t.receiver.gift?.id}` === item;
    return t.receiver.transaction_type === "premium_purchase" && `premium:${t.receiver.premium_subscription_duration}` === item;
  };
  const sinceOf = (createdAt: string) => Math.floor((Date.parse(createdAt) - CLOCK_SLACK_MS) / 1000);
  const unclaimed = async (matches: Transaction[]) => {
    const taken = new Set(matches.length && options.book ? await options.book.claimed(matches.map((t) => t.id)) : []);
    return matches.filter((t) => !taken.has(t.id));
  };

  /**
   * The orders to one user for one item that no transaction is linked to, against the unlinked transactions paying
   * for it (`free`, since the oldest of them): when there are transactions for all of them, each order (oldest first)
   * takes the oldest one dated after it; otherwise `assigned` is null, since which were delivered cannot be told.
   */
  async function assign(userId: number, item: string, members: UnlinkedDelivery[]) {
    const ordered = [...members].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    const free = await unclaimed(await scan(sinceOf(ordered[0]!.createdAt), paysFor(userId, item)));
    const left = [...free];
    let assigned: Map<number, string> | null = new Map();
    for (const member of ordered) {
      const index = left.findIndex((t) => t.date >= sinceOf(member.createdAt));
      if (index < 0) {
        assigned = null;
        break;
      }
      assigned.set(member.id, left.splice(index, 1)[0]!.id);
    }
    return { assigned, free };
  }

  /** The other unlinked orders to this user for this item: they could be any of its transactions' too. */
  const rivals = async (recipientId: string, item: string, reference: string) =>
    options.book
      ? (await options.book.unlinked(recipientId)).filter((o) => o.reference !== reference && itemOf(o.productType, o.details) === item)
      : [];

  /** The same orders, by id: nothing placed, linked or settled between two reads. */
  const sameOrders = (a: UnlinkedDelivery[], b: UnlinkedDelivery[]) =>
    a.length === b.length && a.every((order) => b.some((other) => other.id === order.id && other.status === order.status));

  /** What the transactions say of `self` among its rivals, and the completed rivals' transactions to link. */
  async function weigh(userId: number, item: string, self: UnlinkedDelivery, others: UnlinkedDelivery[]) {
    const links: Array<[number, string]> = [];
    const { assigned, free } = await assign(userId, item, [self, ...others]);
    if (assigned) {
      // Every one of them was delivered: the completed ones take their transactions too.
      for (const other of others) if (other.status === "completed") links.push([other.id, assigned.get(other.id)!]);
      return { status: { kind: "completed", transactionId: assigned.get(self.id)! } as const, links };
    }
    const since = free.filter((t) => t.date >= sinceOf(self.createdAt)).length;
    // Nothing paid for it since, and no completed order wants a transaction: none of them was sent.
    if (since === 0 && others.every((o) => o.status === "processing")) return { status: { kind: "not_found" } as const, links };
    const error = `${others.length + 1} orders to user ${self.recipientId} for the same ${item.replace(":", " ")} await their Star transactions and ${since} unlinked transactions could be theirs: which were delivered cannot be told`;
    return { status: { kind: "ambiguous", error } as const, links };
  }

  async function status(reference: string, order?: SentOrder): Promise<UpstreamStatus> {
    // The Bot API has no lookup by our reference: without the order there is nothing to match by.
    if (!order) return { kind: "unknown", error: "the Bot API cannot look an order up by reference" };
    const item = itemOf(order.productType, order.details);
    if (!item) return { kind: "unknown", error: `cannot match a ${order.productType} order to a Star transaction` };
    try {
      // Sent to the id fixed before the charge; an order placed before ids were kept falls back to its name.
      const recipientId = order.recipientId ?? (await find(order.recipient))?.telegramId;
      // Never seen, so never sent to: nothing can have been delivered.
      if (!recipientId) return { kind: "not_found" };
      const others = await rivals(recipientId, item, reference);
      const self: UnlinkedDelivery = { ...order, reference, status: "processing", recipientId };
      const { status: found, links } = await weigh(Number(recipientId), item, self, others);
      // An order is committed before its send: one placed (or settled) while the transactions were read shows here,
      // and could own one of them. Asked again later rather than weighed without it.
      if (!sameOrders(others, await rivals(recipientId, item, reference)))
        return { kind: "unknown", error: "another order to this user for the same item changed while the transactions were read" };
      for (const [orderId, transactionId] of links) await options.book!.link(orderId, transactionId);
      return found;
    } catch (error) {
      return { kind: "unknown", error: (error as Error).message };
    }
  }

  /**
   * A delivery Telegram confirmed, with the id of its Star transaction where it can be read now and is certainly this
   * order's (sendGift answers only `true`, T1): no other unlinked order to the user for the item, before the read or
   * after it. Otherwise, or with no transaction readable yet, the delivery stands without it and `linkDeliveries`
   * links one later.
   */
  async function withTransaction(outcome: UpstreamOutcome, sent: { reference: string; recipientId: string; item: string; at: number }) {
    if (outcome.kind !== "completed") return outcome;
    try {
      const alone = async () => (await rivals(sent.recipientId, sent.item, sent.reference)).length === 0;
      if (!(await alone())) return outcome;
      const mine = (await unclaimed(await scan(Math.floor((sent.at - CLOCK_SLACK_MS) / 1000), paysFor(Number(sent.recipientId), sent.item)))).pop();
      return mine && (await alone()) ? { ...outcome, transactionId: mine.id } : outcome;
    } catch {
      return outcome;
    }
  }

  /** When each completed order without a transaction may be tried again (backing off, from this process's start). */
  const linkAttempts = new Map<number, { at: number; wait: number }>();
  let linkCursor = 0;
  /**
   * Completed orders whose transaction could not be read when they were sent: each takes one once the transactions
   * tell which is whose (all of that user's unlinked orders for the item accounted for). Returns how many were linked.
   */
  async function linkDeliveries(limit = 8): Promise<number> {
    if (!options.book) return 0;
    let linked = 0;
    const now = Date.now();
    // A page at a time from where the last pass stopped, so orders waiting for their next try never block the rest.
    const page = await options.book.toLink(limit, linkCursor);
    linkCursor = page.length < limit ? 0 : page.at(-1)!.id;
    for (const order of page) {
      const attempt = linkAttempts.get(order.id);
      if (attempt && attempt.at > now) continue;
      const item = itemOf(order.productType, order.details);
      if (!item) continue;
      const others = await rivals(order.recipientId, item, order.reference);
      const members = [order, ...others];
      const assigned = (await assign(Number(order.recipientId), item, members).catch(() => null))?.assigned;
      // As in `status`: an order placed while the transactions were read could own one of them.
      if (assigned && !sameOrders(others, await rivals(order.recipientId, item, order.reference))) continue;
      if (assigned) {
        for (const member of members) if (member.status === "completed" && (await options.book.link(member.id, assigned.get(member.id)!))) linked++;
        linkAttempts.delete(order.id);
      } else {
        const wait = Math.min((attempt?.wait ?? 2_500) * 2, 3_600_000);
        linkAttempts.set(order.id, { at: now + wait, wait });
      }
    }
    return linked;
  }

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
