import type { MiddlewareFn } from "grammy";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import type { BotContext } from "../context.js";

/**
 * One account lookup per update, shared by the language choice (in conversations too), the gates and the
 * handlers: `ctx.caller`, and `underWay` (by Telegram id) for the contexts a conversation rebuilds (see i18n.ts).
 */
export function loadCaller(core: Core, underWay: Map<string, Caller | undefined>): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    if (!ctx.from) return next();
    const id = String(ctx.from.id);
    ctx.caller = await core.accounts.botCaller(id);
    underWay.set(id, ctx.caller);
    try {
      await next();
    } finally {
      // Another update of this user under way (another chat) may have set it since: it reads afresh if so.
      underWay.delete(id);
    }
  };
}
