import { Composer } from "grammy";
import type { PreCheckoutQuery, Update } from "grammy/types";
import type { Core } from "../../core/index.js";
import type { BotContext } from "../context.js";

/** Telegram's wait for a pre-checkout answer (P1 answerPreCheckoutQuery): an answer later than this is void. */
const CHECKOUT_MS = 10_000;

/** grammY types its signal with a polyfill's AbortSignal; Node's own is what it uses at run time. */
type ApiSignal = Parameters<BotContext["api"]["answerPreCheckoutQuery"]>[3];

/**
 * Telegram's checkout for the bot's Stars invoices. The pre-checkout question is answered as the update arrives,
 * before it would wait in the inbox behind others (Telegram cancels the payment after 10 s): a few reads in the
 * core decide it. The answer is not waited for: a reply Telegram is slow to give would hold the intake, and every
 * pre-checkout after it, past their 10 s. Nothing is stored for it: a question lost (a stop mid-answer) is a payment
 * Telegram cancels, never a charge.
 */
export function answerCheckout(core: Core, api: BotContext["api"], log: { warn(obj: object, msg: string): void }) {
  const answer = async (update: Update, query: PreCheckoutQuery) => {
    const checked = await core.topups
      .preCheckout({ userId: String(query.from.id), currency: query.currency, totalAmount: query.total_amount, payload: query.invoice_payload })
      .catch((error: unknown) => {
        log.warn({ err: error, update: update.update_id }, "a pre-checkout could not be checked: refused");
        return { ok: false as const, message: "This payment could not be checked just now: nothing was taken; try again in a minute." };
      });
    await api
      .answerPreCheckoutQuery(
        query.id,
        checked.ok,
        checked.ok ? undefined : { error_message: checked.message },
        AbortSignal.timeout(CHECKOUT_MS) as ApiSignal,
      )
      .catch((error: unknown) => log.warn({ err: error, update: update.update_id }, "a pre-checkout answer failed"));
  };
  return async (update: Update): Promise<boolean> => {
    const query = update.pre_checkout_query;
    if (!query) return false;
    void answer(update, query);
    return true;
  };
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
