import type { Conversation, ConversationFlavor } from "@grammyjs/conversations";
import type { I18nFlavor } from "@grammyjs/i18n";
import type { Context } from "grammy";
import type { Caller } from "../core/accounts.js";

/** The Mini App's address, when there is one: the main menu offers "Open the shop". */
export interface ShopFlavor {
  shopUrl?: string;
}
/** The context inside a conversation: rebuilt per update, with i18n installed through the conversation plugins. */
export type FlowContext = Context & I18nFlavor & ShopFlavor;
/** The sender's account, loaded once per update before anything else looks at it (absent before /start). */
export interface CallerFlavor {
  caller?: Caller;
}
/** The outer context of the bot's handlers. */
export type BotContext = ConversationFlavor<FlowContext> & CallerFlavor;
export type Flow = Conversation<BotContext, FlowContext>;
