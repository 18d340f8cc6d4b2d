import { InlineKeyboard } from "grammy";
import { menuEntry, rotateKey } from "./callback-data.js";
import type { Translate } from "./format.js";
import { FLOWS } from "./flows/index.js";

/** "Open the shop" (the Mini App) where there is one, the purchase flows two to a row, then the account entries. */
export function mainMenu(ctx: { t: Translate; shopUrl?: string }): InlineKeyboard {
  const keyboard = new InlineKeyboard();
  if (ctx.shopUrl) keyboard.webApp(ctx.t("menu-shop"), ctx.shopUrl).row();
  FLOWS.forEach((flow, i) => {
    keyboard.text(ctx.t(flow.menuKey), menuEntry.pack({ entry: flow.id }));
    if (i % 2 === 1) keyboard.row();
  });
  if (FLOWS.length % 2 === 1) keyboard.row();
  return keyboard
    .text(ctx.t("menu-topup"), menuEntry.pack({ entry: "topup" }))
    .text(ctx.t("menu-balance"), menuEntry.pack({ entry: "balance" }))
    .text(ctx.t("menu-orders"), menuEntry.pack({ entry: "orders" }))
    .row()
    .text(ctx.t("menu-statement"), menuEntry.pack({ entry: "statement" }))
    .text(ctx.t("menu-key"), rotateKey.pack())
    .text(ctx.t("menu-language"), menuEntry.pack({ entry: "language" }));
}
