import { GrammyError, HttpError, InlineKeyboard } from "grammy";
import type { Core } from "../../core/index.js";
import { type Micro, micro } from "../../core/model/money.js";
import type { Topup } from "../../core/model/topup.js";
import type { StarInvoice } from "../../core/ports.js";
import { cancelFlow } from "../callback-data.js";
import type { FlowContext } from "../context.js";
import { usdt } from "../format.js";

/** Telegram's limit on an invoice's title (the Bot API's sendInvoice: 1-32 characters). */
const TITLE_MAX = 32;

/** The most one Stars top-up credits: 0 where Stars are not taken. */
export function starsTopupMaxMicro(core: Core): Micro {
  const offer = core.topups.starsOffer();
  return micro(offer ? offer.maxStars * offer.rateMicro : 0);
}

/**
 * Sends a Stars top-up's XTR invoice in the chat, in the user's language: one price, no provider token, the payload
 * naming the top-up. With `cancel`, a Cancel row under the Pay button (a flow waits for the payment). False when
 * Telegram did not take it (the user is told; the unpaid top-up expires on its own).
 */
export async function sendStarsInvoice(ctx: FlowContext, made: { topup: Topup; invoice: StarInvoice }, cancel = false): Promise<boolean> {
  const { topup, invoice } = made;
  const amount = usdt(topup.amountMicro);
  const keyboard = new InlineKeyboard().pay(ctx.t("btn-stars-pay", { stars: String(invoice.stars) }));
  if (cancel) keyboard.row().text(ctx.t("btn-cancel"), cancelFlow.pack());
  try {
    await ctx.replyWithInvoice(
      [...ctx.t("stars-invoice-title", { amount })].slice(0, TITLE_MAX).join(""),
      ctx.t("stars-invoice-description", { stars: String(invoice.stars), amount, id: String(topup.id) }),
      invoice.payload,
      "XTR",
      [{ label: ctx.t("stars-invoice-label", { amount }), amount: invoice.stars }],
      { reply_markup: keyboard },
    );
    return true;
  } catch (error) {
    if (!(error instanceof GrammyError || error instanceof HttpError)) throw error;
    await ctx.reply(ctx.t("stars-invoice-failed"));
    return false;
  }
}
