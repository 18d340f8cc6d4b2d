import { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { mainMenu } from "../keyboards.js";

/** Installed last: what no feature took. A button from a finished flow (a second tap on Confirm, say) does nothing, and says so. */
export function unhandledFeature() {
  const composer = new Composer<BotContext>();
  composer.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: ctx.t("button-expired") }));
  // A payment's service message needs no answer: its credit (or refund) has its own notice.
  composer.on("message", (ctx) =>
    ctx.message.successful_payment || ctx.message.refunded_payment ? undefined : ctx.reply(ctx.t("unknown"), { reply_markup: mainMenu(ctx) }),
  );
  return composer;
}
