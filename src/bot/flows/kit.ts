import { randomUUID } from "node:crypto";
import { createConversation } from "@grammyjs/conversations";
import { Composer, InlineKeyboard } from "grammy";
import type { Caller } from "../../core/accounts.js";
import { parseUsername } from "../../core/formats.js";
import { DomainError } from "../../core/model/errors.js";
import type { Core } from "../../core/index.js";
import { type Micro, micro } from "../../core/model/money.js";
import type { Order } from "../../core/model/products.js";
import type { Placed, Priced, PurchaseOptions } from "../../core/purchase.js";
import {
  cancelFlow,
  confirmPurchase,
  endKeyGrace,
  menuEntry,
  pickOption,
  recipientMyself,
  rotateKey,
  rotateKeyAnswer,
  rotateKeyGrace,
  shortfallStars,
} from "../callback-data.js";
import type { BotContext, Flow, FlowContext } from "../context.js";
import { failureReason, plainNumber, usdt } from "../format.js";
import { type Refusal, refusalText } from "../refusals.js";
import { sendStarsInvoice, starsTopupMaxMicro } from "./stars-invoice.js";

export interface FlowDeps {
  core: Core;
  /** The main menu: every final message offers it as the next step. */
  menu(ctx: FlowContext): InlineKeyboard;
  /** Who users can write to (SUPPORT_CONTACT), or null. */
  support: string | null;
}

/** A purchase flow as a feature: its conversation, its command and its main-menu entry, in one composer. */
export interface FlowFeature {
  id: string;
  /** The i18n key of its main-menu button. */
  menuKey: string;
  install(deps: FlowDeps): Composer<BotContext>;
}

export function defineFlow(
  id: string,
  menuKey: string,
  build: (deps: FlowDeps) => (conversation: Flow, ctx: FlowContext) => Promise<void>,
): FlowFeature {
  return {
    id,
    menuKey,
    install(deps) {
      const composer = new Composer<BotContext>();
      // The conversation first: entering one registered later fails.
      composer.use(createConversation<BotContext, FlowContext>(build(deps), { id }));
      const enter = async (ctx: BotContext) => {
        await ctx.conversation.exitAll();
        await ctx.conversation.enter(id);
      };
      composer.command(id, enter);
      composer.callbackQuery(menuEntry.filter({ entry: id }), async (ctx) => {
        await ctx.answerCallbackQuery();
        await enter(ctx);
      });
      return composer;
    },
  };
}

export type Answer = { kind: "text"; text: string; ctx: FlowContext } | { kind: "button"; data: string; ctx: FlowContext };

/** A core call's result as plain data: conversation replays keep JSON, not error classes. */
export type Outcome<T> = { ok: true; value: T } | ({ ok: false } & Refusal);

/** The keyboard with a Cancel row below it; the keyboard given is left as it was, so a re-ask adds no second Cancel. */
export function withCancel(ctx: FlowContext, keyboard?: InlineKeyboard): InlineKeyboard {
  const rows = (keyboard?.inline_keyboard ?? []).filter((row) => row.length);
  return InlineKeyboard.from([...rows, [InlineKeyboard.text(ctx.t("btn-cancel"), cancelFlow.pack())]]);
}

/** Buttons that leave a flow for what they do outside it: the main menu's entries and "New API key". */
const LEAVING = [menuEntry, rotateKey, rotateKeyAnswer, rotateKeyGrace, endKeyGrace];

/**
 * Waits for the user's next text or button. A command or a main-menu button leaves the flow and is handled
 * as usual; anything else (a sticker, a photo) is asked for again.
 */
export async function answer(conversation: Flow, ctx: FlowContext): Promise<Answer> {
  for (;;) {
    const next = await conversation.wait();
    const data = next.callbackQuery?.data;
    if (data !== undefined) {
      if (LEAVING.some((button) => button.parse(data) !== undefined)) await conversation.halt({ next: true });
      await next.answerCallbackQuery();
      return { kind: "button", data, ctx: next };
    }
    const text = next.message?.text;
    if (text !== undefined) {
      if (text.startsWith("/")) await conversation.halt({ next: true });
      return { kind: "text", text: text.trim(), ctx: next };
    }
    // A payment's service message (an earlier invoice paid now) is no answer: its credit has its own notice.
    if (isPaymentMessage(next)) continue;
    await ctx.reply(ctx.t("flow-text-please"));
  }
}

const isPaymentMessage = (ctx: FlowContext) => Boolean(ctx.message?.successful_payment || ctx.message?.refunded_payment);

/**
 * What a flow says before its first question (the balance): kept here by `startFlow` and put at the head of the flow's
 * first message, whichever that is (a question, or an ending), so a flow opens with one message, not two.
 */
const leads = new WeakMap<FlowContext, string>();

/** The text with the flow's lead above it, once: the first message of a flow takes it. */
function withLead(ctx: FlowContext, text: string): string {
  const lead = leads.get(ctx);
  if (lead === undefined) return text;
  leads.delete(ctx);
  return `${lead}\n\n${text}`;
}

export async function ask(conversation: Flow, ctx: FlowContext, prompt: string, keyboard?: InlineKeyboard): Promise<Answer> {
  await ctx.reply(withLead(ctx, prompt), { reply_markup: withCancel(ctx, keyboard) });
  return answer(conversation, ctx);
}

/** The question for a recipient: with "Myself" offered to a user who has a username. */
const recipientQuestion = (ctx: FlowContext) => ctx.t(ctx.from?.username ? "ask-recipient-self" : "ask-recipient");

/**
 * A recipient's username by the core's rule, without its @: typed, or "Myself" tapped by a user who has one;
 * anything else is asked again, saying why. `prompt` replaces the first question (why the last recipient failed).
 */
export async function askUsername(conversation: Flow, ctx: FlowContext, prompt = recipientQuestion(ctx)): Promise<string> {
  const own = ctx.from?.username;
  const keyboard = own ? new InlineKeyboard().text(ctx.t("btn-myself", { username: own }), recipientMyself.pack()) : undefined;
  for (let question = prompt; ; question = `${ctx.t("bad-username")}\n${recipientQuestion(ctx)}`) {
    const reply = await ask(conversation, ctx, question, keyboard);
    const username = reply.kind === "button" ? (recipientMyself.parse(reply.data) && own ? own : null) : parseUsername(reply.text);
    if (username) return username;
  }
}

export interface Option<T> {
  label: string;
  value: T;
  /** Other texts a user may type for it (a game's code, a server's value, a bare name without the price). */
  aliases?: string[];
}

const fold = (text: string) => text.trim().toLowerCase().replace(/\s+/g, " ");

/**
 * A question answered by one of the options: a tap, or the option's label (or an alias) typed out. Anything
 * else is asked again, saying why, with the same buttons.
 */
export async function choose<T>(conversation: Flow, ctx: FlowContext, prompt: string, options: Option<T>[], perRow = 1): Promise<T> {
  const keyboard = new InlineKeyboard();
  options.forEach((option, i) => {
    keyboard.text(option.label, pickOption.pack({ index: i }));
    if (i % perRow === perRow - 1) keyboard.row();
  });
  let question = prompt;
  for (;;) {
    const reply = await ask(conversation, ctx, question, keyboard);
    const picked = reply.kind === "button" ? pickOption.parse(reply.data) : undefined;
    if (picked) {
      const option = options[picked.index];
      if (option) return option.value;
    }
    if (reply.kind === "text") {
      const typed = fold(reply.text);
      const option = options.find((o) => [o.label, ...(o.aliases ?? [])].some((name) => fold(name) === typed));
      if (option) return option.value;
    }
    question = `${ctx.t("pick-one")}\n${prompt}`;
  }
}

/** Runs a core call once (replays reuse its logged result); a DomainError comes back as data. */
export function callCore<T>(conversation: Flow, task: () => Promise<T>): Promise<Outcome<T>> {
  return conversation.external(async (): Promise<Outcome<T>> => {
    try {
      return { ok: true, value: await task() };
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, ...error.refusal };
      throw error;
    }
  });
}

async function balanceOf(conversation: Flow, core: Core, caller: Caller): Promise<Micro> {
  return conversation.external(async () => await core.accounts.available(caller.account));
}

/** A message that ends a flow: it offers the main menu as the next step. */
export async function finish(ctx: FlowContext, deps: FlowDeps, text: string): Promise<void> {
  await ctx.reply(withLead(ctx, text), { reply_markup: deps.menu(ctx) });
}

/** The line that tells how to reach a person, when SUPPORT_CONTACT is set. */
const supportLine = (ctx: FlowContext, deps: FlowDeps) => (deps.support ? `\n${ctx.t("support", { contact: deps.support })}` : "");

/** Explains a refused core call in the user's language, by its reason, with the way on; the flow ends. */
export async function refuse(conversation: Flow, ctx: FlowContext, deps: FlowDeps, refusal: Refusal): Promise<never> {
  await finish(ctx, deps, `${refusalText(ctx.t.bind(ctx), refusal)}${supportLine(ctx, deps)}`);
  return conversation.halt();
}

/**
 * How every purchase flow starts: the caller for this chat's user (the entry made sure the account exists),
 * and what they can spend, said in the flow's first message: the balance, or for an owner key the wallet within its
 * limits (never a balance the user does not have). `canSpendMicro` is the most one order may charge.
 */
export async function startFlow(conversation: Flow, ctx: FlowContext, deps: FlowDeps): Promise<{ caller: Caller; canSpendMicro: Micro }> {
  const caller = await conversation.external(() => deps.core.accounts.botCaller(String(ctx.from!.id)));
  if (!caller) {
    await ctx.reply(ctx.t("start-first"));
    return conversation.halt();
  }
  const funds = await conversation.external(async () => {
    const { availableMicro, unlimited, orderLimitMicro } = await deps.core.accounts.balance(caller.account);
    return { availableMicro, unlimited, orderLimitMicro };
  });
  const text = funds.unlimited
    ? ctx.t("flow-owner-limits", { today: usdt(funds.availableMicro), perOrder: funds.orderLimitMicro === null ? "-" : usdt(funds.orderLimitMicro) })
    : ctx.t("flow-balance", { balance: usdt(funds.availableMicro) });
  leads.set(ctx, text);
  // A balance short of a choice can be topped up in Stars at the confirmation (one top-up's worth at most).
  const inStars = caller.account.kind === "standard" ? starsTopupMaxMicro(deps.core) : 0;
  const spendable = micro(funds.availableMicro + inStars);
  const canSpendMicro = funds.orderLimitMicro === null ? spendable : micro(Math.min(spendable, funds.orderLimitMicro));
  return { caller, canSpendMicro };
}

/** Ends the flow early, saying so, when not even the cheapest choice fits what the user can spend. */
export async function ensureAffordable(
  conversation: Flow,
  ctx: FlowContext,
  deps: FlowDeps,
  canSpendMicro: Micro,
  cheapestMicro: Micro,
): Promise<void> {
  if (canSpendMicro >= cheapestMicro) return;
  await finish(ctx, deps, `${ctx.t("nothing-affordable", { cheapest: usdt(cheapestMicro), balance: usdt(canSpendMicro) })}${supportLine(ctx, deps)}`);
  await conversation.halt();
}

/** What a purchase flow hands the last step: the fresh price, how to describe it, and how to buy it. */
export interface Purchase<D> {
  price(): Promise<Priced<D>>;
  describe(price: Priced<D>): string;
  buy(options: PurchaseOptions): Promise<Placed<Order>>;
  /** What the user is told while the order is still processing. */
  later: string;
}

/**
 * The step every purchase ends with. The core's price gives the exact charge; the summary waits for Confirm, and
 * the purchase carries the confirmed charge: should the price have moved meanwhile, nothing is charged and the new
 * price is shown to confirm again. A short balance ends the flow, or, where Stars are taken, offers to top up the
 * shortfall in Stars and buy in one tap (see `payShortfall`). The idempotency key is made (and kept in the
 * conversation's state) before the question, so a double tap or a replayed update buys once.
 */
export async function confirmAndBuy<D>(
  conversation: Flow,
  ctx: FlowContext,
  deps: FlowDeps,
  caller: Caller,
  order: Purchase<D>,
  /** A price the flow already read to check an answer. */
  first?: Outcome<Priced<D>>,
): Promise<void> {
  let price = first ?? (await callCore(conversation, () => order.price()));
  const key = await conversation.external(() => randomUUID());
  for (let round = 0; ; round++) {
    if (!price.ok) return refuse(conversation, ctx, deps, price);
    const chargeMicro = price.value.chargeMicro;
    const balance = await balanceOf(conversation, deps.core, caller);
    const what = order.describe(price.value);
    let toppedUp = false;
    if (balance < chargeMicro) {
      await payShortfall(conversation, ctx, deps, caller, { what, chargeMicro, balanceMicro: balance, key, round });
      toppedUp = true;
    } else {
      // The token names this round: a Confirm left over from an earlier price buys nothing.
      const token = confirmPurchase.pack({ key: key.slice(0, 8), round });
      const summary = ctx.t("confirm", { what, charge: usdt(chargeMicro), after: usdt(balance - chargeMicro) });
      await ctx.reply(summary, { reply_markup: new InlineKeyboard().text(ctx.t("btn-confirm"), token).text(ctx.t("btn-cancel"), cancelFlow.pack()) });
      await waitForButton(conversation, ctx, token);
    }
    const result = await callCore(conversation, () =>
      order.buy({ idempotencyKey: `bot:${key}`, guard: { confirmedMicro: chargeMicro, exact: true } }),
    );
    const moved = !result.ok && "reason" in result.details && result.details.reason === "price_changed" ? result.details : null;
    if (!moved) return report(conversation, ctx, deps, result, order.later);
    const changed = ctx.t("price-changed", { was: usdt(chargeMicro), now: usdt(moved.requiredMicro) });
    await ctx.reply(toppedUp ? `${changed}\n${ctx.t("shortfall-credit-kept")}` : changed);
    price = await callCore(conversation, () => order.price());
  }
}

/** Waits for the button with `token` (Confirm, or "Top up and buy"); anything else is asked again. */
async function waitForButton(conversation: Flow, ctx: FlowContext, token: string): Promise<void> {
  for (;;) {
    const reply = await answer(conversation, ctx);
    if (reply.kind === "button" && reply.data === token) return;
    await ctx.reply(ctx.t("flow-confirm-or-cancel"));
  }
}

/**
 * A purchase short of balance, where Stars are taken: one button tops up the fewest Stars covering the shortfall,
 * sends their invoice and waits here for its payment (the star-payments middleware credited it before this flow
 * sees the message); the caller then places the order as confirmed, with the flow's one idempotency key. Cancel
 * (or closing the invoice) charges nothing; a payment made after Cancel stays on the balance. Without Stars, or
 * past what one top-up covers, the flow ends saying the balance is short.
 */
async function payShortfall(
  conversation: Flow,
  ctx: FlowContext,
  deps: FlowDeps,
  caller: Caller,
  order: { what: string; chargeMicro: Micro; balanceMicro: Micro; key: string; round: number },
): Promise<void> {
  const { chargeMicro, balanceMicro } = order;
  const shortMicro = micro(chargeMicro - balanceMicro);
  const covering = caller.account.kind === "standard" ? deps.core.topups.starsCovering(shortMicro) : null;
  if (!covering) return refuse(conversation, ctx, deps, { code: "insufficient_funds", details: { requiredMicro: chargeMicro, balanceMicro } });
  const token = shortfallStars.pack({ key: order.key.slice(0, 8), round: order.round });
  const offer = ctx.t("shortfall-offer", {
    what: order.what,
    charge: usdt(chargeMicro),
    balance: usdt(balanceMicro),
    short: usdt(shortMicro),
    stars: String(covering.stars),
    credit: usdt(covering.creditMicro),
  });
  await ctx.reply(offer, {
    reply_markup: new InlineKeyboard()
      .text(ctx.t("btn-shortfall", { stars: String(covering.stars) }), token)
      .row()
      .text(ctx.t("btn-cancel"), cancelFlow.pack()),
  });
  await waitForButton(conversation, ctx, token);
  const made = await callCore(conversation, () => deps.core.topups.startStars(caller.account, covering.stars));
  if (!made.ok) return refuse(conversation, ctx, deps, made);
  if (!(await sendStarsInvoice(ctx, made.value, true))) return conversation.halt();
  await waitForPayment(conversation, ctx, made.value.invoice.payload);
}

/**
 * Waits for the successful_payment of the invoice with `payload`. A command or a main-menu button leaves the flow
 * (the payment, if made later, is credited all the same); anything else is reminded what is awaited.
 */
async function waitForPayment(conversation: Flow, ctx: FlowContext, payload: string): Promise<void> {
  for (;;) {
    const next = await conversation.wait();
    const paid = next.message?.successful_payment;
    if (paid?.invoice_payload === payload) return;
    if (isPaymentMessage(next)) continue;
    const data = next.callbackQuery?.data;
    if (data !== undefined) {
      if (LEAVING.some((button) => button.parse(data) !== undefined)) await conversation.halt({ next: true });
      await next.answerCallbackQuery();
    } else if (next.message?.text?.startsWith("/")) await conversation.halt({ next: true });
    await ctx.reply(ctx.t("shortfall-waiting"), { reply_markup: withCancel(ctx) });
  }
}

/** Tells the outcome of a purchase (refused, or completed, refunded or still under way) and offers the menu. */
async function report(conversation: Flow, ctx: FlowContext, deps: FlowDeps, result: Outcome<Placed<Order>>, later: string): Promise<void> {
  if (!result.ok) return refuse(conversation, ctx, deps, result);
  const order = result.value.order;
  const charged = usdt(order.chargeMicro);
  const id = String(order.id);
  if (order.status === "completed") {
    // The balance the purchase left, as the core answered it (no second read).
    await finish(ctx, deps, ctx.t("order-completed", { id, charged, balance: usdt(result.value.balanceAfterMicro) }));
  } else if (order.status === "failed") {
    await finish(ctx, deps, ctx.t("order-refunded", { id, charged, reason: failureReason(ctx.t.bind(ctx), order) }));
  } else {
    await finish(ctx, deps, ctx.t("order-processing", { id, later }));
  }
}

/** A whole number within [min, max] from what a person types ("1000", "1 000", "1,000"), or null. */
export function parseWhole(text: string, min: number, max: number): number | null {
  const plain = plainNumber(text);
  if (plain === null || !/^\d{1,9}$/.test(plain)) return null;
  const value = Number(plain);
  return value >= min && value <= max ? value : null;
}
