import { createConversation } from "@grammyjs/conversations";
import { type Api, Composer, InlineKeyboard } from "grammy";
import type { Account } from "../../core/model/account.js";
import { DomainError } from "../../core/model/errors.js";
import type { Core } from "../../core/index.js";
import { fromUsdt, type Micro, parseUsdt } from "../../core/model/money.js";
import type { Topup } from "../../core/model/topup.js";
import { menuEntry, starsPack, topupAmount, topupByStars, topupByTransfer, topupCancel } from "../callback-data.js";
import type { BotContext, Flow, FlowContext } from "../context.js";
import { answer, ask, callCore, parseWhole, withCancel } from "../flows/kit.js";
import { sendStarsInvoice } from "../flows/stars-invoice.js";
import { minute, plainNumber, type Translate, usdt } from "../format.js";
import { mainMenu } from "../keyboards.js";
import { type Refusal, refusalText } from "../refusals.js";

/** The amounts offered as buttons, in USDT (any other may be typed). */
const AMOUNTS = [10, 25, 50, 100];

export interface TopupDeps {
  core: Core;
  api: Api;
  admins: number[];
  /** A user's own language, for messages sent outside their chat's updates. */
  translator(telegramId: string): Promise<Translate>;
  tell(telegramId: string, text: (t: Translate) => string): Promise<void>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** A top-up's line in /topups: a Stars top-up names its Stars. */
const lineVars = (t: Translate, topup: Topup) => ({
  id: topup.id,
  method: topup.method === "stars" ? `${t("topup-method-stars")} ${topup.stars ?? 0} ⭐` : t(`topup-method-${topup.method}`),
  amount: usdt(topup.creditedMicro ?? topup.amountMicro),
  status: t(`topup-status-${topup.status}`),
});

const refusal = (ctx: FlowContext, outcome: Refusal) => refusalText(ctx.t.bind(ctx), outcome);

const invoiceKeyboard = (t: Translate, topup: Topup) =>
  new InlineKeyboard()
    .url(t("btn-topup-pay", { amount: usdt(topup.amountMicro) }), topup.payUrl ?? "https://t.me/CryptoBot")
    .row()
    .text(t("btn-topup-cancel"), topupCancel.pack({ id: topup.id }));

type Chosen = { kind: "invoice" | "transfer"; amountMicro: Micro } | { kind: "stars" };

/**
 * The amount to top up, within the limits: a button (an invoice), or typed. "I paid by transfer" switches to a
 * transfer, which takes a typed amount; so does a service with transfers only. "Pay with Telegram Stars" goes on to
 * the Stars packs; a service taking Stars only goes there at once.
 */
async function askAmount(conversation: Flow, ctx: FlowContext, core: Core): Promise<Chosen> {
  const methods = core.topups.methods();
  if (!methods.invoice && !methods.transfer) return { kind: "stars" };
  const { minMicro, maxMicro } = core.topups.limits;
  const bounds = { min: usdt(minMicro), max: usdt(maxMicro) };
  const keyboard = new InlineKeyboard();
  for (const amount of AMOUNTS)
    if (fromUsdt(amount) >= minMicro && fromUsdt(amount) <= maxMicro) keyboard.text(`${amount} USDT`, topupAmount.pack({ usdt: amount }));
  if (methods.stars) keyboard.row().text(ctx.t("btn-topup-stars"), topupByStars.pack());
  if (methods.transfer) keyboard.row().text(ctx.t("btn-topup-transfer"), topupByTransfer.pack());
  let transfer = !methods.invoice;
  const first = transfer ? new InlineKeyboard(methods.stars ? [[InlineKeyboard.text(ctx.t("btn-topup-stars"), topupByStars.pack())]] : []) : keyboard;
  await ctx.reply(ctx.t(transfer ? "topup-transfer-amount" : "topup-ask", bounds), { reply_markup: withCancel(ctx, first) });
  for (;;) {
    const reply = await answer(conversation, ctx);
    if (reply.kind === "button" && topupByStars.parse(reply.data) && methods.stars) return { kind: "stars" };
    if (reply.kind === "button" && topupByTransfer.parse(reply.data)) {
      transfer = true;
      await ctx.reply(ctx.t("topup-transfer-amount", bounds), { reply_markup: withCancel(ctx) });
      continue;
    }
    const text = reply.kind === "button" ? String(topupAmount.parse(reply.data)?.usdt ?? "") : plainNumber(reply.text);
    const micro = text === null ? null : parseUsdt(text);
    if (micro !== null && micro >= minMicro && micro <= maxMicro) return { kind: transfer ? "transfer" : "invoice", amountMicro: micro };
    await ctx.reply(ctx.t("topup-bad-amount", bounds), { reply_markup: withCancel(ctx) });
  }
}

/** How many Stars: a pack (each saying the USDT it credits), or a typed number within the bounds; null without Stars. */
async function askStars(conversation: Flow, ctx: FlowContext, core: Core): Promise<number | null> {
  const offer = core.topups.starsOffer();
  if (!offer) return null;
  const keyboard = new InlineKeyboard();
  offer.packs.forEach((pack, i) => {
    keyboard.text(ctx.t("btn-stars-pack", { stars: String(pack.stars), amount: usdt(pack.amountMicro) }), starsPack.pack({ stars: pack.stars }));
    if (i % 2 === 1) keyboard.row();
  });
  // Plain digits, as they are typed back (Fluent would group 10000 as "10,000").
  const bounds = { min: String(offer.minStars), max: String(offer.maxStars) };
  let prompt = ctx.t("stars-topup-ask", { rate: usdt(offer.rateMicro), ...bounds });
  for (;;) {
    const reply = await ask(conversation, ctx, prompt, keyboard);
    const text = reply.kind === "button" ? String(starsPack.parse(reply.data)?.stars ?? "") : reply.text;
    const stars = parseWhole(text, offer.minStars, offer.maxStars);
    if (stars !== null) return stars;
    prompt = ctx.t("stars-topup-bad", bounds);
  }
}

/** A Stars top-up: its XTR invoice in the chat; the payment's credit is told by the top-up listeners. */
async function starsTopup(conversation: Flow, ctx: FlowContext, core: Core, account: Account) {
  const stars = await askStars(conversation, ctx, core);
  if (stars === null) return ctx.reply(ctx.t("topup-off"), { reply_markup: mainMenu(ctx) });
  const made = await callCore(conversation, () => core.topups.startStars(account, stars));
  if (!made.ok) return ctx.reply(refusal(ctx, made), { reply_markup: mainMenu(ctx) });
  return sendStarsInvoice(ctx, made.value);
}

/** An invoice for the amount: its pay link and Cancel. */
async function invoice(conversation: Flow, ctx: FlowContext, core: Core, account: Account, amountMicro: Micro) {
  const made = await callCore(conversation, () => core.topups.startInvoice(account, amountMicro));
  if (!made.ok) return ctx.reply(refusal(ctx, made), { reply_markup: mainMenu(ctx) });
  return ctx.reply(ctx.t("topup-invoice", { amount: usdt(made.value.amountMicro), until: minute(made.value.expiresAt ?? "") }), {
    reply_markup: invoiceKeyboard(ctx.t.bind(ctx), made.value),
  });
}

/** A transfer made: its reference, then the request goes to the administrators. */
async function transfer(conversation: Flow, ctx: FlowContext, core: Core, account: Account, amountMicro: Micro) {
  await ctx.reply(ctx.t("topup-transfer-reference"), { reply_markup: withCancel(ctx) });
  let reference = "";
  while (!reference) {
    const reply = await answer(conversation, ctx);
    if (reply.kind === "text" && reply.text) reference = reply.text;
  }
  const made = await callCore(conversation, () => core.topups.requestTransfer(account, amountMicro, reference));
  if (!made.ok) return ctx.reply(refusal(ctx, made), { reply_markup: mainMenu(ctx) });
  return ctx.reply(ctx.t("topup-transfer-sent", { amount: usdt(made.value.amountMicro), id: made.value.id }), { reply_markup: mainMenu(ctx) });
}

/** The top-up conversation: an amount, then an invoice, or a transfer's reference. */
const topupFlow = (core: Core) => async (conversation: Flow, ctx: FlowContext) => {
  const telegramId = String(ctx.from!.id);
  const account = await conversation.external(async () => (await core.accounts.byTelegramId(telegramId)) ?? null);
  if (!account) return ctx.reply(ctx.t("start-first"));
  const methods = core.topups.methods();
  if (!methods.invoice && !methods.transfer && !methods.stars) return ctx.reply(ctx.t("topup-off"), { reply_markup: mainMenu(ctx) });
  const chosen = await askAmount(conversation, ctx, core);
  if (chosen.kind === "stars") return starsTopup(conversation, ctx, core, account);
  if (chosen.kind === "transfer") return transfer(conversation, ctx, core, account, chosen.amountMicro);
  return invoice(conversation, ctx, core, account, chosen.amountMicro);
};

/**
 * Money in, from the chat: "Top up" (the main menu, /topup) offers amounts; a tap makes a Crypto Pay invoice and
 * answers its pay link (two taps from the menu). "I paid by transfer" takes an amount and a reference and asks
 * every administrator (see topup-decisions.ts). /topups lists the user's top-ups, with Cancel on those still open.
 */
export function topupFeatures({ core }: Pick<TopupDeps, "core">) {
  const composer = new Composer<BotContext>();
  composer.use(createConversation<BotContext, FlowContext>(topupFlow(core), { id: "topup" }));

  const enter = async (ctx: BotContext) => {
    await ctx.conversation.exitAll();
    await ctx.conversation.enter("topup");
  };
  composer.command("topup", enter);
  composer.callbackQuery(menuEntry.filter({ entry: "topup" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await enter(ctx);
  });

  /** The user's top-ups, newest first, with Cancel on an open invoice or a transfer still pending. */
  composer.command("topups", async (ctx) => {
    const topups = await core.topups.list(ctx.caller!.account, { limit: 10 });
    if (!topups.length) return ctx.reply(ctx.t("topups-none"), { reply_markup: mainMenu(ctx) });
    const keyboard = new InlineKeyboard();
    // A Stars invoice stays in the chat, but cancelled its checkout is refused (a payment already made is credited).
    for (const topup of topups.filter((t) => t.status === "active" || t.status === "pending")) {
      keyboard.text(ctx.t("btn-topup-cancel-one", { id: topup.id }), topupCancel.pack({ id: topup.id })).row();
    }
    const lines = topups.map((t) => ctx.t("topups-line", lineVars(ctx.t.bind(ctx), t)));
    // An InlineKeyboard starts with one empty row: no button at all is the menu.
    return ctx.reply(lines.join("\n"), { reply_markup: keyboard.inline_keyboard.flat().length ? keyboard : mainMenu(ctx) });
  });

  composer.callbackQuery(topupCancel.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { id } = topupCancel.unpack(ctx.callbackQuery.data);
    try {
      const topup = await core.topups.cancel(ctx.caller!.account, id);
      await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
      if (topup.status === "credited") return ctx.reply(ctx.t("topup-cancel-paid", { id }), { reply_markup: mainMenu(ctx) });
      if (topup.status !== "cancelled") {
        return ctx.reply(ctx.t("topups-line", lineVars(ctx.t.bind(ctx), topup)), { reply_markup: mainMenu(ctx) });
      }
      await ctx.reply(ctx.t("topup-cancelled", { id }), { reply_markup: mainMenu(ctx) });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await ctx.reply(refusalText(ctx.t.bind(ctx), error.refusal), { reply_markup: mainMenu(ctx) });
    }
  });

  return composer;
}
