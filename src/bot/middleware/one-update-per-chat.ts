import { sequentialize } from "@grammyjs/runner";
import type { Context, MiddlewareFn } from "grammy";

/** The chat an update belongs to: its chat, else its sender's private chat (an inline query, say). */
export const chatIdOf = (ctx: Context): number | undefined => ctx.chat?.id ?? ctx.from?.id;

/**
 * One update at a time per chat, so a double tap is handled after the first tap, never beside it. The inbox
 * hands out one update of a chat at a time across instances; this keeps it so within one, whatever feeds it.
 */
export function oneUpdatePerChat(): MiddlewareFn<Context> {
  return sequentialize((ctx: Context) => String(chatIdOf(ctx) ?? ""));
}
