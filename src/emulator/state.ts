import { randomInt } from "node:crypto";
import type { Socket } from "node:net";
import type { InlineKeyboardMarkup, Invoice, Message, MessageEntity, RefundedPayment, SuccessfulPayment, Update, User } from "grammy/types";

export interface EmulatedUser {
  id: number;
  first_name: string;
  username?: string;
  language_code?: string;
}

/** A file the bot sent (sendDocument), kept whole so a test can read it. */
export interface SentDocument {
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
  /** An invoice the bot sent (sendInvoice): the message has no text, only this (src/emulator/payments.ts). */
  invoice?: Invoice;
  /** A payment's service message in the user's chat, as the bot was (or would have been) told of it. */
  successful_payment?: SuccessfulPayment;
  refunded_payment?: RefundedPayment;
}

export interface Chat {
  id: number;
  type: "private" | "group";
  title?: string;
  messages: ChatMessage[];
  /** Bumped on every message or edit, so a waiting client wakes up. */
  version: number;
  /** The chat's menu button as the bot set it (setChatMenuButton), or undefined for the default. */
  menuButton?: unknown;
}

/** A Bot API method as the emulator answers it: its result, or a thrown `fail(...)` for Telegram's refusal. */
export type Handler = (p: Record<string, any>, socket: Socket) => unknown;

export const BOT_USER: User = { id: 7_000_000_001, is_bot: true, first_name: "Purchase Bot", username: "purchase_test_bot" };

/** Telegram's refusal body; thrown by a method and answered with its code. */
export const fail = (code: number, description: string) => ({ ok: false, error_code: code, description });

const now = () => Math.floor(Date.now() / 1000);
const telegramChat = (c: Chat) =>
  c.type === "private" ? { id: c.id, type: "private" as const, first_name: "User" } : { id: c.id, type: "group" as const, title: c.title ?? "Group" };

/** A chat's message as the Bot API shows it, sent by `from`. */
export function asMessage(c: Chat, m: ChatMessage, from: User): Message {
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
    ...(m.invoice ? { text: undefined, invoice: m.invoice } : {}),
    ...(m.successful_payment ? { text: undefined, successful_payment: m.successful_payment } : {}),
    ...(m.refunded_payment ? { text: undefined, refunded_payment: m.refunded_payment } : {}),
    ...(m.entities ? { entities: m.entities } : {}),
    ...(m.reply_markup ? { reply_markup: m.reply_markup } : {}),
    ...(m.edits ? { edit_date: now() } : {}),
  } as Message;
}

/**
 * Everything one emulator holds, shared by its routes: the chats, the updates not yet confirmed, the files the bot
 * sent, and the faults set on purpose through /emulator/*. Anyone waiting for a change (a long poll, a client
 * reading a chat) is a waiter, woken on every change.
 */
export function createState() {
  const state = {
    chats: new Map<number, Chat>(),
    updates: [] as Update[],
    // Telegram's update ids run on from a starting number, chosen afresh after a week without updates (Bot API,
    // Update.update_id): a random start lets a restarted emulator talk to a bot whose inbox remembers earlier ids.
    nextUpdateId: randomInt(1_000_000, 1_000_000_000),
    documents: new Map<string, SentDocument>(),
    /** The users who have sent the bot an update (a message, a button), as the last one showed them: the users it knows. */
    users: new Map<number, User>(),
    /** The menu button of every chat without one of its own. */
    defaultMenuButton: undefined as unknown,
    blocked: new Set<number>(),
    /** Methods made to fail on purpose, to test that the bot survives a refusal. */
    refusing: new Set<string>(),
    calls: [] as Array<{ method: string; payload: Record<string, unknown> }>,
    /**
     * Methods answered late on purpose (a slow Telegram). `at-once`: the call takes effect (a message is in the chat)
     * at once and only its answer is late. `when-answered`: it takes effect only when answered, and not at all if
     * the caller hung up meanwhile (a request that had not reached Telegram yet when its sender died).
     */
    slow: new Map<string, { ms: number; takesEffect: "at-once" | "when-answered" }>(),
    /** Late calls whose caller hung up before the answer: taking effect or not, as `slow` says. */
    hungUp: 0,
    /** When each late call now waiting arrived. */
    waiting: new Set<{ since: number }>(),
    waiters: new Set<() => void>(),
    /** The long poll held open now, and how often a second poller cut one short (Telegram's 409 Conflict). */
    held: undefined as { socket: Socket; terminate(): void } | undefined,
    conflicts: 0,

    wake() {
      for (const waiter of [...state.waiters]) waiter();
    },
    chat(id: number, type: Chat["type"] = id > 0 ? "private" : "group"): Chat {
      let found = state.chats.get(id);
      if (!found) {
        found = { id, type, messages: [], version: 0, ...(type === "group" ? { title: "Test group" } : {}) };
        state.chats.set(id, found);
      }
      return found;
    },
    pushUpdate(update: Omit<Update, "update_id">): Update {
      const full = { update_id: state.nextUpdateId++, ...update } as Update;
      const from = full.message?.from ?? full.callback_query?.from ?? full.pre_checkout_query?.from;
      if (from) state.users.set(from.id, from);
      state.updates.push(full);
      state.wake();
      return full;
    },
    /** A chat changed: its version moves on and its readers wake. */
    record(c: Chat) {
      c.version += 1;
      state.wake();
    },
  };
  return state;
}

export type EmulatorState = ReturnType<typeof createState>;
