import type { FastifyInstance } from "fastify";
import { BOT_USER, type ChatMessage, type EmulatorState, type Handler, asMessage, fail } from "./state.js";

/** The bot's messages and their edits, refused as Telegram refuses them (blocked, empty, too long, not modified). */
export function messageMethods(state: EmulatorState): Record<string, Handler> {
  return {
    sendMessage(p) {
      const c = state.chat(Number(p.chat_id));
      if (state.blocked.has(c.id)) throw fail(403, "Forbidden: bot was blocked by the user");
      if (typeof p.text !== "string" || p.text.length === 0) throw fail(400, "Bad Request: message text is empty");
      if (p.text.length > 4096) throw fail(400, "Bad Request: message is too long");
      const m: ChatMessage = {
        message_id: c.messages.length + 1,
        from_bot: true,
        text: p.text,
        entities: p.entities,
        reply_markup: p.reply_markup,
        protect_content: p.protect_content,
        edits: 0,
      };
      c.messages.push(m);
      state.record(c);
      return asMessage(c, m, BOT_USER);
    },
    editMessageText(p) {
      const c = state.chat(Number(p.chat_id));
      const m = c.messages.find((x) => x.message_id === Number(p.message_id));
      if (!m || !m.from_bot) throw fail(400, "Bad Request: message to edit not found");
      if (m.text === p.text && JSON.stringify(m.reply_markup) === JSON.stringify(p.reply_markup))
        throw fail(400, "Bad Request: message is not modified");
      Object.assign(m, { text: p.text, entities: p.entities, reply_markup: p.reply_markup, edits: m.edits + 1 });
      state.record(c);
      return asMessage(c, m, BOT_USER);
    },
    editMessageReplyMarkup(p) {
      const c = state.chat(Number(p.chat_id));
      const m = c.messages.find((x) => x.message_id === Number(p.message_id));
      if (!m || !m.from_bot) throw fail(400, "Bad Request: message to edit not found");
      if (JSON.stringify(m.reply_markup ?? null) === JSON.stringify(p.reply_markup ?? null)) throw fail(400, "Bad Request: message is not modified");
      m.reply_markup = p.reply_markup;
      m.edits += 1;
      state.record(c);
      return asMessage(c, m, BOT_USER);
    },
  };
}

/**
 * A chat as its user sees it: GET /emulator/chats/:id answers at once, or with `after` and `timeout_ms` waits (up
 * to 30 s) until the chat moves past that version.
 */
export function chatRoutes(app: FastifyInstance, state: EmulatorState): void {
  app.get<{ Params: { id: string }; Querystring: { after?: string; timeout_ms?: string } }>("/emulator/chats/:id", async (request) => {
    const c = state.chat(Number(request.params.id));
    const after = Number(request.query.after ?? -1);
    const timeoutMs = Math.min(Number(request.query.timeout_ms ?? 0), 30_000);
    if (c.version <= after && timeoutMs > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          if (c.version <= after) return;
          state.waiters.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          state.waiters.delete(done);
          resolve();
        }, timeoutMs);
        state.waiters.add(done);
      });
    }
    return { version: c.version, messages: c.messages, menu_button: c.menuButton ?? state.defaultMenuButton ?? { type: "default" } };
  });
}
