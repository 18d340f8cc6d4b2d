import type { Context, MiddlewareFn } from "grammy";

/** An update's kind: the name of the one field beside its id ("message", "callback_query", ...). */
export const updateKind = (update: object) => Object.keys(update).find((key) => key !== "update_id") ?? "unknown";

/** Times each update for the metrics: `observe` hears its kind and how long it took, however it ended. */
export function timeUpdates(observe?: (kind: string, seconds: number) => void): MiddlewareFn<Context> {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      observe?.(updateKind(ctx.update), (performance.now() - started) / 1000);
    }
  };
}
