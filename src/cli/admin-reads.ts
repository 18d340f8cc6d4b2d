import { targetLabel } from "../core/admin.js";
import type { Core } from "../core/index.js";
import { type MarkupDefaults, markupOf, percentNumber } from "../core/markup.js";
import { type Account, MARKUP_PRODUCTS } from "../core/model/account.js";
import { formatUsdt, type Micro } from "../core/model/money.js";
import { balanceJson, heldJson, orderJson, ordersJson, topupJson, topupStatsJson, userJson } from "../wire/admin.js";
import { summaryView } from "../wire/orders.js";

// The admin CLI's read commands: what an administrator would otherwise ask the bot or the Mini App's desk. Each
// answers in lines for a person, or with --json in the API's field names (src/wire/admin.ts) for a script.

/** What a read prints: its lines, or (--json) its object. */
type Shown = { text: string[]; json: unknown };

/** A read's arguments, parsed by the CLI: the account a target named (whether one was given), an id, how many. */
export interface ReadArgs {
  target: () => Promise<Account & { telegramId: string }>;
  targeted: boolean;
  id: (what: string) => number;
  limit: number;
  markups: MarkupDefaults;
}

const usdt = (amount: Micro | number) => `${formatUsdt(amount)} USDT`;
const when = (at: string | null) => at ?? "not yet";
/** `label: value` lines, leaving out what has no value. */
const fields = (pairs: Array<[string, string | number | null | undefined | false]>) =>
  pairs.filter(([, value]) => value !== null && value !== undefined && value !== false).map(([label, value]) => `  ${label}: ${value}`);

/** The funds line of an account: a balance, or an owner key's share of the service wallet. */
function fundsText(funds: Awaited<ReturnType<Core["accounts"]["balance"]>>): string {
  if (!funds.unlimited) return usdt(funds.availableMicro);
  return `${usdt(funds.availableMicro)} available (an owner key: the service wallet${funds.dailyLeftMicro === null ? "" : ", within what its daily limit leaves today"})`;
}

type Entries = Awaited<ReturnType<Core["admin"]["order"]>>["entries"];

/** Ledger entries, one a line: when, what, how much, the balance after, by whom (and whose, when not the owner's). */
function entryLines(entries: Entries, ownerId: number): string[] {
  if (!entries.length) return ["ledger entries: none"];
  return [
    "ledger entries:",
    ...entries.map(
      (e) =>
        `  #${e.id} ${e.createdAt} ${e.kind} ${usdt(e.amountMicro)}, balance after ${formatUsdt(e.balanceAfterMicro)}${e.accountId === ownerId ? "" : " (the service wallet)"}, by ${e.actor}${e.note ? `: ${e.note}` : ""}`,
    ),
  ];
}

async function user(core: Core, args: ReadArgs): Promise<Shown> {
  const account = await args.target();
  const [funds, prefix] = await Promise.all([core.accounts.balance(account), core.admin.keyPrefix(account.id)]);
  const markups = MARKUP_PRODUCTS.map(
    (product) =>
      `${product} ${percentNumber(markupOf(account, product, args.markups))}% (${account.markupBp[product] === null ? "default" : "personal"})`,
  );
  const shown = (limit: Micro | null) => (limit === null ? "none" : formatUsdt(limit));
  const text = [
    `${targetLabel(account)} (${account.kind === "owner" ? "owner key" : "standard key"})`,
    ...fields([
      ["key", prefix ? `${prefix}… (the live key's prefix)` : "none issued"],
      ["blocked", account.blocked ? "yes" : "no"],
      ["balance", fundsText(funds)],
      ["markups", markups.join(", ")],
      [
        "owner limits",
        account.kind === "owner" &&
          `daily ${shown(account.dailyLimitMicro)}${funds.dailyLeftMicro === null ? "" : ` (${formatUsdt(funds.dailyLeftMicro)} left today)`}, per order ${shown(account.orderLimitMicro)}`,
      ],
      ["language", account.language ?? "Telegram's"],
      ["created", account.createdAt],
    ]),
  ];
  return { text, json: userJson(account, funds, prefix, args.markups) };
}

async function balance(core: Core, args: ReadArgs): Promise<Shown> {
  const account = await args.target();
  const funds = await core.accounts.balance(account);
  return { text: [`balance of ${targetLabel(account)}: ${fundsText(funds)}`], json: balanceJson(account, funds) };
}

async function order(core: Core, args: ReadArgs): Promise<Shown> {
  const record = await core.admin.order(args.id("an order id"));
  const { order: o, owner, events } = record;
  const funds = await core.accounts.balance(owner);
  const text = [
    `order #${o.id}: ${o.productType}, ${o.status}${o.held ? " (held)" : ""}`,
    ...fields([
      ["account", `${targetLabel(owner)}, paid from ${o.fundingAccountId === o.accountId ? "its balance" : "the service wallet"}`],
      ["recipient", `${o.recipient}${o.recipientId ? ` (id ${o.recipientId})` : ""}`],
      ["product", JSON.stringify(o.details)],
      ["charge", usdt(o.chargeMicro)],
      ["placed", o.createdAt],
      ["finished", o.status === "processing" ? null : when(o.completedAt)],
      ["backend", o.backend ?? "not recorded"],
      ["our reference", o.upstreamRef],
      ["provider order id", o.providerOrderId],
      ["provider status", o.providerStatus],
      ["transaction id", o.transactionId],
      ["idempotency key", o.idempotencyKey],
      ["failure", o.status === "failed" && `${o.reason ?? "no reason"}${o.error ? `: ${o.error}` : ""}`],
      ["refunded", o.status === "failed" && (o.refunded ? "yes" : "no")],
      ["held", o.held],
      ["checks", o.status === "processing" && `${o.checkAttempts} so far, next ${when(o.checkAfter)}`],
    ]),
    ...entryLines(record.entries, owner.id),
    ...(events.length
      ? [
          "webhook events:",
          ...events.map(
            (e) =>
              `  ${e.eventId} ${e.type}: ${e.status}${e.deliveredAt ? ` ${e.deliveredAt}` : ""}, ${e.attempts} attempt(s)${e.lastError ? `, last error: ${e.lastError}` : ""}`,
          ),
        ]
      : ["webhook events: none"]),
  ];
  return { text, json: orderJson(record, funds) };
}

async function orders(core: Core, args: ReadArgs): Promise<Shown> {
  const account = args.targeted ? await args.target() : null;
  const latest = await core.admin.latestOrders(account?.id ?? null, args.limit);
  const text = latest.length
    ? latest.map((o) => {
        const whose = account ? "" : ` (${targetLabel({ telegramId: o.telegramId ?? "?", username: o.username })})`;
        return `#${o.id} ${o.createdAt} ${o.productType} ${summaryView(o).amount} to ${o.recipient}: ${o.status}, ${usdt(o.chargeMicro)}${whose}`;
      })
    : [account ? `no orders of ${targetLabel(account)}` : "no orders yet"];
  return { text, json: ordersJson(latest) };
}

async function topup(core: Core, args: ReadArgs): Promise<Shown> {
  const record = await core.admin.topup(args.id("a top-up id"));
  const { topup: t, owner } = record;
  const text = [
    `top-up #${t.id}: ${t.method}, ${t.status}`,
    ...fields([
      ["account", targetLabel(owner)],
      ["amount", `${usdt(t.amountMicro)}${t.stars === null ? "" : ` (${t.stars} Stars)`}`],
      ["credited", t.creditedMicro === null ? null : `${usdt(t.creditedMicro)} at ${when(t.creditedAt)}`],
      ["invoice id", t.invoiceId],
      ["pay url", t.payUrl],
      ["expires", t.expiresAt],
      ["reference", t.reference],
      ["decided by", t.decidedBy],
      ["reason", t.reason],
      ["Telegram charge id", t.chargeId],
      ["paid by Telegram user", t.payerId],
      ["taken back", t.reversedMicro === null ? null : usdt(t.reversedMicro)],
      ["created", t.createdAt],
    ]),
    ...entryLines(record.entries, owner.id),
  ];
  return { text, json: topupJson(record) };
}

async function topups(core: Core): Promise<Shown> {
  const rows = await core.topups.stats();
  return {
    text: rows.length
      ? rows.map((r) => `${r.method} ${r.status}: ${r.count}${r.creditedMicro ? `, ${usdt(r.creditedMicro)} credited` : ""}`)
      : ["no top-ups yet"],
    json: topupStatsJson(rows),
  };
}

async function held(core: Core): Promise<Shown> {
  const list = await core.held.list();
  return {
    text: list.length
      ? list.map(
          (o) =>
            `#${o.id} ${o.productType} to @${o.recipient} (user ${o.recipientId ?? "?"}), ${usdt(o.chargeMicro)}, placed ${o.createdAt}: ${o.held}`,
        )
      : ["no order is held"],
    json: heldJson(list),
  };
}

/** The read commands by name. */
export const READS = { user, balance, order, orders, topup, topups, held } satisfies Record<string, (core: Core, args: ReadArgs) => Promise<Shown>>;

export type ReadCommand = keyof typeof READS;
