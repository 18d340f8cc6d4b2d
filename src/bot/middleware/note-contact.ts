import type { MiddlewareFn } from "grammy";
import type { Core } from "../../core/index.js";
import type { BotContext } from "../context.js";

/**
 * Keeps every user who writes to the bot privately in the contacts, before any account is asked for: the Bot API
 * sends gifts and Premium by user id only, so only users noted here can receive them. Its failure is logged and
 * the update goes on.
 */
export function noteContact(core: Core, log: { warn(obj: object, msg: string): void }): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const { from } = ctx;
    if (from && !from.is_bot && ctx.chat?.type === "private") {
      try {
        await core.contacts.note(from);
      } catch (error) {
        log.warn({ err: error, telegramId: from.id }, "could not note a Telegram contact");
      }
    }
    return next();
  };
}
