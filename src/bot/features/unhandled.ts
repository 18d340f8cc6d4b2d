import { Composer } from "grammy";
import type { BotContext } from "../context.js";
import { mainMenu } from "../keyboards.js";

/** Installed last: what no feature took. A button from a finished flow (a second tap on Confirm, say) does nothing, and says so. */
export function unhandledFeature() {
  const composer = new Composer<BotContext>();
  composer.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: ctx.t("button-expired") }));
  composer.on("message", (ctx) => ctx.reply(ctx.t("unknown"), { reply_markup: mainMenu(ctx) }));
  return composer;
}
