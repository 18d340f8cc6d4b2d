import { Composer } from "grammy";
import type { I18n } from "@grammyjs/i18n";
import type { PreCheckoutQuery, Update, User } from "grammy/types";
import { speak } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import type { CheckoutAnswer } from "../../core/topups/stars.js";
import { usdt } from "../format.js";
import type { BotContext } from "../context.js";

/** Telegram's wait for a pre-checkout answer (P1 answerPreCheckoutQuery): an answer later than this is void. */
const CHECKOUT_MS = 10_000;

/** grammY types its signal with a polyfill's AbortSignal; Node's own is what it uses at run time. */
type ApiSignal = Parameters<BotContext["api"]["answerPreCheckoutQuery"]>[3];

/**
 * Telegram's checkout for the bot's Stars invoices. The pre-checkout question is answered as the update arrives,
 * before it would wait in the inbox behind others (Telegram cancels the payment after 10 s): a few reads in the
 * core decide it. A refusal is worded in the payer's language (their account's, else their Telegram's), one read
 * more, on refusals only. The answer is not waited for: a reply Telegram is slow to give would hold the intake, and
 * every pre-checkout after it, past their 10 s. Nothing is stored for it: a question lost (a stop mid-answer) is a
 * payment Telegram cancels, never a charge.
 */
export function answerCheckout(core: Core, api: BotContext["api"], i18n: I18n, log: { warn(obj: object, msg: string): void }) {
  const answer = async (update: Update, query: PreCheckoutQuery) => {
    const checked: CheckoutAnswer = await core.topups
      .preCheckout({ userId: String(query.from.id), currency: query.currency, totalAmount: query.total_amount, payload: query.invoice_payload })
      .catch((error: unknown) => {
        log.warn({ err: error, update: update.update_id }, "a pre-checkout could not be checked: refused");
        return { ok: false, reason: "unchecked", message: "This payment could not be checked just now." };
      });
    const refusal = checked.ok ? undefined : { error_message: await checkoutRefusal(core, i18n, query.from, checked) };
    await api
      .answerPreCheckoutQuery(query.id, checked.ok, refusal, AbortSignal.timeout(CHECKOUT_MS) as ApiSignal)
      .catch((error: unknown) => log.warn({ err: error, update: update.update_id }, "a pre-checkout answer failed"));
  };
  return async (update: Update): Promise<boolean> => {
    const query = update.pre_checkout_query;
    if (!query) return false;
    // In the background, where a rejection would end the process: whatever fails is logged (Telegram then cancels).
    void answer(update, query).catch((error: unknown) => log.warn({ err: error, update: update.update_id }, "a pre-checkout answer failed"));
    return true;
  };
}

/** A refused checkout's words, in the payer's language: their account's choice, else their Telegram's. */
async function checkoutRefusal(core: Core, i18n: I18n, from: User, answer: Extract<CheckoutAnswer, { ok: false }>): Promise<string> {
  const account = await core.accounts.byTelegramId(String(from.id)).catch(() => undefined);
  const locale = account?.language ?? speak(from.language_code);
  return i18n.t(locale, `checkout-${answer.reason}`, { max: usdt(answer.dailyMaxMicro ?? 0) });
}

/**
 * A payment in Stars and a refund Telegram reports, in the payer's chat: credited (or taken back) before anything
 * else reads the update, whatever the account's state, since the Stars moved already. The credit's notice comes from
 * the top-up listeners (as for every top-up); the update then goes on, so a purchase waiting for it resumes.
 */
export function starPaymentFeatures(core: Core) {
  const composer = new Composer<BotContext>();
  composer.on("message:successful_payment", async (ctx, next) => {
    const paid = ctx.message.successful_payment;
    await core.topups.starsPaid({
      userId: String(ctx.from.id),
      currency: paid.currency,
      totalAmount: paid.total_amount,
      payload: paid.invoice_payload,
      chargeId: paid.telegram_payment_charge_id,
    });
    await next();
  });
  composer.on("message:refunded_payment", async (ctx) => {
    const refunded = ctx.message.refunded_payment;
    await core.topups.starsRefunded({
      userId: String(ctx.from.id),
      totalAmount: refunded.total_amount,
      chargeId: refunded.telegram_payment_charge_id,
    });
  });
  return composer;
}
