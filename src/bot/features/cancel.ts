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
    // A Cancel left on an older message (a flow that ended, a paid invoice) has nothing to cancel: saying "nothing
    // was charged" there could be false.
    const underWay = Object.keys(ctx.conversation.active()).length > 0;
    await ctx.answerCallbackQuery(underWay ? undefined : ctx.t("nothing-to-cancel"));
    await ctx.conversation.exitAll();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    if (underWay) await ctx.reply(ctx.t("cancelled"), { reply_markup: mainMenu(ctx) });
  });
  return composer;
}
