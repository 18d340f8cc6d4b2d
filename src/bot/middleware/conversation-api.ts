import type { MiddlewareFn, Transformer } from "grammy";
import type { FlowContext } from "../context.js";
import { retryCalls } from "../transformers/retry-calls.js";

/**
 * Inside a conversation the context is rebuilt with an Api of its own, which does not see the bot's transformers:
 * the retries and the reply recorder are installed on it again.
 */
export function conversationApi(recordReply: Transformer): MiddlewareFn<FlowContext> {
  return async (ctx, next) => {
    ctx.api.config.use(retryCalls());
    ctx.api.config.use(recordReply);
    await next();
  };
}
