import { InlineKeyboard } from "grammy";
import type { FlowContext } from "./context.js";

/** The flows the main menu enters, by conversation id. */
export const FLOWS = ["stars", "premium", "store", "games", "giftcards", "gifts"] as const;
export type FlowId = (typeof FLOWS)[number];

export function mainMenu(ctx: FlowContext): InlineKeyboard {
  return new InlineKeyboard()
    .text(ctx.t("menu-stars"), "menu:stars")
    .text(ctx.t("menu-premium"), "menu:premium")
    .row()
    .text(ctx.t("menu-store"), "menu:store")
    .text(ctx.t("menu-games"), "menu:games")
    .row()
    .text(ctx.t("menu-giftcards"), "menu:giftcards")
    .text(ctx.t("menu-gifts"), "menu:gifts")
    .row()
    .text(ctx.t("menu-balance"), "menu:balance")
    .text(ctx.t("menu-orders"), "menu:orders")
    .row()
    .text(ctx.t("menu-key"), "key:rotate")
    .text(ctx.t("menu-language"), "menu:language");
}
