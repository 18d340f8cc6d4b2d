import type { MiddlewareFn } from "grammy";
import type { BotContext } from "../context.js";

/**
 * People in private chats only: keys and codes never go to a group. An update without a person behind it (a
 * bot, a channel post) is dropped; a command or a button in a group is told to write privately.
 */
export function privateChatsOnly(): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (!ctx.from || ctx.from.is_bot) return;
    if (ctx.chat && ctx.chat.type !== "private") {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery();
      if (ctx.callbackQuery || ctx.message?.text?.startsWith("/")) await ctx.reply(ctx.t("private-only"));
      return;
    }
    return next();
  };
}
