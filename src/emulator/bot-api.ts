import type { FastifyInstance } from "fastify";
import { BOT_USER, type EmulatorState, type Handler, fail } from "./state.js";

/** The methods that only set or read the bot's settings: acknowledged, and the menu button kept. */
export function settingMethods(state: EmulatorState): Record<string, Handler> {
  return {
    getMe: () => BOT_USER,
    deleteWebhook: () => true,
    setWebhook: () => true,
    setMyCommands: () => true,
    // The menu button opens a Mini App only over HTTPS, as Telegram insists.
    setChatMenuButton(p) {
      const button = p.menu_button as { type?: string; text?: string; web_app?: { url?: string } } | undefined;
      if (button?.type === "web_app" && !(button.text && /^https:\/\//.test(button.web_app?.url ?? ""))) {
        throw fail(400, "Bad Request: a web_app menu button needs a text and an HTTPS url");
      }
      if (p.chat_id === undefined) state.defaultMenuButton = button;
      else state.chat(Number(p.chat_id)).menuButton = button;
      return true;
    },
    getChatMenuButton: (p) =>
      (p.chat_id === undefined ? state.defaultMenuButton : (state.chat(Number(p.chat_id)).menuButton ?? state.defaultMenuButton)) ?? {
        type: "default",
      },
    deleteMyCommands: () => true,
    sendChatAction: () => true,
  };
}

/**
 * POST /bot<token>/<method>, as the bot calls Telegram: every call is recorded, an unknown method is a 404, and the
 * faults set through /emulator/* apply here (a refused method, a late answer and the caller who hung up on it).
 */
export function botApiRoute(app: FastifyInstance, state: EmulatorState, methods: Record<string, Handler>): void {
  // GET with the parameters in the query, as Telegram takes it too (the guides' curl checks of a token).
  app.route<{ Params: { token: string; method: string } }>({
    method: ["GET", "POST"],
    url: "/bot:token/:method",
    handler: async (request, reply) => {
      const handler = methods[request.params.method];
      const payload = ((request.method === "GET" ? request.query : request.body) ?? {}) as Record<string, unknown>;
      state.calls.push({ method: request.params.method, payload });
      if (!handler) return reply.code(404).send(fail(404, "Not Found: method not found"));
      if (state.refusing.has(request.params.method)) return reply.code(400).send(fail(400, "Bad Request: refused by the emulator"));
      const late = state.slow.get(request.params.method);
      let gone = false;
      if (late) reply.raw.once("close", () => (gone = !reply.raw.writableFinished));
      const wait = async () => {
        const entry = { since: Date.now() };
        state.waiting.add(entry);
        await new Promise((resolve) => setTimeout(resolve, late?.ms));
        state.waiting.delete(entry);
      };
      try {
        if (late?.takesEffect === "when-answered") {
          await wait();
          if (gone || request.raw.socket.destroyed) {
            state.hungUp += 1;
            return reply.code(499).send(fail(499, "the caller hung up: not taken"));
          }
        }
        const result = await handler(payload, request.raw.socket);
        if (late?.takesEffect === "at-once") {
          await wait();
          if (gone || request.raw.socket.destroyed) state.hungUp += 1;
        }
        return { ok: true, result };
      } catch (error) {
        const refused = error as { ok?: false; error_code?: number };
        if (refused.ok === false) return reply.code(refused.error_code ?? 400).send(refused);
        throw error;
      }
    },
  });
}
