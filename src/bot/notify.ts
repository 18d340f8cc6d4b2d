import type { I18n } from "@grammyjs/i18n";
import { type Api, GrammyError } from "grammy";
import { findByTelegramId, getAccount } from "../core/accounts.js";
import type { Core } from "../core/index.js";
import type { Order } from "../db/schema.js";
import { orderLine } from "./features/account.js";
import { usdt } from "./flows/kit.js";

export interface NotifyLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Messages a user outside any conversation: orders that finish in the background (whether placed here or
 * over the API with the user's key), with gift card codes, and an administrator's credit. A user who blocked
 * the bot is logged and skipped; nothing is lost, the codes stay in /orders.
 */
export function createNotifier(core: Core, api: Api, i18n: I18n, log: NotifyLog) {
  async function tell(telegramId: string, text: (locale: string) => string): Promise<void> {
    const account = await findByTelegramId(core.db, telegramId);
    try {
      await api.sendMessage(Number(telegramId), text(account?.language ?? "en"));
    } catch (error) {
      if (error instanceof GrammyError && error.error_code === 403) log.warn({ telegramId }, "user blocked the bot; notification skipped");
      else log.error({ telegramId, err: error }, "notification failed");
    }
  }

  async function orderSettled(order: Order) {
    const account = await getAccount(core.db, Number(order.account_id));
    if (!account.telegram_id) return;
    await tell(account.telegram_id, (locale) => {
      const t = (key: string, vars?: Record<string, string | number>) => i18n.t(locale, key, vars);
      const line = orderLine({ t }, order);
      if (order.status === "failed") return t("notify-refunded", { line, charged: usdt(Number(order.charge_micro)), reason: order.error ?? "" });
      const codes = order.product_type === "giftcard" ? core.giftcards.codes(order) : [];
      return codes.length ? `${t("notify-completed", { line })}\n\n${t("codes", { codes: codes.join("\n") })}` : t("notify-completed", { line });
    });
  }

  core.orders.onSettled((order, how) => {
    if (how.inline) return;
    orderSettled(order).catch((error) => log.error({ orderId: order.id, err: error }, "notification failed"));
  });

  return { tell };
}
