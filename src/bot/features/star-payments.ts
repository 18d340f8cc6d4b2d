import { Composer } from "grammy";
import type { Update } from "grammy/types";
import type { Core } from "../../core/index.js";
import type { BotContext } from "../context.js";

/**
 * Telegram's checkout for the bot's Stars invoices. The pre-checkout question is answered as the update arrives,
 * before it would wait in the inbox behind others (Telegram cancels the payment after 10 s): a few reads in the
 * core decide it. Nothing is stored for it: a question lost is a payment Telegram cancels, never a charge.
 */
export function answerCheckout(core: Core, api: BotContext["api"], log: { warn(obj: object, msg: string): void }) {
  return async (update: Update): Promise<boolean> => {
    const query = update.pre_checkout_query;
    if (!query) return false;
    const answer = await core.topups
      .preCheckout({ userId: String(query.from.id), currency: query.currency, totalAmount: query.total_amount, payload: query.invoice_payload })
      .catch((error: unknown) => {
        log.warn({ err: error, update: update.update_id }, "a pre-checkout could not be checked: refused");
        return { ok: false as const, message: "This payment could not be checked just now: nothing was taken; try again in a minute." };
      });
    await api
      .answerPreCheckoutQuery(query.id, answer.ok, answer.ok ? undefined : { error_message: answer.message })
      .catch((error: unknown) => log.warn({ err: error, update: update.update_id }, "a pre-checkout answer failed"));
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
