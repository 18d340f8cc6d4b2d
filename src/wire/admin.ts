import type { Admin } from "../core/admin.js";
import type { Spendable } from "../core/accounts.js";
import { type MarkupDefaults, markupOf, percentNumber } from "../core/markup.js";
import { type Account, MARKUP_PRODUCTS } from "../core/model/account.js";
import { toUsdt } from "../core/model/money.js";
import type { Order } from "../core/model/products.js";
import type { TopupMethod, TopupStatus } from "../core/model/topup.js";
import { orderView, summaryView } from "./orders.js";
import { toTopupView } from "./topups.js";

// What the admin CLI's read commands print with --json: the API's field names and money (USDT as exact JSON
// numbers) wherever the API has the field, so a script reads a user, an order or a top-up as a client would.

type OrderRecord = Awaited<ReturnType<Admin["order"]>>;
type TopupRecord = Awaited<ReturnType<Admin["topup"]>>;
type Entry = OrderRecord["entries"][number];

/** Whose it is: the account's Telegram id and @username (null for the service wallet's). */
const ownerView = (account: Pick<Account, "telegramId" | "username" | "kind">) => ({
  telegram_id: account.telegramId,
  username: account.username,
  kind: account.kind,
});

/** What the account can spend now, as GET /v1/balance answers its key (an owner key: the wallet within its daily limit). */
export const balanceJson = (account: Account, funds: Spendable) => ({
  ...ownerView(account),
  balance_usdt: toUsdt(funds.availableMicro),
  currency: "USDT" as const,
  ...(funds.unlimited ? { unlimited: true as const } : {}),
});

/** An account: who, its key, whether blocked, what it can spend, its markups (personal or the default) and limits. */
export const userJson = (account: Account, funds: Spendable, keyPrefix: string | null, defaults: MarkupDefaults) => ({
  ...balanceJson(account, funds),
  blocked: account.blocked,
  key_prefix: keyPrefix,
  markups: Object.fromEntries(
    MARKUP_PRODUCTS.map((product) => [
      product,
      { markup_percent: percentNumber(markupOf(account, product, defaults)), personal: account.markupBp[product] !== null },
    ]),
  ),
  daily_limit_usdt: account.dailyLimitMicro === null ? null : toUsdt(account.dailyLimitMicro),
  daily_left_usdt: funds.dailyLeftMicro === null ? null : toUsdt(funds.dailyLeftMicro),
  order_limit_usdt: account.orderLimitMicro === null ? null : toUsdt(account.orderLimitMicro),
  language: account.language,
  created_at: account.createdAt,
});

/** A ledger entry as the statement shows it (GET /v1/ledger), with whose balance it moved and who made it. */
const entryJson = (entry: Entry) => ({
  entry_id: entry.id,
  kind: entry.kind,
  amount_usdt: toUsdt(entry.amountMicro),
  balance_after_usdt: toUsdt(entry.balanceAfterMicro),
  order_id: entry.orderId,
  topup_id: entry.topupId,
  note: entry.note,
  actor: entry.actor,
  account_id: entry.accountId,
  created_at: entry.createdAt,
});

/**
 * An order: `order` exactly as GET /v1/orders/{id} answers its owner's key (read as stored, not asked about at its
 * backend; never a gift card code), then what only the service sees of it, its ledger entries and its events.
 */
export const orderJson = ({ order, owner, entries, events }: OrderRecord, ownerFunds: Spendable) => ({
  order: orderView(order, ownerFunds.availableMicro),
  account: ownerView(owner),
  paid_from: order.fundingAccountId === order.accountId ? ("balance" as const) : ("wallet" as const),
  recipient_id: order.recipientId,
  backend: order.backend,
  upstream_ref: order.upstreamRef,
  provider_order_id: order.providerOrderId,
  provider_status: order.providerStatus,
  idempotency_key: order.idempotencyKey,
  reason: order.reason,
  error: order.error,
  refunded: order.refunded,
  held: order.held,
  check_after: order.checkAfter,
  check_attempts: order.checkAttempts,
  details: order.details,
  ledger: entries.map(entryJson),
  webhook_events: events.map((event) => ({
    event_id: event.eventId,
    type: event.type,
    status: event.status,
    attempts: event.attempts,
    last_error: event.lastError,
    created_at: event.createdAt,
    delivered_at: event.deliveredAt,
  })),
});

/** The latest orders, newest first: each as GET /v1/orders lists it, with whose it is. */
export const ordersJson = (orders: Awaited<ReturnType<Admin["latestOrders"]>>) => ({
  count: orders.length,
  orders: orders.map((order) => ({ ...summaryView(order), account: { telegram_id: order.telegramId, username: order.username } })),
});

/** A top-up as GET /v1/topups/{id} shows it, with whose it is, Telegram's charge id, what a refund took back, and its entries. */
export const topupJson = ({ topup, owner, entries }: TopupRecord) => ({
  topup: toTopupView(topup),
  account: ownerView(owner),
  charge_id: topup.chargeId,
  payer_id: topup.payerId,
  decided_by: topup.decidedBy,
  reversed_usdt: topup.reversedMicro === null ? null : toUsdt(topup.reversedMicro),
  ledger: entries.map(entryJson),
});

/** Top-ups by method and state, with what was credited. */
export const topupStatsJson = (rows: Array<{ method: TopupMethod; status: TopupStatus; count: number; creditedMicro: number }>) => ({
  topups: rows.map((r) => ({ method: r.method, status: r.status, count: r.count, credited_usdt: toUsdt(r.creditedMicro) })),
});

/** The held orders, the oldest first: each as GET /v1/orders lists it, with the recipient's id and why it is held. */
export const heldJson = (orders: Order[]) => ({
  count: orders.length,
  orders: orders.map((order) => ({ ...summaryView(order), recipient_id: order.recipientId, held: order.held })),
});
