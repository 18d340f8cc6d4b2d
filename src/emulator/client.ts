import type { AcceptedGiftTypes } from "grammy/types";
import { request } from "undici";
import type { PaymentAttempt } from "./payments.js";
import type { ReceivedGift } from "./stars-and-gifts.js";
import type { ChatMessage, EmulatedUser } from "./state.js";

/** One call to the emulator's /emulator/* side; a refusal (4xx, 5xx) throws with its body. */
async function call(baseUrl: string, method: "GET" | "POST", path: string, body?: unknown) {
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.body.json()) as any;
  if (response.statusCode >= 400) throw new Error(`emulator ${path}: ${JSON.stringify(json)}`);
  return json;
}

/** Plays one Telegram user against the emulator: sends text, taps buttons, reads what the bot answered. */
export class EmulatedChat {
  private seenVersion = -1;
  /** Bot message id -> how many edits of it were already seen. */
  private readonly seen = new Map<number, number>();

  constructor(
    private readonly baseUrl: string,
    readonly user: EmulatedUser,
    readonly chatId: number = user.id,
  ) {}

  private async call(method: "GET" | "POST", path: string, body?: unknown) {
    return call(this.baseUrl, method, path, body);
  }

  async messages(): Promise<ChatMessage[]> {
    return (await this.call("GET", `/emulator/chats/${this.chatId}`)).messages;
  }

  /** Sends a text message (or a /command) as this user; returns the update id. */
  async say(text: string): Promise<number> {
    return (await this.call("POST", "/emulator/messages", { user: this.user, text, chat_id: this.chatId })).update_id;
  }

  /**
   * Taps the button whose label contains `label` on the newest bot message that has one, waiting up to `timeoutMs`
   * for it to appear (a bot may send its buttons a moment after the message a test waited for).
   */
  async tap(label: string | RegExp, timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const messages = await this.messages();
      for (const message of [...messages].reverse()) {
        const button = message.reply_markup?.inline_keyboard
          .flat()
          .find((b) => (typeof label === "string" ? b.text.includes(label) : label.test(b.text)));
        if (button && "callback_data" in button) return this.tapData(message.message_id, button.callback_data!);
      }
      if (Date.now() > deadline) {
        throw new Error(`no button ${label} in ${JSON.stringify(messages.slice(-2).map((m) => [m.text, m.reply_markup]))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async tapData(messageId: number, data: string): Promise<number> {
    return (await this.call("POST", "/emulator/callbacks", { user: this.user, chat_id: this.chatId, message_id: messageId, data })).update_id;
  }

  /** Bot messages new or edited since the last look, waiting up to `timeoutMs` for at least one. */
  async fresh(timeoutMs = 10_000): Promise<ChatMessage[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return [];
      const state = await this.call("GET", `/emulator/chats/${this.chatId}?after=${this.seenVersion}&timeout_ms=${Math.min(left, 5000)}`);
      if (state.version <= this.seenVersion) continue;
      this.seenVersion = state.version;
      const found = (state.messages as ChatMessage[]).filter((m) => m.from_bot && (this.seen.get(m.message_id) ?? -1) < m.edits);
      for (const m of found) this.seen.set(m.message_id, m.edits);
      if (found.length) return found;
    }
  }

  /** Waits for a new or edited bot message whose text matches (any, by default) and returns it. */
  async next(match: (text: string) => boolean = () => true, timeoutMs = 10_000): Promise<ChatMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await this.fresh(deadline - Date.now());
      const hit = [...found].reverse().find((m) => match(m.text));
      if (hit) return hit;
      if (Date.now() >= deadline) {
        const last = (await this.messages())
          .filter((m) => m.from_bot)
          .slice(-3)
          .map((m) => m.text);
        throw new Error(`no bot message matched in time; last: ${JSON.stringify(last)}`);
      }
    }
  }

  /** Says something and waits for the bot's answer that matches. */
  async reply(text: string, match?: (text: string) => boolean): Promise<ChatMessage> {
    await this.say(text);
    return this.next(match);
  }

  /** The text of a document the bot sent (a CSV, say), as UTF-8. */
  static documentText(message: ChatMessage): string {
    if (!message.document) throw new Error(`message ${message.message_id} has no document`);
    return Buffer.from(message.document.content, "base64").toString("utf8");
  }

  /** Waits for a new document from the bot whose caption matches (any, by default) and returns it. */
  async nextDocument(match: (caption: string) => boolean = () => true, timeoutMs = 10_000): Promise<ChatMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await this.fresh(deadline - Date.now());
      const hit = found.find((m) => m.document && match(m.text));
      if (hit) return hit;
      if (Date.now() >= deadline) throw new Error("no document from the bot in time");
    }
  }

  async setBlocked(blocked: boolean) {
    await this.call("POST", "/emulator/blocked", { chat_id: this.chatId, blocked });
  }

  /**
   * Changes this user's @username (null removes it), as a user does in Telegram's settings: the bot is told nothing
   * until they next write to it, but getChat shows the new one at once. Their next messages carry it.
   */
  async rename(username: string | null) {
    await this.call("POST", "/emulator/profile", { user_id: this.user.id, username });
    if (username === null) delete this.user.username;
    else this.user.username = username;
  }

  /** This user's privacy: the gift classes they accept (false refuses one; unset classes stay as they were). */
  async setAcceptedGifts(types: Partial<AcceptedGiftTypes>) {
    await this.call("POST", "/emulator/gift-privacy", { user_id: this.user.id, accepted_gift_types: types });
  }

  /**
   * Pays an invoice in Stars as this user: the invoice in a message of this chat (its message id), or behind a link
   * createInvoiceLink made (the link), as the Mini App's openInvoice does. Answers when the payment ended: the bot
   * answered its pre_checkout_query (paid, or failed with its error_message) or let Telegram's wait pass (failed).
   * `close` plays a user who closes the invoice without paying (cancelled; the bot hears nothing).
   */
  async pay(invoice: number | string, options: { close?: boolean } = {}): Promise<PaymentAttempt> {
    const which = typeof invoice === "number" ? { message_id: invoice } : { link: invoice };
    return this.call("POST", "/emulator/payments/pay", { user: this.user, chat_id: this.chatId, ...which, ...options });
  }

  /** The gifts and Premium this user received from the bot, oldest first. */
  async giftsReceived(): Promise<ReceivedGift[]> {
    return (await this.call("GET", `/emulator/gifts-received/${this.user.id}`)).received;
  }
}

/** The bot's side of the emulator that no user plays: its Star balance, the gifts' stock, and Telegram's payments. */
export class EmulatedStars {
  constructor(private readonly baseUrl: string) {}

  async setBalance(amount: number, nanostarAmount = 0) {
    await call(this.baseUrl, "POST", "/emulator/stars", { amount, nanostar_amount: nanostarAmount });
  }

  /** A limited gift's remaining count (0 sells it out), and optionally its total. */
  async setGiftStock(giftId: string, remainingCount: number, totalCount?: number) {
    await call(this.baseUrl, "POST", "/emulator/gift-stock", { gift_id: giftId, remaining_count: remainingCount, total_count: totalCount });
  }

  /** How long a pre_checkout_query waits for the bot's answer (Telegram's 10 s unless set). */
  async setCheckoutTimeout(ms = 10_000) {
    await call(this.baseUrl, "POST", "/emulator/payments/checkout-timeout", { timeout_ms: ms });
  }

  /** The next `payments` payments' successful_payment update: delivered twice, or dropped (completed, update lost). */
  async nextDelivery(delivery: "twice" | "dropped", payments = 1) {
    await call(this.baseUrl, "POST", "/emulator/payments/next-delivery", { delivery, payments });
  }

  /** A refund Telegram makes on its own (a dispute): the bot gets refunded_payment without having asked. */
  async dispute(telegramPaymentChargeId: string) {
    await call(this.baseUrl, "POST", "/emulator/payments/dispute", { telegram_payment_charge_id: telegramPaymentChargeId });
  }

  /** Every attempt to pay so far, oldest first, with how it ended (and the error_message a refused one showed). */
  async paymentAttempts(): Promise<PaymentAttempt[]> {
    return (await call(this.baseUrl, "GET", "/emulator/payments")).attempts;
  }
}
