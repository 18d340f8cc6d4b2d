import type { MiddlewareFn } from "grammy";
import type { Core } from "../../core/index.js";
import type { BotContext } from "../context.js";

/** Keeps the account's @username as Telegram last showed it (administrators name users by it). */
export function noteUsername(core: Core): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const { caller, from } = ctx;
    if (caller && from && (from.username ?? null) !== caller.account.username) {
      await core.accounts.noteProfile(caller.account.id, from.username ?? null);
    }
    return next();
  };
}
