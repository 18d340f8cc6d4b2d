import type { I18n } from "@grammyjs/i18n";
import { type Api, GrammyError } from "grammy";
import type { Core } from "../core/index.js";
import { fromUsdt } from "../core/money.js";
import type { Order } from "../core/products/index.js";
import { failureReason, orderLine, type Translate, usdt } from "./format.js";
import { mainMenu } from "./keyboards.js";

export interface NotifyLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Messages a user outside any conversation: orders that finish in the background (whether placed here or
 * over the API with the user's key), with gift card codes, and an administrator's credit. A user who blocked
 * the bot is logged and skipped; nothing is lost, the codes stay in /orders.
 */
export function createNotifier(core: Core, api: Api, i18n: I18n, log: NotifyLog, admins: number[]) {
  async function tell(telegramId: string, text: (t: Translate) => string): Promise<void> {
    const account = await core.accounts.byTelegramId(telegramId);
    const locale = account?.language ?? "en";
    const t: Translate = (key, vars) => i18n.t(locale, key, vars);
    try {
      // A notice is a final message too: it offers the menu, the next step.
      await api.sendMessage(Number(telegramId), text(t), { reply_markup: mainMenu({ t }) });
    } catch (error) {
      if (error instanceof GrammyError && error.error_code === 403) log.warn({ telegramId }, "user blocked the bot; notification skipped");
      else log.error({ telegramId, err: error }, "notification failed");
    }
  }

  async function orderSettled(order: Order) {
    const account = await core.accounts.get(order.accountId);
    if (!account.telegramId) return;
    const codes = await core.orders.codes(order);
    await tell(account.telegramId, (t) => {
      const line = orderLine(t, order, false);
      if (order.status === "failed") return t("notify-refunded", { line, charged: usdt(order.chargeMicro), reason: failureReason(t, order) });
      return codes.length ? `${t("notify-completed", { line })}\n\n${t("codes", { codes: codes.join("\n") })}` : t("notify-completed", { line });
    });
  }

  core.orders.onSettled((order, how) => {
    if (how.inline) return;
    orderSettled(order).catch((error) => log.error({ orderId: order.id, err: error }, "notification failed"));
  });

  // Deliveries gave up: the key's owner hears of it here, once (only the instance that disabled it calls).
  core.webhooks.onDisabled((accountId, url, reason) => {
    core.accounts
      .get(accountId)
      .then((account) => (account.telegramId ? tell(account.telegramId, (t) => t("webhook-disabled", { url, reason })) : undefined))
      .catch((error) => log.error({ accountId, err: error }, "webhook notice failed"));
  });

  // A purchase took the balance below the line: told once per crossing, unless the user turned it off.
  core.lowBalance.onLow((account, balanceMicro) => {
    if (!account.telegramId) return;
    const threshold = usdt(core.lowBalance.thresholdMicro);
    tell(account.telegramId, (t) => t("low-balance", { balance: usdt(balanceMicro), threshold })).catch((error) =>
      log.error({ accountId: account.id, err: error }, "low-balance notice failed"),
    );
  });

  // Administrators hear of every alert, each in the language of their own account (English without one).
  core.monitor.onAlert((alert) => {
    const text = (t: Translate) => {
      // Amounts in USDT show as everywhere in the bot (two decimals at least); everything else as it is.
      const shown = (name: string, value: string | number) => (name.endsWith("_usdt") ? usdt(fromUsdt(Number(value))) : String(value));
      const vars = Object.fromEntries(Object.entries(alert.details).map(([name, value]) => [name, shown(name, value)]));
      const body = t(`alert-${alert.kind}-${alert.state === "resolved" ? "resolved" : "firing"}`, vars);
      const still = alert.state === "reminder" ? `${t("alert-still")} ` : "";
      const held = alert.suppressed ? `\n${t("alert-suppressed", { count: String(alert.suppressed) })}` : "";
      return `${still}${body}${held}`;
    };
    for (const admin of admins) {
      tell(String(admin), text).catch((error) => log.error({ admin, err: error }, "alert failed"));
    }
  });

  return { tell };
}
