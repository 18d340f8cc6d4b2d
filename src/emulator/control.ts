import type { FastifyInstance } from "fastify";
import type { AcceptedGiftTypes, Update } from "grammy/types";
import { ALL_GIFTS, type StarsAndGifts } from "./stars-and-gifts.js";
import { BOT_USER, type EmulatorState } from "./state.js";

/** The emulator's own controls, for tests: faults set on purpose, and what the bot did, read back. */
export function controlRoutes(app: FastifyInstance, state: EmulatorState, shop: StarsAndGifts): void {
  // A user blocking (or unblocking) the bot: Telegram tells the bot with a my_chat_member update in the private chat
  // (docs/providers/telegram-bot-api.md, "Blocking the bot").
  app.post<{ Body: { chat_id: number; blocked: boolean } }>("/emulator/blocked", async (request) => {
    const { chat_id, blocked } = request.body;
    const changed = blocked !== state.blocked.has(chat_id);
    if (blocked) state.blocked.add(chat_id);
    else state.blocked.delete(chat_id);
    const user = state.users.get(chat_id);
    if (changed && user && chat_id > 0) {
      const bot = { user: BOT_USER };
      state.pushUpdate({
        my_chat_member: {
          chat: { id: chat_id, type: "private", first_name: user.first_name, ...(user.username ? { username: user.username } : {}) },
          from: user,
          date: Math.floor(Date.now() / 1000),
          old_chat_member: blocked ? { status: "member", ...bot } : { status: "kicked", until_date: 0, ...bot },
          new_chat_member: blocked ? { status: "kicked", until_date: 0, ...bot } : { status: "member", ...bot },
        },
      } as Omit<Update, "update_id">);
    }
    return { ok: true };
  });

  app.post<{ Body: { method: string; refuse: boolean } }>("/emulator/refuse", async (request) => {
    if (request.body.refuse) state.refusing.add(request.body.method);
    else state.refusing.delete(request.body.method);
    return { ok: true };
  });

  app.post<{ Body: { method: string; ms: number; takes_effect?: "at-once" | "when-answered" } }>("/emulator/slow", async (request) => {
    const { method, ms, takes_effect = "when-answered" } = request.body;
    if (ms > 0) state.slow.set(method, { ms, takesEffect: takes_effect });
    else state.slow.delete(method);
    return { ok: true };
  });
  // A user's @username changed in Telegram (null: removed), the bot not told: what getChat answers from now on.
  app.post<{ Body: { user_id: number; username: string | null } }>("/emulator/profile", async (request, reply) => {
    const user = state.users.get(request.body.user_id);
    if (!user) return reply.code(404).send({ error: "no such user: they must have written to the bot" });
    const { username: _old, ...rest } = user;
    state.users.set(user.id, request.body.username === null ? rest : { ...rest, username: request.body.username });
    return { ok: true };
  });

  // Late calls waiting now (how long each has waited), and how many callers hung up on one.
  app.get("/emulator/late", async () => ({ waiting_ms: [...state.waiting].map((entry) => Date.now() - entry.since), hung_up: state.hungUp }));

  app.get("/emulator/calls", async () => ({ calls: state.calls }));
  app.get("/emulator/conflicts", async () => ({ conflicts: state.conflicts }));

  giftControlRoutes(app, shop);
}

/** The bot's Stars and the gifts: its balance, a user's privacy, a limited gift's stock, and what a user received. */
function giftControlRoutes(app: FastifyInstance, shop: StarsAndGifts): void {
  app.post<{ Body: { amount: number; nanostar_amount?: number } }>("/emulator/stars", async (request) => {
    shop.balance = { amount: request.body.amount, nanostar_amount: request.body.nanostar_amount ?? 0 };
    return { ok: true };
  });

  // The gift classes a user accepts (AcceptedGiftTypes; every class unless set): false refuses that class.
  app.post<{ Body: { user_id: number; accepted_gift_types: Partial<AcceptedGiftTypes> } }>("/emulator/gift-privacy", async (request) => {
    const { user_id, accepted_gift_types } = request.body;
    shop.accepted.set(user_id, { ...(shop.accepted.get(user_id) ?? ALL_GIFTS), ...accepted_gift_types });
    return { ok: true };
  });

  // A limited gift's stock: what remains (0 sells it out), and optionally its total.
  app.post<{ Body: { gift_id: string; remaining_count: number; total_count?: number } }>("/emulator/gift-stock", async (request, reply) => {
    const gift = shop.gifts.find((g) => g.id === request.body.gift_id);
    if (!gift || gift.total_count === undefined) return reply.code(404).send({ error: "no such limited gift" });
    gift.remaining_count = request.body.remaining_count;
    if (request.body.total_count !== undefined) gift.total_count = request.body.total_count;
    return { ok: true };
  });

  app.get<{ Params: { user_id: string } }>("/emulator/gifts-received/:user_id", async (request) => ({
    received: shop.received.get(Number(request.params.user_id)) ?? [],
  }));
}
