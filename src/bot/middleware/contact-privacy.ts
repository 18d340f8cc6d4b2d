import type { MiddlewareFn } from "grammy";
import type { Core } from "../../core/index.js";
import type { BotContext } from "../context.js";

/**
 * What a user controls of the contacts (core/contacts.ts), before anyone is noted: blocking the bot (Telegram's
 * my_chat_member update with status "kicked", docs/providers/telegram-bot-api.md) or sending /forget removes their
 * contact. A my_chat_member update is handled here and goes no further: there is no one to answer.
 */
export function contactPrivacy(core: Core): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const change = ctx.myChatMember;
    if (change) {
      if (change.chat.type === "private" && change.new_chat_member.status === "kicked") await core.contacts.forget(String(change.from.id));
      return;
    }
    if (ctx.from && ctx.message?.text?.trim().split(/[\s@]/)[0] === "/forget") {
      const removed = await core.contacts.forget(String(ctx.from.id));
      await ctx.reply(
        removed
          ? ctx.t("forget-done", { username: removed.username ? `@${removed.username}` : "-", id: removed.telegramId })
          : ctx.t("forget-nothing"),
      );
      return;
    }
    return next();
  };
}
