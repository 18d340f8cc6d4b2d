import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Invoice, RefundedPayment, StarTransaction, SuccessfulPayment, Update, User } from "grammy/types";
import type { StarsAndGifts } from "./stars-and-gifts.js";
import { BOT_USER, type ChatMessage, type EmulatedUser, type EmulatorState, type Handler, asMessage, fail } from "./state.js";

/*
 * Payments in Telegram Stars as the Bot API plays them: sendInvoice and createInvoiceLink, a user paying (the
 * pre_checkout_query the bot must answer within 10 s, then successful_payment), refundStarPayment and a refund
 * Telegram makes on its own (refunded_payment), and the payments as incoming transactions in getStarTransactions.
 * Every shape and refusal follows docs/providers/telegram-bot-api.md, "Payments in Telegram Stars", and each comment
 * names its source there: P1 the Bot API reference, P2 the Bot API server's source, P3 TDLib's, P4 and P6 refusals
 * seen from the live Bot API, P5 and P8 MTProto's errors, P7 the Mini App's invoice. What no source states is
 * UNCONFIRMED.
 */

/** What the bot is told to wait for: Telegram's 10 seconds (P1 answerPreCheckoutQuery). */
const CHECKOUT_TIMEOUT_MS = 10_000;
/** UNCONFIRMED: the largest Stars invoice (the 10,000 Stars P1 gives as a subscription's ceiling). */
const MAX_STARS = 10_000;

/** An invoice the bot made: sent in a chat (sendInvoice) or as a link (createInvoiceLink). */
interface EmulatedInvoice {
  title: string;
  description: string;
  payload: string;
  total_amount: number;
  start_parameter: string;
  /** The link's slug (createInvoiceLink), or the chat and message it was sent as (sendInvoice). */
  slug?: string;
  chat_id?: number;
  message_id?: number;
}

/**
 * One attempt to pay, as the user saw it end. `status` is what the Mini App's `openInvoice` callback would receive
 * (P7): paid, cancelled (closed without paying) or failed; `outcome` says why.
 */
export interface PaymentAttempt {
  pre_checkout_query_id?: string;
  user_id: number;
  invoice_payload: string;
  total_amount: number;
  status: "paid" | "cancelled" | "failed";
  outcome: "paid" | "closed" | "refused" | "timed_out";
  /** The bot's error_message (answerPreCheckoutQuery with ok false), as Telegram shows it to the user. */
  error_message?: string;
  telegram_payment_charge_id?: string;
  /** How the successful_payment update went to the bot: once, twice, or not at all (lost). */
  delivered?: "once" | "twice" | "dropped";
}

interface Charge {
  user: User;
  chat_id: number;
  total_amount: number;
  invoice_payload: string;
  telegram_payment_charge_id: string;
  provider_payment_charge_id: string;
  refunded: boolean;
}

type Delivery = "once" | "twice" | "dropped";

export function createPayments() {
  return {
    invoices: [] as EmulatedInvoice[],
    attempts: [] as PaymentAttempt[],
    charges: new Map<string, Charge>(),
    /** Pre-checkout queries waiting for the bot's answer, by id. */
    waiting: new Map<string, (answer: { ok: boolean; error_message?: string }) => void>(),
    checkoutTimeoutMs: CHECKOUT_TIMEOUT_MS,
    /** How the next payments' successful_payment is delivered (a test's fault), oldest first; then once. */
    nextDeliveries: [] as Delivery[],
    nextQueryId: 4_000_000_000_001,
  };
}

type Payments = ReturnType<typeof createPayments>;

const now = () => Math.floor(Date.now() / 1000);
const bad = (description: string) => fail(400, `Bad Request: ${description}`);
/** T3's required_string_arg: absent or empty is the same refusal (P2 get_required_string_arg). */
function required(p: Record<string, any>, name: string): string {
  const value = p[name] === undefined || p[name] === null ? "" : String(p[name]);
  if (!value) throw bad(`parameter "${name}" is required`);
  return value;
}

/** The invoice's fields, checked in the order the Bot API server, TDLib and Telegram meet them. */
function invoiceFields(p: Record<string, any>): Omit<EmulatedInvoice, "slug" | "chat_id" | "message_id"> {
  // P2 get_input_message_invoice: title, description, payload, currency and prices are required, in that order.
  const title = required(p, "title");
  const description = required(p, "description");
  const payload = required(p, "payload");
  const currency = required(p, "currency");
  const rawPrices = p.prices === undefined || p.prices === null || p.prices === "" ? undefined : p.prices;
  if (rawPrices === undefined) throw bad('parameter "prices" is required');
  let prices: unknown = rawPrices;
  if (typeof rawPrices === "string") {
    try {
      prices = JSON.parse(rawPrices);
    } catch {
      throw bad("can't parse prices JSON object");
    }
  }
  // P2 get_labeled_price_parts, then P3 (TDLib InputInvoice): each price a labelled integer, the total positive.
  if (!Array.isArray(prices)) throw bad("expected an Array of labeled prices");
  for (const price of prices as Array<{ label?: unknown; amount?: unknown }>) {
    if (typeof price !== "object" || price === null) throw bad("can't parse labeled price: LabeledPrice must be an Object");
    if (typeof price.label !== "string" || !price.label) throw bad("can't parse labeled price: LabeledPrice label must be non-empty");
    // UNCONFIRMED: the wording for an amount that is no integer (P2 reads it with get_required_long_field).
    if (!Number.isInteger(Number(price.amount))) throw bad('can\'t parse labeled price: field "amount" must be a valid Number');
  }
  if (prices.length === 0) throw bad("there must be at least one price");
  const total = (prices as Array<{ amount: unknown }>).reduce((sum, price) => sum + Number(price.amount), 0);
  if (total <= 0) throw bad("total price must be positive");
  // The emulator plays Stars only. P6: a currency other than XTR without a provider token is PAYMENT_PROVIDER_INVALID;
  // with one, the emulator knows no provider either (UNCONFIRMED that Telegram answers a bad token so).
  if (currency !== "XTR") throw bad("PAYMENT_PROVIDER_INVALID");
  // P1: Stars take an empty (or no) provider token, exactly one price and no tips. P6: STARS_INVOICE_INVALID was seen
  // for a token and tips; for more than one price it is UNCONFIRMED.
  if (p.provider_token !== undefined && p.provider_token !== "") throw bad("STARS_INVOICE_INVALID");
  if (
    Number(p.max_tip_amount ?? 0) !== 0 ||
    (p.suggested_tip_amounts !== undefined && p.suggested_tip_amounts !== "" && p.suggested_tip_amounts !== "[]")
  )
    throw bad("STARS_INVOICE_INVALID");
  if (prices.length !== 1) throw bad("STARS_INVOICE_INVALID");
  // P1's limits (UNCONFIRMED: the texts; P8 has INVOICE_PAYLOAD_INVALID "The specified invoice payload is invalid").
  if ([...title].length > 32) throw bad("TITLE_INVALID");
  if ([...description].length > 255) throw bad("DESCRIPTION_INVALID");
  if (Buffer.byteLength(payload, "utf8") > 128) throw bad("INVOICE_PAYLOAD_INVALID");
  // UNCONFIRMED: the ceiling and its text.
  if (total > MAX_STARS) throw bad("CURRENCY_TOTAL_AMOUNT_INVALID");
  return { title, description, payload, total_amount: total, start_parameter: p.start_parameter === undefined ? "" : String(p.start_parameter) };
}

/** P1 Invoice; P2 JsonInvoice writes start_parameter always (empty when none was given). */
const asInvoice = (invoice: EmulatedInvoice): Invoice => ({
  title: invoice.title,
  description: invoice.description,
  start_parameter: invoice.start_parameter,
  currency: "XTR",
  total_amount: invoice.total_amount,
});

export function paymentMethods(state: EmulatorState, shop: StarsAndGifts, payments: Payments): Record<string, Handler> {
  return {
    // P1 sendInvoice → the sent Message, with `invoice` and no text.
    sendInvoice(p) {
      if (p.chat_id === undefined || p.chat_id === "") throw bad('parameter "chat_id" is required');
      const fields = invoiceFields(p);
      const c = state.chat(Number(p.chat_id));
      if (state.blocked.has(c.id)) throw fail(403, "Forbidden: bot was blocked by the user");
      const invoice: EmulatedInvoice = { ...fields, chat_id: c.id, message_id: c.messages.length + 1 };
      const m: ChatMessage = {
        message_id: invoice.message_id!,
        from_bot: true,
        text: "",
        invoice: asInvoice(invoice),
        reply_markup: p.reply_markup,
        protect_content: p.protect_content,
        edits: 0,
      };
      payments.invoices.push(invoice);
      c.messages.push(m);
      state.record(c);
      return asMessage(c, m, BOT_USER);
    },

    // P1 createInvoiceLink → a String; P7: the link is https://t.me/$<slug> (UNCONFIRMED: the slug's alphabet and length).
    createInvoiceLink(p) {
      const invoice: EmulatedInvoice = { ...invoiceFields(p), slug: randomBytes(12).toString("base64url") };
      payments.invoices.push(invoice);
      return `https://t.me/$${invoice.slug}`;
    },

    // P1 answerPreCheckoutQuery → True; P2: error_message is required when ok is false. A query already answered,
    // past its 10 s or unknown is QUERY_ID_INVALID, which P2 words as below (UNCONFIRMED that Telegram answers a late
    // pre-checkout answer with QUERY_ID_INVALID).
    answerPreCheckoutQuery(p) {
      const ok = p.ok === true || p.ok === "true" || p.ok === "1" || p.ok === 1;
      const errorMessage = ok ? undefined : required(p, "error_message");
      const resolve = payments.waiting.get(String(p.pre_checkout_query_id ?? ""));
      if (!resolve) throw bad("query is too old and response timeout expired or query ID is invalid");
      payments.waiting.delete(String(p.pre_checkout_query_id));
      resolve({ ok, error_message: errorMessage });
      return true;
    },

    // P1 refundStarPayment → True. P2: user_id is checked first (get_user_id), then the charge id is required; the
    // user need not be known (check_user_no_fail). P4: a charge refunded already is CHARGE_ALREADY_REFUNDED.
    refundStarPayment(p) {
      const userId = Math.max(Math.trunc(Number(p.user_id)) || 0, 0);
      if (userId === 0) throw bad("invalid user_id specified");
      const chargeId = required(p, "telegram_payment_charge_id");
      const charge = payments.charges.get(chargeId);
      // UNCONFIRMED: an unknown charge id, or another user's (P8 has CHARGE_ID_INVALID "The specified charge_id is invalid").
      if (!charge || charge.user.id !== userId) throw bad("CHARGE_ID_INVALID");
      if (charge.refunded) throw bad("CHARGE_ALREADY_REFUNDED");
      // UNCONFIRMED for refunds: the bot's balance too low gives the refusal T8 saw for sendGift.
      if (shop.balance.amount < charge.total_amount) throw bad("BALANCE_TOO_LOW");
      refund(state, shop, charge);
      return true;
    },
  };
}

/**
 * A refund, asked by the bot or made by Telegram on its own: the Stars leave the bot's balance (below zero for a
 * dispute, P1 StarAmount "can be negative"), an outgoing transaction with the charge's id appears (P1 StarTransaction:
 * "Coincides with the identifier of the original transaction for refund transactions"; UNCONFIRMED that its receiver
 * keeps transaction_type "invoice_payment"), and the user's chat gets a refunded_payment service message, sent to the
 * bot as an update (P1 Message.refunded_payment; P2 JsonRefundedPayment omits an empty provider_payment_charge_id).
 */
function refund(state: EmulatorState, shop: StarsAndGifts, charge: Charge): Update {
  charge.refunded = true;
  shop.balance.amount -= charge.total_amount;
  shop.transactions.push({
    id: charge.telegram_payment_charge_id,
    amount: charge.total_amount,
    date: now(),
    receiver: { type: "user", transaction_type: "invoice_payment", user: charge.user, invoice_payload: charge.invoice_payload },
  } as StarTransaction);
  const refunded: RefundedPayment = {
    currency: "XTR",
    total_amount: charge.total_amount,
    invoice_payload: charge.invoice_payload,
    telegram_payment_charge_id: charge.telegram_payment_charge_id,
    ...(charge.provider_payment_charge_id ? { provider_payment_charge_id: charge.provider_payment_charge_id } : {}),
  };
  const c = state.chat(charge.chat_id);
  // UNCONFIRMED: the service message's sender (the user, as for successful_payment).
  const m: ChatMessage = { message_id: c.messages.length + 1, from_bot: false, text: "", refunded_payment: refunded, edits: 0 };
  c.messages.push(m);
  state.record(c);
  return state.pushUpdate({ message: asMessage(c, m, charge.user) } as Omit<Update, "update_id">);
}

/** The bot's side of a payment once it answered ok: the charge, the balance, the transaction and the update(s). */
function complete(state: EmulatorState, shop: StarsAndGifts, payments: Payments, user: User, invoice: EmulatedInvoice, attempt: PaymentAttempt) {
  // UNCONFIRMED: the charge ids' format (Stars charges have been seen starting "stx"); unique per payment, as P1 asks.
  const chargeId = `stx${randomBytes(24).toString("base64url")}`;
  // UNCONFIRMED: what provider_payment_charge_id holds for Stars (P1: required; P2 writes it always).
  const providerChargeId = `${user.id}_${payments.charges.size + 1}`;
  const chatId = invoice.chat_id ?? user.id;
  const charge: Charge = {
    user,
    chat_id: chatId,
    total_amount: invoice.total_amount,
    invoice_payload: invoice.payload,
    telegram_payment_charge_id: chargeId,
    provider_payment_charge_id: providerChargeId,
    refunded: false,
  };
  payments.charges.set(chargeId, charge);
  shop.balance.amount += invoice.total_amount;
  // P1 StarTransaction: an incoming one has a source, and its id is the payment's telegram_payment_charge_id; P2:
  // TransactionPartnerUser with transaction_type "invoice_payment" and invoice_payload when not empty.
  shop.transactions.push({
    id: chargeId,
    amount: invoice.total_amount,
    date: now(),
    source: { type: "user", transaction_type: "invoice_payment", user, invoice_payload: invoice.payload },
  } as StarTransaction);
  // P1 SuccessfulPayment, field for field as P2 JsonSuccessfulPaymentBot writes it for a one-off payment.
  const successful: SuccessfulPayment = {
    currency: "XTR",
    total_amount: invoice.total_amount,
    invoice_payload: invoice.payload,
    telegram_payment_charge_id: chargeId,
    provider_payment_charge_id: providerChargeId,
  };
  const c = state.chat(chatId);
  const m: ChatMessage = { message_id: c.messages.length + 1, from_bot: false, text: "", successful_payment: successful, edits: 0 };
  c.messages.push(m);
  state.record(c);
  const delivery = payments.nextDeliveries.shift() ?? "once";
  const message = asMessage(c, m, user);
  if (delivery !== "dropped") state.pushUpdate({ message } as Omit<Update, "update_id">);
  if (delivery === "twice") state.pushUpdate({ message } as Omit<Update, "update_id">);
  Object.assign(attempt, { status: "paid", outcome: "paid", telegram_payment_charge_id: chargeId, delivered: delivery });
}

/**
 * A user pays an invoice, as Telegram runs it: the bot gets a pre_checkout_query (P1 PreCheckoutQuery, P2
 * JsonPreCheckoutQuery) and has `checkoutTimeoutMs` (10 s, P1) to answer; no answer cancels the payment, ok false
 * cancels it with the bot's error_message shown to the user, ok true completes it. `close` plays a user who closes
 * the invoice without paying: the bot hears nothing.
 */
async function pay(
  state: EmulatorState,
  shop: StarsAndGifts,
  payments: Payments,
  user: User,
  invoice: EmulatedInvoice,
  close: boolean,
): Promise<PaymentAttempt> {
  const attempt: PaymentAttempt = {
    user_id: user.id,
    invoice_payload: invoice.payload,
    total_amount: invoice.total_amount,
    status: "cancelled",
    outcome: "closed",
  };
  payments.attempts.push(attempt);
  if (close) return attempt;
  const id = String(payments.nextQueryId++);
  attempt.pre_checkout_query_id = id;
  const answer = await new Promise<{ ok: boolean; error_message?: string } | undefined>((resolve) => {
    const timer = setTimeout(() => {
      payments.waiting.delete(id);
      resolve(undefined);
    }, payments.checkoutTimeoutMs);
    payments.waiting.set(id, (answered) => {
      clearTimeout(timer);
      resolve(answered);
    });
    state.pushUpdate({
      pre_checkout_query: { id, from: user, currency: "XTR", total_amount: invoice.total_amount, invoice_payload: invoice.payload },
    } as Omit<Update, "update_id">);
  });
  // UNCONFIRMED: which openInvoice status a refused or unanswered checkout ends in (P7 defines "failed" as "user tried
  // to pay, but the payment was failed").
  if (!answer) Object.assign(attempt, { status: "failed", outcome: "timed_out" });
  else if (!answer.ok) Object.assign(attempt, { status: "failed", outcome: "refused", error_message: answer.error_message });
  else complete(state, shop, payments, user, invoice, attempt);
  return attempt;
}

/** The controls: a user paying, the checkout's wait, the next payments' delivery, a dispute, the attempts read back. */
export function paymentRoutes(app: FastifyInstance, state: EmulatorState, shop: StarsAndGifts, payments: Payments): void {
  // A user pays the invoice in a message of their chat (message_id), or behind a link (link: the whole URL or its
  // slug); answers when the payment ended, with what the Mini App's openInvoice would be told.
  app.post<{ Body: { user: EmulatedUser; chat_id?: number; message_id?: number; link?: string; close?: boolean } }>(
    "/emulator/payments/pay",
    async (request, reply) => {
      const { user, message_id, link, close = false } = request.body;
      const chatId = request.body.chat_id ?? user.id;
      const slug = link === undefined ? undefined : link.replace(/^https:\/\/t\.me\/(?:\$|invoice\/)/, "").replace(/^\$/, "");
      const invoice =
        slug !== undefined
          ? payments.invoices.find((i) => i.slug === slug)
          : payments.invoices.find((i) => i.chat_id === chatId && i.message_id === Number(message_id));
      if (!invoice) return reply.code(404).send({ error: "no such invoice" });
      return pay(state, shop, payments, { ...user, is_bot: false }, invoice, close);
    },
  );

  // How long a pre-checkout query waits for the bot (10 s unless set; a test shortens it).
  app.post<{ Body: { timeout_ms?: number } }>("/emulator/payments/checkout-timeout", async (request) => {
    payments.checkoutTimeoutMs = request.body.timeout_ms ?? CHECKOUT_TIMEOUT_MS;
    return { ok: true };
  });

  // The next payments' successful_payment update: delivered twice, or dropped (the payment completes, the update is
  // lost), for `payments` payments (1 unless said); the ones after go once again.
  app.post<{ Body: { delivery: Delivery; payments?: number } }>("/emulator/payments/next-delivery", async (request) => {
    payments.nextDeliveries.push(...Array<Delivery>(request.body.payments ?? 1).fill(request.body.delivery));
    return { ok: true };
  });

  // A refund Telegram makes on its own (a dispute): the refunded_payment update, the bot not having asked.
  app.post<{ Body: { telegram_payment_charge_id: string } }>("/emulator/payments/dispute", async (request, reply) => {
    const charge = payments.charges.get(request.body.telegram_payment_charge_id);
    if (!charge) return reply.code(404).send({ error: "no such charge" });
    if (charge.refunded) return reply.code(409).send({ error: "already refunded" });
    return refund(state, shop, charge);
  });

  app.get("/emulator/payments", async () => ({ attempts: payments.attempts }));
}
