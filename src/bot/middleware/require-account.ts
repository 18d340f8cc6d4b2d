import type { MiddlewareFn } from "grammy";
import type { BotContext } from "../context.js";

/**
 * Only registered users get past, but for /start (which registers) and an administrator's own commands and
 * buttons (administrators need no key): everyone else is told to /start first. From here on `ctx.caller` is set
 * for everything but those.
 */
export function requireAccount(isAdminUpdate: (ctx: BotContext) => boolean): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (ctx.caller || isAdminUpdate(ctx) || ctx.message?.text?.startsWith("/start")) return next();
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t("start-first"));
  };
}
