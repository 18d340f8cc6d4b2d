import type { FastifyInstance } from "fastify";
import type { Message, PreCheckoutQuery, RefundedPayment, StarTransaction, SuccessfulPayment, Update } from "grammy/types";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";

// Payments in Telegram Stars as the emulator plays them, called as the bot calls Telegram: plain HTTP to
// /bot<token>/<method>, and getUpdates for what users do. Every field list and refusal below is the one
// docs/providers/telegram-bot-api.md gives under "Payments in Telegram Stars".

const TOKEN = "7000000001:emulated-token";
let url: string;
let app: FastifyInstance;
let stars: EmulatedStars;

beforeAll(async () => {
  ({ url, app } = await startEmulator());
  stars = new EmulatedStars(url);
});
afterAll(async () => app.close());
afterEach(async () => stars.setCheckoutTimeout());

type Answer = { ok: true; result: any } | { ok: false; error_code: number; description: string };

/** One Bot API call as the bot makes it: JSON POST, Telegram's envelope back whatever the status. */
async function bot(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
  const response = await request(`${url}/bot${TOKEN}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  const answer = (await response.body.json()) as Answer;
  expect(response.statusCode).toBe(answer.ok ? 200 : answer.error_code);
  return answer;
}
async function result(method: string, params: Record<string, unknown> = {}): Promise<any> {
  const answer = await bot(method, params);
  if (!answer.ok) throw new Error(`${method} refused: ${answer.description}`);
  return answer.result;
}
const badRequest = (description: string) => ({ ok: false, error_code: 400, description: `Bad Request: ${description}` });

let offset = 0;
/** The updates that arrive within `timeoutMs` (at least one unless none comes), confirmed as a bot confirms them. */
async function updates(timeoutMs = 2_000): Promise<Update[]> {
  const got: Update[] = await result("getUpdates", { offset, timeout: Math.ceil(timeoutMs / 1000) });
  if (got.length) offset = got[got.length - 1].update_id + 1;
  return got;
}
/** Waits for the next update that matches, dropping the others (each test reads only its own). */
async function nextUpdate(match: (update: Update) => boolean, timeoutMs = 5_000): Promise<Update> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const hit = (await updates(1_000)).find(match);
    if (hit) return hit;
  }
  throw new Error("no such update in time");
}
const preCheckout = async (): Promise<PreCheckoutQuery> => (await nextUpdate((u) => u.pre_checkout_query !== undefined)).pre_checkout_query!;

let nextUser = 820_000_001;
async function user(): Promise<EmulatedChat> {
  const id = nextUser++;
  const chat = new EmulatedChat(url, { id, first_name: `Payer ${id}`, username: `payer${id}` });
  await chat.say("/start");
  return chat;
}

const INVOICE = { title: "Top-up 5 USDT", description: "Adds 5 USDT to your balance", currency: "XTR", prices: [{ label: "Top-up", amount: 250 }] };
/** The bot sends an invoice to the user; answers the sent message. */
async function sendInvoice(chat: EmulatedChat, payload: string, amount = 250): Promise<Message> {
  return result("sendInvoice", { chat_id: chat.chatId, ...INVOICE, payload, prices: [{ label: "Top-up", amount }] });
}
const balance = async () => (await result("getMyStarBalance")).amount as number;
const transactions = async (): Promise<StarTransaction[]> => (await result("getStarTransactions")).transactions;

/** A user pays the invoice and the bot answers ok: the attempt and the successful_payment the bot was sent. */
async function paid(chat: EmulatedChat, invoice: number | string): Promise<{ charge: string; payment: SuccessfulPayment; message: Message }> {
  const attempt = chat.pay(invoice);
  const query = await preCheckout();
  expect(await result("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: true })).toBe(true);
  const ended = await attempt;
  expect(ended).toMatchObject({ status: "paid", outcome: "paid" });
  const message = (await nextUpdate((u) => u.message?.successful_payment !== undefined)).message!;
  return { charge: ended.telegram_payment_charge_id!, payment: message.successful_payment!, message };
}

// The published fields (P1, with P2's writers): nothing else may appear, the required ones must.
function expectFields(object: object, published: string[], required: string[]) {
  expect(Object.keys(object).filter((key) => !published.includes(key))).toEqual([]);
  for (const key of required) expect(object).toHaveProperty(key);
}
const PRE_CHECKOUT_FIELDS = ["id", "from", "currency", "total_amount", "invoice_payload", "shipping_option_id", "order_info"];
const SUCCESSFUL_FIELDS = [
  "currency",
  "total_amount",
  "invoice_payload",
  "subscription_expiration_date",
  "is_recurring",
  "is_first_recurring",
  "shipping_option_id",
  "order_info",
  "telegram_payment_charge_id",
  "provider_payment_charge_id",
];
const REFUNDED_FIELDS = ["currency", "total_amount", "invoice_payload", "telegram_payment_charge_id", "provider_payment_charge_id"];

describe("sendInvoice and createInvoiceLink", () => {
  it("send a Stars invoice as a message with `invoice` and make an https://t.me/$… link", async () => {
    const chat = await user();
    const message = await sendInvoice(chat, "topup:1");
    expect(message.text).toBeUndefined();
    expect(message.chat.id).toBe(chat.chatId);
    // P1 Invoice; P2 writes start_parameter always, empty when none was given.
    expect(message.invoice).toEqual({
      title: INVOICE.title,
      description: INVOICE.description,
      start_parameter: "",
      currency: "XTR",
      total_amount: 250,
    });
    expect((await chat.messages()).at(-1)).toMatchObject({ from_bot: true, invoice: message.invoice });
    // provider_token may be given empty (P1: "Pass an empty string for payments in Telegram Stars").
    const link = await result("createInvoiceLink", { ...INVOICE, payload: "topup:2", provider_token: "" });
    expect(link).toMatch(/^https:\/\/t\.me\/\$[A-Za-z0-9_-]+$/);
    expect(await result("createInvoiceLink", { ...INVOICE, payload: "topup:2" })).not.toBe(link);
  });

  it("refuse invalid parameters with the Bot API's 400 envelope, for both methods", async () => {
    const chat = await user();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: undefined }, 'parameter "title" is required'],
      [{ description: "" }, 'parameter "description" is required'],
      [{ payload: undefined }, 'parameter "payload" is required'],
      [{ currency: undefined }, 'parameter "currency" is required'],
      [{ prices: undefined }, 'parameter "prices" is required'],
      [{ prices: "[{" }, "can't parse prices JSON object"],
      [{ prices: [] }, "there must be at least one price"],
      [{ prices: [{ label: "", amount: 5 }] }, "can't parse labeled price: LabeledPrice label must be non-empty"],
      [{ prices: [{ label: "Top-up", amount: 0 }] }, "total price must be positive"],
      [{ currency: "USD" }, "PAYMENT_PROVIDER_INVALID"],
      [{ provider_token: "284685063:TEST:abc" }, "STARS_INVOICE_INVALID"],
      [{ max_tip_amount: 10 }, "STARS_INVOICE_INVALID"],
      [{ prices: INVOICE.prices.concat([{ label: "Fee", amount: 5 }]) }, "STARS_INVOICE_INVALID"],
      [{ title: "x".repeat(33) }, "TITLE_INVALID"],
      [{ description: "x".repeat(256) }, "DESCRIPTION_INVALID"],
      // 43 characters, 129 bytes: the limit is in bytes.
      [{ payload: "€".repeat(43) }, "INVOICE_PAYLOAD_INVALID"],
    ];
    for (const [change, description] of cases) {
      const params = { ...INVOICE, payload: "topup:x", ...change };
      expect(await bot("sendInvoice", { chat_id: chat.chatId, ...params }), description).toEqual(badRequest(description));
      expect(await bot("createInvoiceLink", params), description).toEqual(badRequest(description));
    }
    expect(await bot("sendInvoice", { ...INVOICE, payload: "topup:x" })).toEqual(badRequest('parameter "chat_id" is required'));
    // At the limits, accepted: 32 characters of title, 255 of description, 128 bytes of payload.
    expect(
      await bot("createInvoiceLink", { ...INVOICE, title: "x".repeat(32), description: "y".repeat(255), payload: "z".repeat(128) }),
    ).toMatchObject({ ok: true });
    // A refused invoice sends nothing.
    expect((await chat.messages()).filter((m) => m.from_bot)).toEqual([]);
  });
});

describe("a user paying", () => {
  it("asks the bot a pre_checkout_query; answered ok, the bot gets successful_payment, the Stars and an incoming transaction", async () => {
    const chat = await user();
    await stars.setBalance(1000);
    // An outgoing transaction first (a gift), so the order of the two kinds shows.
    const gift = (await result("getAvailableGifts")).gifts.find((g: { total_count?: number }) => g.total_count === undefined);
    expect(await result("sendGift", { user_id: chat.user.id, gift_id: gift.id })).toBe(true);
    const before = await transactions();
    const message = await sendInvoice(chat, "topup:paid");

    const attempt = chat.pay(message.message_id);
    const query = await preCheckout();
    expectFields(query, PRE_CHECKOUT_FIELDS, ["id", "from", "currency", "total_amount", "invoice_payload"]);
    expect(query).toMatchObject({
      from: { id: chat.user.id, is_bot: false, first_name: chat.user.first_name },
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "topup:paid",
    });
    expect(query.id).toMatch(/^\d+$/);
    expect(await result("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: true })).toBe(true);
    const ended = await attempt;
    expect(ended).toMatchObject({ status: "paid", outcome: "paid", delivered: "once", pre_checkout_query_id: query.id });

    const update = await nextUpdate((u) => u.message?.successful_payment !== undefined);
    const payment = update.message!.successful_payment!;
    expectFields(payment, SUCCESSFUL_FIELDS, [
      "currency",
      "total_amount",
      "invoice_payload",
      "telegram_payment_charge_id",
      "provider_payment_charge_id",
    ]);
    expect(payment).toMatchObject({
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "topup:paid",
      telegram_payment_charge_id: ended.telegram_payment_charge_id,
    });
    expect(typeof payment.provider_payment_charge_id).toBe("string");
    // A service message from the user in their private chat.
    expect(update.message).toMatchObject({ chat: { id: chat.chatId, type: "private" }, from: { id: chat.user.id } });
    expect(update.message!.text).toBeUndefined();

    expect(await balance()).toBe(1000 - gift.star_count + 250);
    const after = await transactions();
    expect(after.slice(0, before.length)).toEqual(before);
    // P1: an incoming payment's id is its telegram_payment_charge_id, its source the paying user.
    expect(after.slice(before.length)).toEqual([
      {
        id: payment.telegram_payment_charge_id,
        amount: 250,
        date: expect.any(Number),
        source: { type: "user", transaction_type: "invoice_payment", user: { ...chat.user, is_bot: false }, invoice_payload: "topup:paid" },
      },
    ]);
    const dates = after.map((t) => t.date);
    expect(dates).toEqual([...dates].sort((a, b) => a - b));

    // The same invoice paid again is a new payment with a new charge id.
    const again = await paid(chat, message.message_id);
    expect(again.charge).not.toBe(payment.telegram_payment_charge_id);
    expect(again.payment.provider_payment_charge_id).not.toBe(payment.provider_payment_charge_id);
    expect(await balance()).toBe(1000 - gift.star_count + 500);
  });

  it("refused (ok false) ends the payment with the bot's error_message shown to the user, and credits nothing", async () => {
    const chat = await user();
    await stars.setBalance(0);
    const message = await sendInvoice(chat, "topup:refused");
    const attempt = chat.pay(message.message_id);
    const query = await preCheckout();
    // P2: error_message is required when ok is false.
    expect(await bot("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: false })).toEqual(
      badRequest('parameter "error_message" is required'),
    );
    expect(await result("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: false, error_message: "This top-up has expired." })).toBe(
      true,
    );
    expect(await attempt).toMatchObject({ status: "failed", outcome: "refused", error_message: "This top-up has expired." });
    expect((await stars.paymentAttempts()).at(-1)).toMatchObject({
      user_id: chat.user.id,
      invoice_payload: "topup:refused",
      error_message: "This top-up has expired.",
    });
    // Answered once: a second answer finds no query.
    expect(await bot("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: true })).toEqual(
      badRequest("query is too old and response timeout expired or query ID is invalid"),
    );
    expect((await updates(1_000)).filter((u) => u.message?.successful_payment)).toEqual([]);
    expect(await balance()).toBe(0);
  });

  it("unanswered past the wait (10 s, shortened here) is cancelled; a late answer is refused", async () => {
    const chat = await user();
    await stars.setBalance(0);
    await stars.setCheckoutTimeout(400);
    const message = await sendInvoice(chat, "topup:late");
    const startedAt = Date.now();
    const attempt = chat.pay(message.message_id);
    const query = await preCheckout();
    expect(await attempt).toMatchObject({ status: "failed", outcome: "timed_out" });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400);
    expect(await bot("answerPreCheckoutQuery", { pre_checkout_query_id: query.id, ok: true })).toEqual(
      badRequest("query is too old and response timeout expired or query ID is invalid"),
    );
    expect((await updates(1_000)).filter((u) => u.message?.successful_payment)).toEqual([]);
    expect(await balance()).toBe(0);
    expect((await transactions()).some((t) => t.source && "invoice_payload" in t.source && t.source.invoice_payload === "topup:late")).toBe(false);
  });

  it("closed without paying is cancelled, and the bot hears nothing", async () => {
    const chat = await user();
    const message = await sendInvoice(chat, "topup:closed");
    expect(await chat.pay(message.message_id, { close: true })).toMatchObject({ status: "cancelled", outcome: "closed" });
    expect((await updates(1_000)).filter((u) => u.pre_checkout_query)).toEqual([]);
  });

  it("pays a createInvoiceLink link as the Mini App's openInvoice does, answering its final status", async () => {
    const chat = await user();
    const link: string = await result("createInvoiceLink", { ...INVOICE, payload: "topup:miniapp" });
    const { payment, message } = await paid(chat, link);
    expect(payment).toMatchObject({ invoice_payload: "topup:miniapp", total_amount: 250 });
    expect(message.chat.id).toBe(chat.user.id);
    // The slug alone opens it too (P7).
    const slug = link.slice("https://t.me/$".length);
    expect(await chat.pay(slug, { close: true })).toMatchObject({ status: "cancelled" });
    await expect(chat.pay("https://t.me/$nosuchinvoice")).rejects.toThrow(/no such invoice/);
  });
});

describe("successful_payment faults", () => {
  it("delivers the update twice when told: the same payment and charge id, the Stars added once", async () => {
    const chat = await user();
    await stars.setBalance(0);
    const message = await sendInvoice(chat, "topup:twice");
    await stars.nextDelivery("twice");
    const attempt = chat.pay(message.message_id);
    await result("answerPreCheckoutQuery", { pre_checkout_query_id: (await preCheckout()).id, ok: true });
    expect(await attempt).toMatchObject({ status: "paid", delivered: "twice" });
    const seen: Update[] = [];
    const deadline = Date.now() + 3_000;
    while (seen.length < 2 && Date.now() < deadline) seen.push(...(await updates(1_000)).filter((u) => u.message?.successful_payment));
    expect(seen).toHaveLength(2);
    expect(seen[0].update_id).not.toBe(seen[1].update_id);
    expect(seen[1].message).toEqual(seen[0].message);
    expect(await balance()).toBe(250);
    // The one after is delivered once again.
    await paid(chat, message.message_id);
    expect((await updates(1_000)).filter((u) => u.message?.successful_payment)).toEqual([]);
  });

  it("drops the update when told: the payment completes, the bot finds it only in getStarTransactions", async () => {
    const chat = await user();
    await stars.setBalance(0);
    const message = await sendInvoice(chat, "topup:lost");
    await stars.nextDelivery("dropped");
    const attempt = chat.pay(message.message_id);
    await result("answerPreCheckoutQuery", { pre_checkout_query_id: (await preCheckout()).id, ok: true });
    const ended = await attempt;
    expect(ended).toMatchObject({ status: "paid", delivered: "dropped" });
    expect((await updates(1_500)).filter((u) => u.message?.successful_payment)).toEqual([]);
    expect(await balance()).toBe(250);
    expect((await transactions()).find((t) => t.id === ended.telegram_payment_charge_id)).toMatchObject({
      amount: 250,
      source: { type: "user", transaction_type: "invoice_payment", invoice_payload: "topup:lost" },
    });
  });
});

describe("refunds", () => {
  it("refundStarPayment refunds once: the Stars leave, an outgoing transaction, refunded_payment to the bot; then CHARGE_ALREADY_REFUNDED", async () => {
    const chat = await user();
    await stars.setBalance(100);
    const { charge, payment } = await paid(chat, (await sendInvoice(chat, "topup:refund")).message_id);
    expect(await balance()).toBe(350);

    expect(await result("refundStarPayment", { user_id: chat.user.id, telegram_payment_charge_id: charge })).toBe(true);
    expect(await balance()).toBe(100);
    // P1: a refund's id is the original transaction's; outgoing, so a receiver.
    expect((await transactions()).at(-1)).toEqual({
      id: charge,
      amount: 250,
      date: expect.any(Number),
      receiver: { type: "user", transaction_type: "invoice_payment", user: { ...chat.user, is_bot: false }, invoice_payload: "topup:refund" },
    });
    const update = await nextUpdate((u) => u.message?.refunded_payment !== undefined);
    const refunded: RefundedPayment = update.message!.refunded_payment!;
    expectFields(refunded, REFUNDED_FIELDS, ["currency", "total_amount", "invoice_payload", "telegram_payment_charge_id"]);
    expect(refunded).toEqual({
      currency: "XTR",
      total_amount: 250,
      invoice_payload: "topup:refund",
      telegram_payment_charge_id: charge,
      provider_payment_charge_id: payment.provider_payment_charge_id,
    });
    expect(update.message!.chat.id).toBe(chat.chatId);

    // P4: the second time.
    expect(await bot("refundStarPayment", { user_id: chat.user.id, telegram_payment_charge_id: charge })).toEqual(
      badRequest("CHARGE_ALREADY_REFUNDED"),
    );
    expect(await balance()).toBe(100);
  });

  it("refuses an unknown charge, another user's, a missing one, a bad user_id, and a balance too low", async () => {
    const chat = await user();
    const other = await user();
    await stars.setBalance(0);
    const { charge } = await paid(chat, (await sendInvoice(chat, "topup:refuse-refund")).message_id);
    expect(await bot("refundStarPayment", { user_id: chat.user.id, telegram_payment_charge_id: "stxnosuchcharge" })).toEqual(
      badRequest("CHARGE_ID_INVALID"),
    );
    expect(await bot("refundStarPayment", { user_id: other.user.id, telegram_payment_charge_id: charge })).toEqual(badRequest("CHARGE_ID_INVALID"));
    expect(await bot("refundStarPayment", { user_id: chat.user.id })).toEqual(badRequest('parameter "telegram_payment_charge_id" is required'));
    expect(await bot("refundStarPayment", { telegram_payment_charge_id: charge })).toEqual(badRequest("invalid user_id specified"));
    // The Stars were spent meanwhile (a gift, say): too few left to give back.
    await stars.setBalance(100);
    expect(await bot("refundStarPayment", { user_id: chat.user.id, telegram_payment_charge_id: charge })).toEqual(badRequest("BALANCE_TOO_LOW"));
    expect(await balance()).toBe(100);
    expect((await updates(1_000)).filter((u) => u.message?.refunded_payment)).toEqual([]);
    // Funded again, it refunds.
    await stars.setBalance(250);
    expect(await result("refundStarPayment", { user_id: chat.user.id, telegram_payment_charge_id: charge })).toBe(true);
    expect(await balance()).toBe(0);
  });

  it("plays a refund Telegram makes on its own (a dispute): refunded_payment without the bot's call, the balance may go below 0", async () => {
    const chat = await user();
    await stars.setBalance(0);
    const { charge } = await paid(chat, (await sendInvoice(chat, "topup:dispute")).message_id);
    await stars.setBalance(100);
    await stars.dispute(charge);
    const update = await nextUpdate((u) => u.message?.refunded_payment !== undefined);
    expect(update.message!.refunded_payment).toMatchObject({
      telegram_payment_charge_id: charge,
      total_amount: 250,
      invoice_payload: "topup:dispute",
    });
    expect(await balance()).toBe(-150);
    expect((await transactions()).at(-1)).toMatchObject({ id: charge, amount: 250, receiver: { transaction_type: "invoice_payment" } });
    expect(await bot("refundStarPayment", { user_id: chat.user.id, telegram_payment_charge_id: charge })).toEqual(
      badRequest("CHARGE_ALREADY_REFUNDED"),
    );
    await expect(stars.dispute(charge)).rejects.toThrow(/already refunded/);
  });
});
