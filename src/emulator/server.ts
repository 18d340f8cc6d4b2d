import type { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import type { InlineKeyboardMarkup, Message, MessageEntity, Update, User } from "grammy/types";

/**
 * A local stand-in for the Telegram Bot API: the bot talks to it exactly as to Telegram (POST
 * /bot<token>/<method>, real long polling on getUpdates), and tests or `npm run chat` play the users through
 * /emulator/*. It knows the methods this bot uses and refuses any other, as Telegram would an unknown one.
 */
export interface EmulatedUser {
  id: number;
  first_name: string;
  username?: string;
  language_code?: string;
}

/** A file the bot sent (sendDocument), kept whole so a test can read it. */
interface SentDocument {
  file_id: string;
  file_name: string;
  file_size: number;
  /** The bytes, base64. */
  content: string;
}

export interface ChatMessage {
  message_id: number;
  from_bot: boolean;
  /** The text, or a document's caption ("" for none). */
  text: string;
  document?: SentDocument;
  entities?: MessageEntity[];
  reply_markup?: InlineKeyboardMarkup;
  protect_content?: boolean;
  edits: number;
}

interface Chat {
  id: number;
  type: "private" | "group";
  title?: string;
  messages: ChatMessage[];
  /** Bumped on every message or edit, so a waiting client wakes up. */
  version: number;
  /** The chat's menu button as the bot set it (setChatMenuButton), or undefined for the default. */
  menuButton?: unknown;
}

/** A multipart/form-data part: a field's text, or a file's name and bytes. */
type Part = { name: string; filename?: string; data: Buffer };

/**
 * Multipart/form-data as grammY sends it with a file (fields, then `attach://<id>` parts; the filename may be
 * unquoted). Enough for the Bot API's uploads, not a general parser.
 */
function parseMultipart(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) throw new Error("multipart body without a boundary");
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    // Each part: CRLF, headers, a blank line, the data, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    const headers = part.subarray(0, split).toString();
    const disposition = /content-disposition:\s*form-data;\s*name="([^"]*)"(?:;\s*filename=(?:"([^"]*)"|([^;\r\n]*)))?/i.exec(headers);
    if (disposition) parts.push({ name: disposition[1], filename: disposition[2] ?? disposition[3], data: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

const BOT_USER: User = { id: 7_000_000_001, is_bot: true, first_name: "Purchase Bot", username: "purchase_test_bot" };
const MAX_POLL_SECONDS = 50;
/** Where the multipart parser leaves a request's files, beside its fields. */
const FILES = Symbol("files");
/** A field that Telegram takes as JSON arrives as text in a multipart request. */
const jsonField = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

function buildEmulator(): FastifyInstance {
  // Long polls are held open: closing must not wait for their keep-alive to time out.
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024, forceCloseConnections: true });
  // Uploads (sendDocument with a file) come as multipart: fields become the payload, files ride along under
  // their part names for the `attach://` references.
  app.addContentTypeParser("multipart/form-data", { parseAs: "buffer" }, (request, body, done) => {
    try {
      const payload: Record<string, unknown> = {};
      const files: Record<string, Part> = {};
      for (const part of parseMultipart(body as Buffer, String(request.headers["content-type"]))) {
        if (part.filename !== undefined) files[part.name] = part;
        else payload[part.name] = part.data.toString("utf8");
      }
      done(null, { ...payload, [FILES]: files });
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  const documents = new Map<string, SentDocument>();
  const updates: Update[] = [];
  let nextUpdateId = 1;
  const chats = new Map<number, Chat>();
  const blocked = new Set<number>();
  /** Methods made to fail on purpose, to test that the bot survives a refusal. */
  const refusing = new Set<string>();
  const calls: Array<{ method: string; payload: Record<string, unknown> }> = [];
  /**
   * Methods answered late on purpose (a slow Telegram). `at-once`: the call takes effect (a message is in the chat)
   * at once and only its answer is late. `when-answered`: it takes effect only when answered, and not at all if
   * the caller hung up meanwhile (a request that had not reached Telegram yet when its sender died).
   */
  const slow = new Map<string, { ms: number; takesEffect: "at-once" | "when-answered" }>();
  /** Late calls whose caller hung up before the answer: taking effect or not, as `slow` says. */
  let hungUp = 0;
  /** When each late call now waiting arrived. */
  const waiting = new Set<{ since: number }>();
  const waiters = new Set<() => void>();
  /** The long poll held open now, and how often a second poller cut one short (Telegram's 409 Conflict). */
  let held: { socket: Socket; terminate(): void } | undefined;
  let conflicts = 0;
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };

  function chat(id: number, type: Chat["type"] = id > 0 ? "private" : "group"): Chat {
    let found = chats.get(id);
    if (!found) {
      found = { id, type, messages: [], version: 0, ...(type === "group" ? { title: "Test group" } : {}) };
      chats.set(id, found);
    }
    return found;
  }

  const now = () => Math.floor(Date.now() / 1000);
  const telegramChat = (c: Chat) =>
    c.type === "private"
      ? { id: c.id, type: "private" as const, first_name: "User" }
      : { id: c.id, type: "group" as const, title: c.title ?? "Group" };

  function asMessage(c: Chat, m: ChatMessage, from: User): Message {
    return {
      message_id: m.message_id,
      date: now(),
      chat: telegramChat(c),
      from,
      text: m.text,
      ...(m.document
        ? {
            text: undefined,
            document: {
              file_id: m.document.file_id,
              file_unique_id: m.document.file_id,
              file_name: m.document.file_name,
              file_size: m.document.file_size,
            },
            ...(m.text ? { caption: m.text } : {}),
          }
        : {}),
      ...(m.entities ? { entities: m.entities } : {}),
      ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
      ...(m.edits ? { edit_date: now() } : {}),
    } as Message;
  }

  function pushUpdate(update: Omit<Update, "update_id">): Update {
    const full = { update_id: nextUpdateId++, ...update } as Update;
    updates.push(full);
    wake();
    return full;
  }

  function record(c: Chat) {
    c.version += 1;
    wake();
  }

  const fail = (code: number, description: string) => ({ ok: false, error_code: code, description });
  /** The menu button of every chat without one of its own. */
  let defaultMenuButton: unknown;

  type Handler = (p: Record<string, any>, socket: Socket) => unknown;
  const methods: Record<string, Handler> = {
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
      if (p.chat_id === undefined) defaultMenuButton = button;
      else chat(Number(p.chat_id)).menuButton = button;
      return true;
    },
    getChatMenuButton: (p) =>
      (p.chat_id === undefined ? defaultMenuButton : (chat(Number(p.chat_id)).menuButton ?? defaultMenuButton)) ?? { type: "default" },
    deleteMyCommands: () => true,
    sendChatAction: () => true,
    answerCallbackQuery: () => true,
    sendMessage(p) {
      const c = chat(Number(p.chat_id));
      if (blocked.has(c.id)) throw fail(403, "Forbidden: bot was blocked by the user");
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
      record(c);
      return asMessage(c, m, BOT_USER);
    },
    sendDocument(p) {
      const c = chat(Number(p.chat_id));
      if (blocked.has(c.id)) throw fail(403, "Forbidden: bot was blocked by the user");
      const caption = p.caption === undefined ? "" : String(p.caption);
      if (caption.length > 1024) throw fail(400, "Bad Request: message caption is too long");
      const reference = typeof p.document === "string" ? p.document : "";
      let document: SentDocument | undefined;
      if (reference.startsWith("attach://")) {
        const file = (p[FILES as unknown as string] as Record<string, Part> | undefined)?.[reference.slice("attach://".length)];
        if (!file) throw fail(400, "Bad Request: file must be uploaded as multipart/form-data");
        if (file.data.length === 0) throw fail(400, "Bad Request: file must be non-empty");
        const file_id = `doc${documents.size + 1}`;
        document = { file_id, file_name: file.filename || "document", file_size: file.data.length, content: file.data.toString("base64") };
        documents.set(file_id, document);
      } else {
        document = documents.get(reference);
      }
      if (!document) throw fail(400, "Bad Request: wrong file identifier/HTTP URL specified");
      const m: ChatMessage = {
        message_id: c.messages.length + 1,
        from_bot: true,
        text: caption,
        document,
        reply_markup: p.reply_markup === undefined ? undefined : jsonField(p.reply_markup),
        protect_content: p.protect_content === undefined ? undefined : jsonField(p.protect_content),
        edits: 0,
      };
      c.messages.push(m);
      record(c);
      return asMessage(c, m, BOT_USER);
    },
    editMessageText(p) {
      const c = chat(Number(p.chat_id));
      const m = c.messages.find((x) => x.message_id === Number(p.message_id));
      if (!m || !m.from_bot) throw fail(400, "Bad Request: message to edit not found");
      if (m.text === p.text && JSON.stringify(m.reply_markup) === JSON.stringify(p.reply_markup))
        throw fail(400, "Bad Request: message is not modified");
      Object.assign(m, { text: p.text, entities: p.entities, reply_markup: p.reply_markup, edits: m.edits + 1 });
      record(c);
      return asMessage(c, m, BOT_USER);
    },
    editMessageReplyMarkup(p) {
      const c = chat(Number(p.chat_id));
      const m = c.messages.find((x) => x.message_id === Number(p.message_id));
      if (!m || !m.from_bot) throw fail(400, "Bad Request: message to edit not found");
      if (JSON.stringify(m.reply_markup ?? null) === JSON.stringify(p.reply_markup ?? null)) throw fail(400, "Bad Request: message is not modified");
      m.reply_markup = p.reply_markup;
      m.edits += 1;
      record(c);
      return asMessage(c, m, BOT_USER);
    },
    async getUpdates(p, socket) {
      // As on Telegram, one consumer per token: a second live poller ends the first with 409.
      if (held && !held.socket.destroyed && held.socket !== socket) {
        conflicts += 1;
        held.terminate();
      }
      const offset = Number(p.offset ?? 0);
      const limit = Math.min(Number(p.limit ?? 100), 100);
      const timeout = Math.min(Number(p.timeout ?? 0), MAX_POLL_SECONDS);
      // Confirmed updates (below the offset) are gone for good, as on Telegram.
      while (updates.length && updates[0].update_id < offset) updates.shift();
      if (!updates.length && timeout > 0) {
        let terminated = false;
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, timeout * 1000);
          waiters.add(done);
          held = {
            socket,
            terminate: () => {
              terminated = true;
              done();
            },
          };
        });
        if (held?.socket === socket) held = undefined;
        if (terminated) throw fail(409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running");
      }
      return updates.filter((u) => u.update_id >= offset).slice(0, limit);
    },
  };

  app.post<{ Params: { token: string; method: string } }>("/bot:token/:method", async (request, reply) => {
    const handler = methods[request.params.method];
    const payload = (request.body ?? {}) as Record<string, unknown>;
    calls.push({ method: request.params.method, payload });
    if (!handler) return reply.code(404).send(fail(404, "Not Found: method not found"));
    if (refusing.has(request.params.method)) return reply.code(400).send(fail(400, "Bad Request: refused by the emulator"));
    const late = slow.get(request.params.method);
    let gone = false;
    if (late) reply.raw.once("close", () => (gone = !reply.raw.writableFinished));
    const wait = async () => {
      const entry = { since: Date.now() };
      waiting.add(entry);
      await new Promise((resolve) => setTimeout(resolve, late?.ms));
      waiting.delete(entry);
    };
    try {
      if (late?.takesEffect === "when-answered") {
        await wait();
        if (gone || request.raw.socket.destroyed) {
          hungUp += 1;
          return reply.code(499).send(fail(499, "the caller hung up: not taken"));
        }
      }
      const result = await handler(payload, request.raw.socket);
      if (late?.takesEffect === "at-once") {
        await wait();
        if (gone || request.raw.socket.destroyed) hungUp += 1;
      }
      return { ok: true, result };
    } catch (error) {
      const refused = error as { ok?: false; error_code?: number };
      if (refused.ok === false) return reply.code(refused.error_code ?? 400).send(refused);
      throw error;
    }
  });

  // ---- the users' side -------------------------------------------------------------------------------

  app.post<{ Body: { user: EmulatedUser; text: string; chat_id?: number } }>("/emulator/messages", async (request) => {
    const { user, text } = request.body;
    const c = chat(request.body.chat_id ?? user.id);
    const m: ChatMessage = { message_id: c.messages.length + 1, from_bot: false, text, edits: 0 };
    const entities: MessageEntity[] = text.startsWith("/") ? [{ type: "bot_command", offset: 0, length: text.split(/\s/)[0].length }] : [];
    c.messages.push(m);
    const message = { ...asMessage(c, m, { ...user, is_bot: false }), ...(entities.length ? { entities } : {}) };
    return pushUpdate({ message } as Omit<Update, "update_id">);
  });

  app.post<{ Body: { user: EmulatedUser; chat_id?: number; message_id: number; data: string } }>("/emulator/callbacks", async (request, reply) => {
    const { user, message_id, data } = request.body;
    const c = chat(request.body.chat_id ?? user.id);
    const m = c.messages.find((x) => x.message_id === message_id);
    if (!m) return reply.code(404).send({ error: "no such message" });
    return pushUpdate({
      callback_query: {
        id: String(nextUpdateId),
        from: { ...user, is_bot: false },
        chat_instance: String(c.id),
        message: asMessage(c, m, BOT_USER),
        data,
      },
    } as Omit<Update, "update_id">);
  });

  app.get<{ Params: { id: string }; Querystring: { after?: string; timeout_ms?: string } }>("/emulator/chats/:id", async (request) => {
    const c = chat(Number(request.params.id));
    const after = Number(request.query.after ?? -1);
    const timeoutMs = Math.min(Number(request.query.timeout_ms ?? 0), 30_000);
    if (c.version <= after && timeoutMs > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          if (c.version <= after) return;
          waiters.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(done);
          resolve();
        }, timeoutMs);
        waiters.add(done);
      });
    }
    return { version: c.version, messages: c.messages, menu_button: c.menuButton ?? defaultMenuButton ?? { type: "default" } };
  });

  app.post<{ Body: { chat_id: number; blocked: boolean } }>("/emulator/blocked", async (request) => {
    if (request.body.blocked) blocked.add(request.body.chat_id);
    else blocked.delete(request.body.chat_id);
    return { ok: true };
  });

  app.post<{ Body: { method: string; refuse: boolean } }>("/emulator/refuse", async (request) => {
    if (request.body.refuse) refusing.add(request.body.method);
    else refusing.delete(request.body.method);
    return { ok: true };
  });

  app.post<{ Body: { method: string; ms: number; takes_effect?: "at-once" | "when-answered" } }>("/emulator/slow", async (request) => {
    const { method, ms, takes_effect = "when-answered" } = request.body;
    if (ms > 0) slow.set(method, { ms, takesEffect: takes_effect });
    else slow.delete(method);
    return { ok: true };
  });
  // Late calls waiting now (how long each has waited), and how many callers hung up on one.
  app.get("/emulator/late", async () => ({ waiting_ms: [...waiting].map((entry) => Date.now() - entry.since), hung_up: hungUp }));

  app.get("/emulator/calls", async () => ({ calls }));
  app.get("/emulator/conflicts", async () => ({ conflicts }));

  app.addHook("preClose", async () => wake());
  return app;
}

export async function startEmulator(port = 0): Promise<{ url: string; app: FastifyInstance }> {
  const app = buildEmulator();
  await app.listen({ host: "127.0.0.1", port });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app };
}
