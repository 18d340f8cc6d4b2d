import { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { mainMenu } from "../keyboards.js";

export interface PaymentHelpTexts {
  /** PAYMENT_SUPPORT_TEXT, sent as it is in every language; null: the locale's, naming `support`. */
  support: string | null;
  /** PAYMENT_TERMS_TEXT, sent as it is in every language; null: the locale's. */
  terms: string | null;
}

/**
 * /paysupport and /terms, which Telegram asks every bot taking payments to answer: the operator's texts when set,
 * else the locale's in the user's language. Installed before the account check: anyone may read them, customer or not.
 */
export function paymentHelpFeatures(texts: PaymentHelpTexts, support: string | null) {
  const composer = new Composer<BotContext>();
  composer.command("paysupport", (ctx) => {
    const id = String(ctx.from?.id ?? "");
    const text = texts.support ?? (support ? ctx.t("paysupport", { contact: support, id }) : ctx.t("paysupport-no-contact", { id }));
    return ctx.reply(text, ctx.caller ? { reply_markup: mainMenu(ctx) } : {});
  });
  composer.command("terms", (ctx) => {
    const text = texts.terms ?? `${ctx.t("terms")}${support ? `\n${ctx.t("support", { contact: support })}` : ""}`;
    return ctx.reply(text, ctx.caller ? { reply_markup: mainMenu(ctx) } : {});
  });
  return composer;
}
