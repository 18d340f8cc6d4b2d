import type { Context, MiddlewareFn } from "grammy";
import type { ShopFlavor } from "../context.js";

/** Where the menu's "Open the shop" points (installed inside conversations too: their context is rebuilt). */
export function setShopUrl(url: string | undefined): MiddlewareFn<Context & ShopFlavor> {
  return (ctx, next) => {
    ctx.shopUrl = url;
    return next();
  };
}
