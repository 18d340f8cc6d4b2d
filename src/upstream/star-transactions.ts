import { z } from "zod";
import type { TelegramContact } from "../core/model/contact.js";
import type { UnlinkedDelivery } from "../core/model/order.js";
import { type SentOrder, UpstreamError, type UpstreamOutcome, type UpstreamStatus } from "../core/ports.js";
import type { createBotApi } from "./bot-api.js";

// Which order a Star transaction of the bot is (docs/providers/telegram-bot-api.md; T1 to T10 are its sources): the
// Bot API answers sendGift and giftPremiumSubscription with `true` alone and has no lookup by our reference, so a lost
// answer, and a delivery's transaction id, are read from getStarTransactions. One transaction belongs to at most one
// order (`DeliveryBook`); where the transactions cannot tell which of several orders was delivered, the answer is
// `ambiguous` and the order is held for an administrator rather than guessed.

/** A transaction dated this much before the order's creation still counts as its delivery (the two clocks differ). */
const CLOCK_SLACK_MS = 5_000;
/** getStarTransactions' largest page (T1 `limit` 1–100). */
const PAGE = 100;
/** The most pages one scan reads: a bound, not an expectation. */
const MAX_PAGES = 1_000;

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
export interface DeliveryBook {
  /** Of these Star transaction ids, those already some order's. */
  claimed(transactionIds: string[]): Promise<string[]>;
  /** This backend's orders to the user (processing, held or completed) with no transaction linked. */
  unlinked(recipientId: string): Promise<UnlinkedDelivery[]>;
  /** Completed orders with no transaction linked and none held for a decision, after order `afterId`, oldest first. */
  toLink(limit: number, afterId: number): Promise<UnlinkedDelivery[]>;
  /** Links a transaction to a completed order without one; false when it has one or the transaction is another's. */
  link(orderId: number, transactionId: string): Promise<boolean>;
}

/** The bot's Star transactions read as its deliveries: a lost answer's status, a delivery's transaction, links made late. */
export function createStarTransactions(options: {
  read: ReturnType<typeof createBotApi>["read"];
  /** The contact holding a @username, for an order placed before recipients' ids were kept. */
  find(username: string): Promise<TelegramContact | null>;
  book?: DeliveryBook;
}) {
  const { read, find } = options;
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

  return { status, withTransaction, linkDeliveries };
}
