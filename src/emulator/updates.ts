import type { FastifyInstance } from "fastify";
import type { MessageEntity, Update } from "grammy/types";
import { BOT_USER, type ChatMessage, type EmulatedUser, type EmulatorState, type Handler, asMessage, fail } from "./state.js";

const MAX_POLL_SECONDS = 50;

/** getUpdates: real long polling over the updates not yet confirmed, one consumer per token. */
export function updateMethods(state: EmulatorState): Record<string, Handler> {
  return {
    answerCallbackQuery: () => true,
    async getUpdates(p, socket) {
      // As on Telegram, one consumer per token: a second live poller ends the first with 409.
      if (state.held && !state.held.socket.destroyed && state.held.socket !== socket) {
        state.conflicts += 1;
        state.held.terminate();
      }
      const offset = Number(p.offset ?? 0);
      const limit = Math.min(Number(p.limit ?? 100), 100);
      const timeout = Math.min(Number(p.timeout ?? 0), MAX_POLL_SECONDS);
      // Confirmed updates (below the offset) are gone for good, as on Telegram.
      while (state.updates.length && state.updates[0].update_id < offset) state.updates.shift();
      if (!state.updates.length && timeout > 0) {
        let terminated = false;
        await new Promise<void>((resolve) => {
          const done = () => {
            state.waiters.delete(done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, timeout * 1000);
          state.waiters.add(done);
          state.held = {
            socket,
            terminate: () => {
              terminated = true;
              done();
            },
          };
        });
        if (state.held?.socket === socket) state.held = undefined;
        if (terminated) throw fail(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running");
      }
      return state.updates.filter((u) => u.update_id >= offset).slice(0, limit);
    },
  };
}

/** The users' side: what a user writes or presses becomes an update for the bot's next getUpdates. */
export function userRoutes(app: FastifyInstance, state: EmulatorState): void {
  app.post<{ Body: { user: EmulatedUser; text: string; chat_id?: number } }>("/emulator/messages", async (request) => {
    const { user, text } = request.body;
    const c = state.chat(request.body.chat_id ?? user.id);
    const m: ChatMessage = { message_id: c.messages.length + 1, from_bot: false, text, edits: 0 };
    const entities: MessageEntity[] = text.startsWith("/") ? [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0].length }] : [];
    c.messages.push(m);
    const message = { ...asMessage(c, m, { ...user, is_bot: false }), ...(entities.length ? { entities } : {}) };
    return state.pushUpdate({ message } as Omit<Update, "update_id">);
  });

  app.post<{ Body: { user: EmulatedUser; chat_id?: number; message_id: number; data: string } }>("/emulator/callbacks", async (request, reply) => {
    const { user, message_id, data } = request.body;
    const c = state.chat(request.body.chat_id ?? user.id);
    const m = c.messages.find((x) => x.message_id === message_id);
    if (!m) return reply.code(404).send({ error: "no such message" });
    return state.pushUpdate({
      callback_query: {
        id: String(state.nextUpdateId),
        from: { ...user, is_bot: false },
        chat_instance: String(c.id),
        message: asMessage(c, m, BOT_USER),
        data,
      },
    } as Omit<Update, "update_id">);
  });
}
