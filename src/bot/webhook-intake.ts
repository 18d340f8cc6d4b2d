import { timingSafeEqual } from "node:crypto";
import type { RouteHandlerMethod } from "fastify";
import type { Update } from "grammy/types";
import { z } from "zod";

/** What is checked of a posted update: its id (the inbox's key); the rest is the bot's to read, as Telegram sent it. */
const PostedUpdate = z.looseObject({ update_id: z.number().int().nonnegative() });

/**
 * POST /telegram/webhook in webhook mode: checks Telegram's secret token, stores the update in the inbox and
 * answers 200 at once; any instance then handles it from there. A store that fails answers 500, so Telegram
 * posts the update again (a repeat of one already stored is ignored).
 */
export function webhookIntake(secretToken: string, store: (update: Update) => Promise<void>): RouteHandlerMethod {
  const expected = Buffer.from(secretToken);
  return async (request, reply) => {
    const given = Buffer.from(String(request.headers["x-telegram-bot-api-secret-token"] ?? ""));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(401).send("secret token is wrong");
    const posted = PostedUpdate.safeParse(request.body);
    if (!posted.success) return reply.code(400).send({ error: "not a Telegram update" });
    await store(posted.data as unknown as Update);
    return reply.code(200).send();
  };
}
