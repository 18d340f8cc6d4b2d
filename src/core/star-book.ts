import type { Db } from "../db/database.js";
import {
  lastStarCheck,
  linkBookedDeliveries,
  openStarOrders,
  recordStars,
  saveStarCheck,
  starFlows,
  starOpening,
  type StarOrder,
  type StarRow,
  starRows,
  unbookedDeliveries,
} from "../db/star-book.js";
import type { Clock } from "./model/clock.js";
import { unavailable } from "./model/errors.js";
import { type Order, PREMIUM_STARS } from "./model/products.js";
import type { StarDifference, StarKind, StarMargin, StarReconciliation, StarSummary } from "./model/star-book.js";
import type { StarPaymentsPort, StarTransactionRecord } from "./ports.js";

// The bot's Star book: every Star in (payments) and out (refunds, gifts, Premium, anything else Telegram lists),
// reconciled with Telegram's own list (getStarTransactions) and balance (getMyStarBalance). Payments and refunds are
// booked by the top-ups (topups/stars.ts); a gift or Premium order of the Telegram backend is booked here when it
// completes, and a sweep before each reconciliation books any completion that was missed and gives each row the
// transaction its order was linked to later. The book begins with an opening balance recorded at the first
// reconciliation: what the bot held then, every transaction listed up to then included.

/** Differences kept in a result. */
const SHOWN = 20;
/** A transaction this recent may still be on its way into the book (an update being handled, a send answering). */
const SETTLING_S = 120;
/** Deliveries one sweep books at most. */
const SWEEP = 500;
/** How often the balance may move while it is read before the reconciliation gives up for now. */
const READS = 3;

export interface StarBookOptions {
  db: Db;
  clock: Clock;
  /** The bot's Star transactions and balance; null where the service has no bot whose Stars it books. */
  port: StarPaymentsPort | null;
  /** The top-ups' look at the transactions (lost payments credited, Telegram's refunds taken back), first. */
  settle: () => Promise<unknown>;
  /** USDT credited per Star paid in (null: Stars top-ups are not offered); what margins are worked out at. */
  rateMicro: number | null;
  tariffs: { usdtPerStarMicro: number; premiumMicro: Readonly<Record<3 | 6 | 12, number>> };
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** The Stars a Telegram gift or Premium order pays out, or null when its details do not say. */
function starsOf(order: Pick<StarOrder, "productType" | "details">): number | null {
  const details = order.details as { stars?: unknown; months?: unknown };
  if (order.productType === "gift") return typeof details.stars === "number" ? details.stars : null;
  return typeof details.months === "number" ? (PREMIUM_STARS[details.months] ?? null) : null;
}

export function createStarBook(options: StarBookOptions) {
  const { db, clock, log } = options;
  const nowIso = () => clock.now().toISOString();

  /** Books one delivery's Stars out, once per order. */
  async function bookDelivery(order: StarOrder, at: string): Promise<boolean> {
    const stars = starsOf(order);
    if (stars === null) {
      log.error({ orderId: order.id }, "a Telegram delivery whose Stars cannot be read from its details is not in the Star book");
      return false;
    }
    return recordStars(db, {
      kind: order.productType,
      stars: -stars,
      transaction_id: order.transactionId,
      topup_id: null,
      order_id: order.id,
      user_id: order.recipientId,
      telegram_date: null,
      created_at: at,
    });
  }

  /** Completed deliveries since the opening not booked yet (a completion whose booking was cut), and late links. */
  async function sweep(opening: StarRow | undefined): Promise<void> {
    if (!opening) return;
    const at = nowIso();
    for (const order of await unbookedDeliveries(db, opening.created_at, SWEEP)) await bookDelivery(order, at);
    await linkBookedDeliveries(db);
  }

  /** balance, transactions, balance again: a reading during which nothing moved the balance. */
  async function steadyReading(port: StarPaymentsPort) {
    for (let read = 0; read < READS; read++) {
      const before = await port.balance();
      const transactions = await port.transactions(0);
      const after = await port.balance();
      if (before === after) return { balance: after, transactions };
    }
    return null;
  }

  async function reconcile(): Promise<StarReconciliation> {
    const port = options.port;
    if (!port) throw unavailable("The bot's Stars are not booked here: no BOT_TOKEN, or neither Stars top-ups nor a Telegram backend");
    await options.settle();
    await sweep(await starOpening(db));
    // Open orders first: one completing after this read is booked before `startedAt`, so counted below.
    const open = await openStarOrders(db);
    const startedAt = clock.now();
    let reading: Awaited<ReturnType<typeof steadyReading>>;
    try {
      reading = await steadyReading(port);
    } catch (error) {
      throw unavailable(`The bot's Star balance or transactions could not be read: ${(error as Error).message}`, {}, error);
    }
    if (!reading) throw unavailable("The bot's Star balance kept moving while it was read: try again");
    const { balance, transactions } = reading;
    const at = startedAt.toISOString();
    let rows = await starRows(db);
    let booked = 0;
    const listed = new Set(transactions.map((t) => `${t.kind}:${t.id}`));
    // What was booked before this reading began, and whatever names a transaction in it; later rows wait for the next.
    const counted = (row: StarRow) =>
      row.kind === "opening" || row.created_at < at || (row.transaction_id !== null && listed.has(`${row.kind}:${row.transaction_id}`));

    const recent = Math.floor(startedAt.getTime() / 1000) - SETTLING_S;
    const take = <T extends { kind: string; stars: number | null }>(list: T[], t: StarTransactionRecord) => {
      const index = list.findIndex((item) => item.kind === t.kind && item.stars !== null && Math.abs(item.stars) === Math.abs(t.stars));
      return index < 0 ? null : list.splice(index, 1)[0]!;
    };
    const isDelivery = (kind: string) => kind === "gift" || kind === "premium";
    // Deliveries booked without their transaction yet: what an unbooked gift or Premium transaction is first.
    const unlinked = () => rows.filter((r) => isDelivery(r.kind) && r.transaction_id === null && counted(r));

    let opening = rows.find((row) => row.kind === "opening");
    if (!opening) {
      // The first reconciliation: the bot's Stars before the book began, every listed transaction in them or booked.
      // Opened only when nothing is on its way into the book: a delivery or payment booked after the opening would
      // count its Stars twice.
      const inBook = new Set(rows.filter((r) => r.transaction_id !== null && counted(r)).map((r) => `${r.kind}:${r.transaction_id}`));
      const rest = unlinked();
      const arriving = transactions.filter((t) => !inBook.has(`${t.kind}:${t.id}`) && !(isDelivery(t.kind) && take(rest, t)) && t.date >= recent);
      if (open.length || arriving.length)
        throw unavailable(
          `The Star book opens when nothing is on its way into it (${open.length} gift or Premium orders open, ${arriving.length} transactions just made): it tries again at the next check`,
        );
      // It names the last transaction it includes (the list is chronological), and that one's date.
      const last = transactions.at(-1);
      const sum = rows.filter(counted).reduce((total, row) => total + row.stars, 0);
      const entry = {
        kind: "opening" as const,
        stars: balance - sum,
        transaction_id: last?.id ?? null,
        topup_id: null,
        order_id: null,
        user_id: null,
      };
      if (await recordStars(db, { ...entry, telegram_date: last?.date ?? 0, created_at: at })) booked++;
      rows = await starRows(db);
      opening = rows.find((row) => row.kind === "opening")!;
      log.warn({ stars: opening.stars, through: opening.transaction_id }, "the Star book opens with the bot's balance");
    }
    // Before the book began: the transactions up to the opening's last, in the list's order (by its date if gone).
    const through = opening.transaction_id === null ? -1 : transactions.findIndex((t) => t.id === opening.transaction_id);
    const cut = opening.transaction_id === null ? -Infinity : Number(opening.telegram_date ?? 0);
    const history = (index: number, t: StarTransactionRecord) => (through >= 0 ? index <= through : t.date <= cut);

    const differences: StarDifference[] = [];
    const byTransaction = new Map(rows.filter((r) => r.transaction_id !== null && counted(r)).map((r) => [`${r.kind}:${r.transaction_id}`, r]));
    const unpaired = unlinked();
    // Orders still under way: what an unbooked gift or Premium is next.
    const underWay = open.map((o) => ({ kind: o.productType, stars: starsOf(o) }));
    let settling = 0;
    let bookedNow = 0;
    let compared = 0;
    const seen = new Set<string>();

    for (const [index, t] of transactions.entries()) {
      const key = `${t.kind}:${t.id}`;
      const row = byTransaction.get(key);
      if (row) {
        seen.add(key);
        compared++;
        if (row.stars !== t.stars) differences.push({ what: "stars", kind: t.kind, transactionId: t.id, telegram: t.stars, book: row.stars });
        continue;
      }
      const delivery = isDelivery(t.kind);
      if (delivery && take(unpaired, t)) {
        compared++;
        continue;
      }
      // Before the book began: in the opening.
      if (history(index, t)) continue;
      compared++;
      if (delivery && take(underWay, t)) {
        settling += t.stars;
        continue;
      }
      if (t.kind === "other") {
        // Not the service's doing (a withdrawal, ads, Stars from elsewhere): booked as it is, and said in the log.
        const entry = { kind: "other" as const, stars: t.stars, transaction_id: t.id, topup_id: null, order_id: null, user_id: t.userId };
        if (await recordStars(db, { ...entry, telegram_date: t.date, created_at: nowIso() })) {
          booked++;
          log.warn({ transactionId: t.id, stars: t.stars }, "a Star transaction the service did not make is booked as other");
        }
        bookedNow += t.stars;
        continue;
      }
      if (t.date >= recent) {
        settling += t.stars;
        continue;
      }
      differences.push({ what: "unbooked", kind: t.kind, transactionId: t.id, stars: t.stars, userId: t.userId, date: t.date });
    }
    for (const row of rows) {
      if (row.kind === "opening" || row.transaction_id === null || !counted(row) || seen.has(`${row.kind}:${row.transaction_id}`)) continue;
      differences.push({ what: "missing", kind: row.kind, transactionId: row.transaction_id, stars: row.stars });
    }
    for (const row of unpaired) differences.push({ what: "unpaid", kind: row.kind as "gift" | "premium", orderId: row.order_id!, stars: row.stars });
    const book = rows.filter(counted).reduce((total, row) => total + row.stars, bookedNow);
    if (book + settling !== balance) differences.unshift({ what: "balance", telegram: balance, book: book + settling });

    const result: StarReconciliation = {
      at,
      balance,
      book,
      settling,
      opening: opening.stars,
      transactions: compared,
      booked,
      differences: differences.slice(0, SHOWN),
      differenceCount: differences.length,
    };
    await saveStarCheck(db, at, result);
    if (differences.length) log.error({ differences: result.differences, count: differences.length }, "the Star book differs from Telegram's");
    return result;
  }

  /** What each product earns in Stars at the top-up rate; none without a rate. */
  function margins(): StarMargin[] {
    const rate = options.rateMicro;
    if (!rate) return [];
    const round = (stars: number) => Math.round(stars * 100) / 100;
    const gift = options.tariffs.usdtPerStarMicro;
    const list: StarMargin[] = [
      { product: "gift", months: null, priceMicro: gift, inStars: round(gift / rate), costStars: 1, marginStars: round(gift / rate - 1) },
    ];
    for (const months of [3, 6, 12] as const) {
      const price = options.tariffs.premiumMicro[months];
      const cost = PREMIUM_STARS[months]!;
      list.push({
        product: "premium",
        months,
        priceMicro: price,
        inStars: round(price / rate),
        costStars: cost,
        marginStars: round(price / rate - cost),
      });
    }
    return list;
  }

  async function summary(): Promise<StarSummary> {
    const now = clock.now();
    const day = now.toISOString().slice(0, 10);
    let balance: number | null = null;
    let balanceError: string | null = null;
    if (!options.port) balanceError = "the bot's Stars are not read here";
    else {
      try {
        balance = await options.port.balance();
      } catch (error) {
        balanceError = (error as Error).message;
      }
    }
    const open = await openStarOrders(db);
    const flows = await starFlows(db, `${day}T00:00:00.000Z`);
    const today: StarSummary["today"] = { day, in: {}, out: {}, net: 0 };
    for (const flow of flows) {
      const kind = flow.kind as StarKind;
      if (flow.in) today.in[kind] = flow.in;
      if (flow.out) today.out[kind] = flow.out;
      today.net += flow.in + flow.out;
    }
    return {
      at: now.toISOString(),
      balance,
      balanceError,
      open: { orders: open.length, stars: open.reduce((total, o) => total + (starsOf(o) ?? 0), 0) },
      today,
      rateMicro: options.rateMicro,
      margins: margins(),
      last: (await lastStarCheck(db)) as StarReconciliation | null,
    };
  }

  return {
    /** Whether the bot's Stars are read here. */
    active: () => options.port !== null,
    /** An order settled: a Telegram gift or Premium completed is booked out. Must not throw. */
    settled(order: Order): void {
      if (order.status !== "completed" || order.backend !== "telegram" || (order.productType !== "gift" && order.productType !== "premium")) return;
      const delivery: StarOrder = {
        id: order.id,
        productType: order.productType,
        details: order.details,
        transactionId: order.transactionId,
        recipientId: order.recipientId,
        held: order.held !== null,
      };
      bookDelivery(delivery, nowIso()).catch((error: unknown) =>
        log.warn({ orderId: order.id, err: error }, "a delivery could not be booked now: the next reconciliation books it"),
      );
    },
    /** The book against Telegram's transactions and balance, now; the result is kept as the last one. */
    reconcile,
    /** The balance, what open orders will spend, today's in and out, each product's margin, the last reconciliation. */
    summary,
  };
}

export type StarBook = ReturnType<typeof createStarBook>;
