import { z } from "zod";
import { type StarPaymentsPort, type StarTransactionRecord, UpstreamError } from "../core/ports.js";
import { type Answer, type BotApiOptions, createBotApi } from "./bot-api.js";
import { judgeBotApi } from "./outcome.js";

// The bot's Telegram Stars as money in: invoice links for the Mini App, refunds, and the bot's Star transactions
// (docs/providers/telegram-bot-api.md, "Payments in Telegram Stars": P1 the Bot API reference, P4 refusals seen
// from the live Bot API). The bot face sends chat invoices itself (sendInvoice through grammY); this adapter serves
// the core. A refund is never retried: refundStarPayment takes no idempotency key, and a second call is refused
// with CHARGE_ALREADY_REFUNDED (P4), which is read as done.

/** getStarTransactions' largest page (P1 `limit` 1–100), and the most pages one read takes. */
const PAGE = 100;
const MAX_PAGES = 1_000;

// P1 StarTransaction: `source` for incoming, `receiver` for outgoing; TransactionPartnerUser carries the user, the
// transaction_type and, for invoice payments, the invoice_payload.
const partnerSchema = z
  .object({
    type: z.string(),
    transaction_type: z.string().optional(),
    user: z.object({ id: z.number().int() }).optional(),
    invoice_payload: z.string().optional(),
  })
  .optional();
const transactionSchema = z.object({
  id: z.string(),
  amount: z.number().int(),
  nanostar_amount: z.number().int().optional(),
  date: z.number().int(),
  source: partnerSchema,
  receiver: partnerSchema,
});
const transactionsSchema = z.object({ transactions: z.array(transactionSchema) });
type Transaction = z.infer<typeof transactionSchema>;

/** What a transaction is to the book: a payment in, its refund out, a gift or Premium out, or another kind. */
function recordOf(t: Transaction): StarTransactionRecord {
  const partner = t.source ?? t.receiver;
  const userId = partner?.user ? String(partner.user.id) : null;
  const payload = partner?.invoice_payload ?? null;
  const base = { id: t.id, date: t.date, userId, payload };
  if (t.source)
    return { ...base, stars: t.amount, kind: t.source.type === "user" && t.source.transaction_type === "invoice_payment" ? "payment" : "other" };
  const type = t.receiver?.type === "user" ? t.receiver.transaction_type : undefined;
  const kind = type === "invoice_payment" ? "refund" : type === "gift_purchase" ? "gift" : type === "premium_purchase" ? "premium" : "other";
  return { ...base, stars: -t.amount, kind };
}

export function createTelegramPayments(options: Omit<BotApiOptions, "provider">): StarPaymentsPort & { close(): Promise<void> } {
  const { api, read, http } = createBotApi({ ...options, provider: "gifts" });

  return {
    async invoiceLink(invoice) {
      // P1 createInvoiceLink: currency XTR, one price, an empty provider token.
      return read(
        "createInvoiceLink",
        {
          title: invoice.title,
          description: invoice.description,
          payload: invoice.payload,
          currency: "XTR",
          prices: [{ label: invoice.title, amount: invoice.stars }],
        },
        z.string().url(),
      );
    },

    async refund(userId, chargeId) {
      let answer: Answer<unknown>;
      try {
        answer = await api("refundStarPayment", { user_id: Number(userId), telegram_payment_charge_id: chargeId }, z.unknown());
      } catch (error) {
        throw new UpstreamError(`refundStarPayment: ${(error as Error).message}`, error);
      }
      if (answer.ok) return "refunded";
      if (answer.description.includes("CHARGE_ALREADY_REFUNDED")) return "already";
      // One that may have been made is an unknown outcome; a refusal gives Telegram's words.
      if (judgeBotApi(answer) === "unknown") throw new UpstreamError(`refundStarPayment: ${answer.description}`);
      return { refused: answer.description };
    },

    async transactions(since) {
      // Chronological (P1), so a read starts at the first page and keeps what is dated at or after `since`.
      const found: StarTransactionRecord[] = [];
      for (let page = 0, offset = 0; page < MAX_PAGES; page++) {
        const { transactions } = await read("getStarTransactions", { offset, limit: PAGE }, transactionsSchema);
        for (const t of transactions) if (t.date >= since) found.push(recordOf(t));
        if (transactions.length < PAGE) return found;
        offset += transactions.length;
      }
      throw new UpstreamError(`getStarTransactions: more than ${MAX_PAGES} pages`);
    },

    async balance() {
      const star = await read("getMyStarBalance", {}, z.object({ amount: z.number().int() }));
      return star.amount;
    },

    close: () => http.close(),
  };
}
