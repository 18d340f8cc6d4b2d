import type { MiddlewareFn } from "grammy";
import type { BotContext } from "../context.js";

/** A blocked account can do nothing else: every update is answered that it is blocked (and whom to write to). */
export function refuseBlocked(support: string | null): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (!ctx.caller?.account.blocked) return next();
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    await ctx.reply(`${ctx.t("blocked")}${support ? `\n${ctx.t("support", { contact: support })}` : ""}`);
  };
}
