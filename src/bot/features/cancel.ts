import { Composer } from "grammy";
import { cancelFlow } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { mainMenu } from "../keyboards.js";

/** /cancel and every flow's Cancel button: installed before the flows, so they work even while a flow waits. */
export function cancelFeature() {
  const composer = new Composer<BotContext>();
  composer.command("cancel", async (ctx) => {
    await ctx.conversation.exitAll();
    await ctx.reply(ctx.t("cancelled"), { reply_markup: mainMenu(ctx) });
  });
  composer.callbackQuery(cancelFlow.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.conversation.exitAll();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    await ctx.reply(ctx.t("cancelled"), { reply_markup: mainMenu(ctx) });
  });
  return composer;
}
