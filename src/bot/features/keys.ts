import { FormattedString, fmt } from "@grammyjs/parse-mode";
import { Composer, InlineKeyboard } from "grammy";
import type { Core } from "../../core/index.js";
import { rotateKey, rotateKeyAnswer } from "../callback-data.js";
import type { BotContext, FlowContext } from "../context.js";
import { speak } from "../../core/accounts.js";
import { mainMenu } from "../keyboards.js";

/**
 * Shows a key once, as a code entity (tap to copy; no escaping needed). Not protected: protected content
 * cannot be copied at all, and a key must be copied into the partner's system.
 */
async function showKey(ctx: FlowContext, key: string, intro: string) {
  const message = fmt`${intro}\n\n${FormattedString.code(key)}\n\n${ctx.t("key-usage")}\n${ctx.t("key-once")}`;
  await ctx.reply(message.text, { entities: message.entities });
  await ctx.reply(ctx.t("menu-intro"), { reply_markup: mainMenu(ctx) });
}

/** /start registers and issues the first key; "New API key" rotates it after a confirmation. */
export function keyFeatures(core: Core) {
  const composer = new Composer<BotContext>();

  composer.command("start", async (ctx) => {
    const telegramId = String(ctx.from!.id);
    if (ctx.caller) {
      await ctx.reply(ctx.t("welcome-back", { name: ctx.from!.first_name }), { reply_markup: mainMenu(ctx) });
      return;
    }
    const issued = await core.accounts.issueKey(telegramId, ctx.from!.username ?? null);
    // The language starts as the user's Telegram language; /language changes it.
    await core.accounts.setLanguage(issued.account.id, speak(ctx.from!.language_code));
    await showKey(ctx, issued.key, ctx.t("key-new", { name: ctx.from!.first_name }));
  });

  composer.callbackQuery(rotateKey.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.conversation.exitAll();
    await ctx.reply(ctx.t("key-rotate-ask"), {
      reply_markup: new InlineKeyboard()
        .text(ctx.t("btn-rotate"), rotateKeyAnswer.pack({ yes: true }))
        .text(ctx.t("btn-keep-key"), rotateKeyAnswer.pack({ yes: false })),
    });
  });

  composer.callbackQuery(rotateKeyAnswer.filter({ yes: false }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    await ctx.reply(ctx.t("key-kept"), { reply_markup: mainMenu(ctx) });
  });

  composer.callbackQuery(rotateKeyAnswer.filter({ yes: true }), async (ctx) => {
    await ctx.answerCallbackQuery();
    // The confirmation loses its buttons first; a second tap finds none to remove and issues nothing.
    const removed = await ctx.editMessageReplyMarkup({ reply_markup: undefined }).then(
      () => true,
      () => false,
    );
    if (!removed) return;
    const issued = await core.accounts.issueKey(String(ctx.from.id), ctx.from.username ?? null);
    await showKey(ctx, issued.key, ctx.t("key-rotated"));
  });

  return composer;
}
