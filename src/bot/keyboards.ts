import { InlineKeyboard } from "grammy";
import type { Translate } from "./format.js";
import { FLOWS } from "./flows/index.js";

/** "Open the shop" (the Mini App) where there is one, the purchase flows two to a row, then the account entries. */
export function mainMenu(ctx: { t: Translate; shopUrl?: string }): InlineKeyboard {
  const keyboard = new InlineKeyboard();
  if (ctx.shopUrl) keyboard.webApp(ctx.t("menu-shop"), ctx.shopUrl).row();
  FLOWS.forEach((flow, i) => {
    keyboard.text(ctx.t(flow.menuKey), `menu:${flow.id}`);
    if (i % 2 === 1) keyboard.row();
  });
  if (FLOWS.length % 2 === 1) keyboard.row();
  return keyboard
    .text(ctx.t("menu-topup"), "menu:topup")
    .text(ctx.t("menu-balance"), "menu:balance")
    .text(ctx.t("menu-orders"), "menu:orders")
    .row()
    .text(ctx.t("menu-statement"), "menu:statement")
    .text(ctx.t("menu-key"), "key:rotate")
    .text(ctx.t("menu-language"), "menu:language");
}
