import { languageOf } from "../core/accounts.js";
import type { I18n } from "@grammyjs/i18n";
import { type Api, GrammyError } from "grammy";
import type { Core } from "../core/index.js";
import type { Order } from "../core/model/products.js";
import { brandsOf, failureReason, orderLine, type Translate, usdt } from "./format.js";
import { mainMenu } from "./keyboards.js";
import type { Alert, AlertDetails } from "../wire/alerts.js";

export interface NotifyLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Messages a user outside any conversation: orders that finish in the background (whether placed here or
 * over the API with the user's key), with gift card codes, and an administrator's credit, debit or block. A user who blocked
 * the bot is logged and skipped; nothing is lost, the codes stay in /orders.
 */
export function createNotifier(core: Core, api: Api, i18n: I18n, log: NotifyLog, admins: number[], inFlow: InFlow) {
  const tell = createTell(core, api, i18n, log, inFlow);
  tellOfCore(core, tell, log);

  /** Deliveries gave up: the key's owner hears of it here, once (only the instance that disabled it calls). */
  function webhookDisabled(accountId: number, url: string, reason: string) {
    core.accounts
      .get(accountId)
      .then((account) => (account.telegramId ? tell(account.telegramId, (t) => t("webhook-disabled", { url, reason })) : undefined))
      .catch((error) => log.error({ accountId, err: error }, "webhook notice failed"));
  }

  /** Administrators hear of every alert, each in the language of their own account (English without one). */
  function alert(alert: Alert) {
    const text = (t: Translate) => {
      const body = t(`alert-${alert.details.kind}-${alert.state === "resolved" ? "resolved" : "firing"}`, alertVars(alert.details));
      const still = alert.state === "reminder" ? `${t("alert-still")} ` : "";
      const held = alert.suppressed ? `\n${t("alert-suppressed", { count: alert.suppressed })}` : "";
      return `${still}${body}${held}`;
    };
    for (const admin of admins) {
      tell(String(admin), text).catch((error) => log.error({ admin, err: error }, "alert failed"));
    }
  }

  return { tell, alert, webhookDisabled };
}

type Tell = (telegramId: string, text: (t: Translate) => string) => Promise<void>;
/** Whether a flow waits for the user's answer in the chat (a notice then comes without buttons). */
type InFlow = (chatId: string) => Promise<boolean>;

/**
 * A message to one user, in the language of their account; a user who blocked the bot is skipped. It offers the
 * menu, unless a flow waits in the chat: then it comes without buttons, so the flow's question stays the one live
 * keyboard and its answer still goes to the flow (docs/decisions/0044-bot-texts.md).
 */
function createTell(core: Core, api: Api, i18n: I18n, log: NotifyLog, inFlow: InFlow): Tell {
  return async (telegramId, text) => {
    // English when the account cannot be read: an alert about the database must still reach the administrators.
    const account = await core.accounts.byTelegramId(telegramId).catch(() => undefined);
    const locale = account ? languageOf(account) : "en";
    const t: Translate = (key, vars) => i18n.t(locale, key, vars);
    // A flow's state that cannot be read counts as none: the notice offers the menu, as outside a flow.
    const busy = await inFlow(telegramId).catch(() => false);
    try {
      await api.sendMessage(Number(telegramId), text(t), busy ? {} : { reply_markup: mainMenu({ t }) });
    } catch (error) {
      if (error instanceof GrammyError && error.error_code === 403) log.warn({ telegramId }, "user blocked the bot; notification skipped");
      else log.error({ telegramId, err: error }, "notification failed");
    }
  };
}

/** What the core tells of on its own, told to the user: orders settled in the background, a low balance, an administrator's act. */
function tellOfCore(core: Core, tell: Tell, log: NotifyLog): void {
  async function orderSettled(order: Order) {
    const account = await core.accounts.get(order.accountId);
    if (!account.telegramId) return;
    const [codes, brands] = await Promise.all([core.orders.codes(order), brandsOf(core, [order])]);
    await tell(account.telegramId, (t) => {
      const line = orderLine(t, order, brands, false);
      if (order.status === "failed") return t("notify-refunded", { line, charged: usdt(order.chargeMicro), reason: failureReason(t, order) });
      return codes.length ? `${t("notify-completed", { line })}\n\n${t("codes", { codes: codes.join("\n") })}` : t("notify-completed", { line });
    });
  }

  core.orders.onSettled((order, how) => {
    if (how.inline) return;
    orderSettled(order).catch((error) => log.error({ orderId: order.id, err: error }, "notification failed"));
  });

  // A purchase took the balance below the line: told once per crossing, unless the user turned it off.
  core.lowBalance.onLow((account, balanceMicro) => {
    if (!account.telegramId) return;
    const threshold = usdt(core.lowBalance.thresholdMicro);
    tell(account.telegramId, (t) => t("low-balance", { balance: usdt(balanceMicro), threshold })).catch((error) =>
      log.error({ accountId: account.id, err: error }, "low-balance notice failed"),
    );
  });

  // An administrator's credit, debit or block (in the bot or the Mini App's desk): the user hears of it.
  core.admin.onNotice((notice) => {
    const text = (t: Translate) =>
      notice.kind === "credit" || notice.kind === "debit"
        ? t(notice.kind === "credit" ? "credited" : "debited", { amount: usdt(notice.amountMicro), balance: usdt(notice.balanceMicro) })
        : t(notice.kind === "block" ? "you-blocked" : "you-unblocked");
    tell(notice.telegramId, text).catch((error) => log.error({ telegramId: notice.telegramId, err: error }, "admin notice failed"));
  });
}

/** The variables of an alert's text (the locale files' names); amounts in USDT show as everywhere in the bot. */
function alertVars(details: AlertDetails): Record<string, string | number> {
  switch (details.kind) {
    case "provider":
      return { provider: `${details.product} (${details.backend})` };
    case "refunds":
      return { count: details.count, minutes: String(details.minutes), threshold: String(details.threshold) };
    case "wallet":
      return { balance_usdt: usdt(details.balanceMicro), threshold_usdt: usdt(details.thresholdMicro) };
    case "stuck":
    case "held":
      return details.oldest
        ? { count: details.count, order_id: String(details.oldest.orderId), product: details.oldest.product, since: details.oldest.since }
        : { count: details.count };
    case "cryptopay":
      return {};
    case "funds":
      return { source: details.source, amount: String(details.amount), unit: details.unit, threshold: String(details.threshold) };
    case "invoices":
      return { unpaid: details.unpaid, hours: String(details.hours), threshold: String(details.threshold) };
    case "anomalies":
      return details.latest
        ? { count: details.count, hours: String(details.hours), invoice_id: String(details.latest.invoiceId), anomaly: details.latest.kind }
        : { count: details.count, hours: String(details.hours) };
    case "starbook":
      return {
        differences: details.differences,
        first: details.first ?? "",
        balance: String(details.balance ?? "?"),
        book: String(details.book ?? "?"),
      };
    case "unmatched":
      return { count: details.count, hours: String(details.hours), latest: details.latest ?? "" };
    case "shortrefunds":
      return {
        count: details.count,
        hours: String(details.hours),
        short_usdt: usdt(details.shortMicro),
        topup_id: String(details.topupId ?? "?"),
      };
    case "database":
      return { fault: details.fault ?? "unreachable", count: String(details.count), cause: details.cause ?? "" };
    case "ledger":
      return details.accountId === null
        ? { accounts: String(details.accounts) }
        : { accounts: String(details.accounts), account_id: String(details.accountId) };
  }
}
