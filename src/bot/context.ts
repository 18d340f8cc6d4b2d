import type { Conversation, ConversationFlavor } from "@grammyjs/conversations";
import type { I18nFlavor } from "@grammyjs/i18n";
import type { Context } from "grammy";

/** The context inside a conversation: rebuilt per update, with i18n installed through the conversation plugins. */
export type FlowContext = Context & I18nFlavor;
/** The outer context of the bot's handlers. */
export type BotContext = ConversationFlavor<FlowContext>;
export type Flow = Conversation<BotContext, FlowContext>;
