import { InlineKeyboard } from "grammy";
import type { Flow, FlowContext } from "../context.js";
import { ask, attempt, callerOf, confirmCharge, type FlowDeps, parseUsername, refuse, report, usdt } from "./kit.js";

const MESSAGE_MAX = 255;

export function giftsFlow({ core }: FlowDeps) {
  return async function gifts(conversation: Flow, ctx: FlowContext) {
    const caller = await callerOf(conversation, ctx, core);
    const catalogue = await attempt(conversation, () => core.gifts.catalogue());
    if (!catalogue.ok) return refuse(conversation, ctx, catalogue);
    const items = catalogue.value;
    if (!items.length) {
      await ctx.reply(ctx.t("no-stock"));
      return conversation.halt();
    }

    const giftKeys = new InlineKeyboard();
    items.forEach((g, i) => {
      giftKeys.text(ctx.t("btn-gift", { emoji: g.emoji, stars: g.stars, price: usdt(g.priceMicro), limited: g.limited ? "yes" : "no" }), `g:${i}`);
      if (i % 2 === 1) giftKeys.row();
    });
    let gift: (typeof items)[number] | undefined;
    while (!gift) {
      const reply = await ask(conversation, ctx, ctx.t("ask-gift"), giftKeys);
      if (reply.kind === "button" && reply.data.startsWith("g:")) gift = items[Number(reply.data.slice(2))];
    }

    const own = ctx.from?.username;
    const meKeys = own ? new InlineKeyboard().text(ctx.t("btn-myself", { username: own }), "me") : undefined;
    let prompt = ctx.t("ask-recipient");
    let recipient: string | null = null;
    while (!recipient) {
      const reply = await ask(conversation, ctx, prompt, meKeys);
      recipient = reply.kind === "button" ? (reply.data === "me" && own ? own : null) : parseUsername(reply.text);
      prompt = ctx.t("bad-username");
    }

    prompt = ctx.t("ask-gift-message", { max: MESSAGE_MAX });
    let message: string | null = null;
    while (message === null) {
      const reply = await ask(conversation, ctx, prompt, new InlineKeyboard().text(ctx.t("btn-skip"), "skip"));
      if (reply.kind === "button" && reply.data === "skip") message = "";
      else if (reply.kind === "text" && reply.text.length <= MESSAGE_MAX) message = reply.text;
      prompt = ctx.t("bad-gift-message", { max: MESSAGE_MAX });
    }

    let hideName: boolean | null = null;
    while (hideName === null) {
      const reply = await ask(conversation, ctx, ctx.t("ask-gift-hide"), new InlineKeyboard().text(ctx.t("btn-show-name"), "show").text(ctx.t("btn-hide-name"), "hide"));
      if (reply.kind === "button" && (reply.data === "show" || reply.data === "hide")) hideName = reply.data === "hide";
    }

    const what = ctx.t("what-gift", { emoji: gift.emoji, stars: gift.stars, username: recipient, hidden: hideName ? "yes" : "no", message: message || "-" });
    const key = await confirmCharge(conversation, ctx, core, caller, what, gift.priceMicro);
    const request = { recipient, giftId: gift.giftId, hideName, message, idempotencyKey: key };
    const result = await attempt(conversation, () => core.gifts.send(caller, request));
    // A refusal is the recipient's choice, told as such: before the charge (nothing charged) or with the send (refunded).
    if (!result.ok && result.details.errorCode === "recipient_refuses") {
      await ctx.reply(ctx.t("gift-refused", { username: recipient }));
      return conversation.halt();
    }
    if (result.ok && result.value.order.status === "failed" && result.value.order.error_code === "recipient_refuses") {
      await ctx.reply(ctx.t("gift-refused-refunded", { username: recipient }));
      return;
    }
    await report(conversation, ctx, core, caller, result, ctx.t("later-delivery"));
  };
}
