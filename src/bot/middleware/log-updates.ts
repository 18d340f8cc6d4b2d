import type { Context, MiddlewareFn } from "grammy";
import { withRequestId } from "../../observability/context.js";
import { updateKind } from "./time-updates.js";

export interface UpdateLog {
  info(obj: object, msg: string): void;
}

/** The id an update's work is logged under, and sent to providers as X-Request-Id. */
export const updateRequestId = (update: { update_id: number }) => `tg-${update.update_id}`;

/**
 * Runs each update (and everything it causes: conversation replays, provider calls, notifications) under
 * `tg-<update_id>`, and logs one line when it is done: its id, kind, chat and time (waiting for the chat's
 * earlier updates included). Never the message text or button data, which may hold a key or a code.
 */
export function logUpdates(log: UpdateLog): MiddlewareFn<Context> {
  return (ctx, next) =>
    withRequestId(updateRequestId(ctx.update), async () => {
      const started = performance.now();
      let failed = false;
      try {
        await next();
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        const kind = updateKind(ctx.update);
        const ms = Math.round((performance.now() - started) * 10) / 10;
        log.info({ update: ctx.update.update_id, kind, chat: ctx.chat?.id ?? null, ms, ...(failed ? { failed } : {}) }, "bot update");
      }
    });
}
