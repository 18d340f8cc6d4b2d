import { randomUUID } from "node:crypto";
import { InlineKeyboard } from "grammy";
import type { Caller } from "../../core/accounts.js";
import { DomainError, type ErrorCode, type ErrorDetails } from "../../core/errors.js";
import type { Core } from "../../core/index.js";
import type { Placed } from "../../core/orders.js";
import { formatUsdt, type Micro } from "../../core/money.js";
import type { Flow, FlowContext } from "../context.js";

export const CANCEL = "cancel";

export interface FlowDeps {
  core: Core;
}

export type Answer = { kind: "text"; text: string; ctx: FlowContext } | { kind: "button"; data: string; ctx: FlowContext };

/** A core call's result as plain data: conversation replays keep JSON, not error classes. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string; details: ErrorDetails };

export const usdt = (micro: Micro) => formatUsdt(micro);

export function withCancel(ctx: FlowContext, keyboard = new InlineKeyboard()): InlineKeyboard {
  const rows = keyboard.inline_keyboard;
  // A new row only after a filled one: Telegram refuses empty rows.
  if (rows.length && rows[rows.length - 1].length) keyboard.row();
  return keyboard.text(ctx.t("btn-cancel"), CANCEL);
}

/**
 * Waits for the user's next text or button. A command or a main-menu button leaves the flow and is handled
 * as usual; anything else (a sticker, a photo) is asked for again.
 */
export async function answer(conversation: Flow, ctx: FlowContext): Promise<Answer> {
  for (;;) {
    const next = await conversation.wait();
    const data = next.callbackQuery?.data;
    if (data !== undefined) {
      if (data.startsWith("menu:") || data.startsWith("key:")) await conversation.halt({ next: true });
      await next.answerCallbackQuery();
      return { kind: "button", data, ctx: next };
    }
    const text = next.message?.text;
    if (text !== undefined) {
      if (text.startsWith("/")) await conversation.halt({ next: true });
      return { kind: "text", text: text.trim(), ctx: next };
    }
    await ctx.reply(ctx.t("flow-text-please"));
  }
}

export async function ask(conversation: Flow, ctx: FlowContext, prompt: string, keyboard?: InlineKeyboard): Promise<Answer> {
  await ctx.reply(prompt, { reply_markup: withCancel(ctx, keyboard) });
  return answer(conversation, ctx);
}

/** Runs a core call once (replays reuse its logged result); a DomainError comes back as data. */
export function attempt<T>(conversation: Flow, task: () => Promise<T>): Promise<Outcome<T>> {
  return conversation.external(async (): Promise<Outcome<T>> => {
    try {
      return { ok: true, value: await task() };
    } catch (error) {
      if (error instanceof DomainError) return { ok: false, code: error.code, message: error.message, details: error.details };
      throw error;
    }
  });
}

/** The caller for this chat's user; the flow's entry already made sure the account exists. */
export async function callerOf(conversation: Flow, ctx: FlowContext, core: Core): Promise<Caller> {
  const caller = await conversation.external(() => core.accounts.botCaller(String(ctx.from!.id)));
  if (!caller) {
    await ctx.reply(ctx.t("start-first"));
    return conversation.halt();
  }
  return caller;
}

export async function balanceOf(conversation: Flow, core: Core, caller: Caller): Promise<Micro> {
  return conversation.external(async () => await core.accounts.available(caller.account));
}

/** Explains a refused core call in the user's language; the flow ends. */
export async function refuse(conversation: Flow, ctx: FlowContext, outcome: Extract<Outcome<unknown>, { ok: false }>): Promise<never> {
  const text = {
    insufficient_funds: () =>
      ctx.t("err-insufficient", { needed: usdt(outcome.details.requiredMicro ?? 0), balance: usdt(outcome.details.balanceMicro ?? 0) }),
    unavailable: () => ctx.t("err-unavailable"),
    upstream_failed: () => ctx.t("err-unavailable"),
    key_blocked: () => ctx.t("blocked"),
    rate_limited: () => ctx.t("err-unavailable"),
    unauthorized: () => ctx.t("start-first"),
    not_found: () => outcome.message,
    invalid_input: () => outcome.message,
  }[outcome.code]();
  await ctx.reply(text);
  return conversation.halt();
}

/**
 * The step every purchase ends with: the balance is read, a short one ends the flow, otherwise the summary with
 * the exact charge and the balance after waits for Confirm. The idempotency key is made (and kept in the
 * conversation's state) before the question is shown, so a double tap or a replayed update buys once.
 */
export async function confirmCharge(conversation: Flow, ctx: FlowContext, core: Core, caller: Caller, what: string, priceMicro: Micro): Promise<string> {
  const balance = await balanceOf(conversation, core, caller);
  if (balance < priceMicro) {
    await ctx.reply(ctx.t("err-insufficient", { needed: usdt(priceMicro), balance: usdt(balance) }));
    return conversation.halt();
  }
  const key = await conversation.external(() => randomUUID());
  const token = key.slice(0, 8);
  const summary = ctx.t("confirm", { what, charge: usdt(priceMicro), after: usdt(balance - priceMicro) });
  await ctx.reply(summary, { reply_markup: new InlineKeyboard().text(ctx.t("btn-confirm"), `ok:${token}`).text(ctx.t("btn-cancel"), CANCEL) });
  for (;;) {
    const reply = await answer(conversation, ctx);
    if (reply.kind === "button" && reply.data === `ok:${token}`) return `bot:${key}`;
    await ctx.reply(ctx.t("flow-confirm-or-cancel"));
  }
}

/** Tells the outcome of a purchase: refused, or the order completed, refunded or still under way (`later`). */
export async function report(conversation: Flow, ctx: FlowContext, core: Core, caller: Caller, result: Outcome<Placed>, later: string): Promise<void> {
  if (!result.ok) return refuse(conversation, ctx, result);
  const order = result.value.order;
  const charged = usdt(Number(order.charge_micro));
  const id = String(order.id);
  if (order.status === "completed") {
    await ctx.reply(ctx.t("order-completed", { id, charged, balance: usdt(await balanceOf(conversation, core, caller)) }));
  } else if (order.status === "failed") {
    await ctx.reply(ctx.t("order-refunded", { id, charged, reason: order.error ?? "" }));
  } else {
    await ctx.reply(ctx.t("order-processing", { id, later }));
  }
}

/** A Telegram username: 3 to 32 letters, digits or underscores, with or without @; null otherwise. */
export function parseUsername(text: string): string | null {
  const match = /^@?([A-Za-z0-9_]{3,32})$/.exec(text.trim());
  return match ? match[1] : null;
}

/** A whole number within [min, max] from text, or null. */
export function parseWhole(text: string, min: number, max: number): number | null {
  if (!/^\d{1,9}$/.test(text.trim())) return null;
  const value = Number(text.trim());
  return value >= min && value <= max ? value : null;
}
