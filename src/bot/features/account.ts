import { Composer, InlineKeyboard } from "grammy";
import type { Core } from "../../core/index.js";
import { lowBalanceToggle, menuEntry, orderDetail } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { brandsOf, failureReason, orderLine, usdt } from "../format.js";
import { mainMenu } from "../keyboards.js";
import { ADMIN_COMMANDS } from "./admin.js";

const RECENT_ORDERS = 10;

/** Balance (with the low-balance notice), orders, help and the main menu. */
export function accountFeatures(core: Core, support: string | null, admins: ReadonlySet<number>) {
  const composer = new Composer<BotContext>();

  // The gate lets only registered users past (but for /start), so ctx.caller is there from here on.
  async function balance(ctx: BotContext) {
    const available = await core.accounts.available(ctx.caller!.account);
    const { uzs, tonMicro } = await core.pricing.equivalents(available);
    const ton = tonMicro === null ? ctx.t("ton-unavailable") : usdt(tonMicro);
    const keyboard = mainMenu(ctx);
    // The low-balance notice is a standard balance's (an owner key spends the service wallet).
    const { account } = ctx.caller!;
    if (account.kind === "standard")
      keyboard.row().text(ctx.t(account.lowBalanceNotice ? "btn-low-balance-on" : "btn-low-balance-off"), lowBalanceToggle.pack());
    return ctx.reply(ctx.t("balance", { usdt: usdt(available), uzs, ton }), { reply_markup: keyboard });
  }

  async function orders(ctx: BotContext) {
    const recent = await core.orders.list(ctx.caller!.account.id, RECENT_ORDERS);
    if (!recent.length) return ctx.reply(ctx.t("orders-none"), { reply_markup: mainMenu(ctx) });
    const brands = await brandsOf(core, recent);
    const rows = recent.map((order) => [InlineKeyboard.text(orderLine(ctx.t.bind(ctx), order, brands), orderDetail.pack({ id: order.id }))]);
    return ctx.reply(ctx.t("orders-title"), { reply_markup: InlineKeyboard.from(rows) });
  }

  composer.command("balance", balance);
  composer.callbackQuery(menuEntry.filter({ entry: "balance" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await balance(ctx);
  });
  composer.callbackQuery(lowBalanceToggle.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const on = !ctx.caller!.account.lowBalanceNotice;
    await core.accounts.setLowBalanceNotice(ctx.caller!.account.id, on);
    const threshold = usdt(core.lowBalance.thresholdMicro);
    await ctx.reply(ctx.t(on ? "low-balance-set-on" : "low-balance-set-off", { threshold }), { reply_markup: mainMenu(ctx) });
  });
  composer.command("orders", orders);
  composer.callbackQuery(menuEntry.filter({ entry: "orders" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await orders(ctx);
  });

  // An order's detail, refreshed from the provider while processing; a completed gift card order shows its codes.
  composer.callbackQuery(orderDetail.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { id } = orderDetail.unpack(ctx.callbackQuery.data);
    const order = await core.orders.current(ctx.caller!.account.id, id).catch(() => null);
    if (!order) return ctx.reply(ctx.t("order-unknown"), { reply_markup: mainMenu(ctx) });
    const t = ctx.t.bind(ctx);
    const lines = [
      orderLine(t, order, await brandsOf(core, [order])),
      ctx.t("order-created", { at: order.createdAt.slice(0, 16).replace("T", " ") }),
    ];
    if (order.status === "failed")
      lines.push(ctx.t("order-failed-detail", { reason: failureReason(t, order), refunded: order.refunded ? "yes" : "no" }));
    const codes = await core.orders.codes(order);
    if (codes.length) lines.push(ctx.t("codes", { codes: codes.join("\n") }));
    return ctx.reply(lines.join("\n"), { reply_markup: mainMenu(ctx) });
  });

  // An administrator's help lists their commands too; nobody else is shown them.
  composer.command(["help", "menu"], (ctx) => {
    const admin = ctx.from !== undefined && admins.has(ctx.from.id);
    const lines = [ctx.t("help"), ...(admin ? [ctx.t("help-admin", { commands: Object.values(ADMIN_COMMANDS).join("\n") })] : [])];
    if (support) lines.push(ctx.t("support", { contact: support }));
    return ctx.reply(lines.join("\n"), { reply_markup: mainMenu(ctx) });
  });

  return composer;
}
