import { Composer, InlineKeyboard } from "grammy";
import { LANGUAGES } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import { chooseLanguage, menuEntry } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { mainMenu } from "../keyboards.js";

/** /language and the menu's Language: the choice is kept on the account and holds in every chat and flow. */
export function languageFeature(core: Core) {
  const composer = new Composer<BotContext>();

  const languages = () => {
    const keyboard = new InlineKeyboard();
    for (const language of LANGUAGES) keyboard.text(language === "en" ? "English" : "Русский", chooseLanguage.pack({ language }));
    return keyboard;
  };
  composer.command("language", (ctx) => ctx.reply(ctx.t("language-ask"), { reply_markup: languages() }));
  composer.callbackQuery(menuEntry.filter({ entry: "language" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t("language-ask"), { reply_markup: languages() });
  });
  composer.callbackQuery(chooseLanguage.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { language } = chooseLanguage.unpack(ctx.callbackQuery.data);
    await core.accounts.setLanguage(ctx.caller!.account.id, language);
    ctx.i18n.useLocale(language);
    await ctx.reply(ctx.t("language-set"), { reply_markup: mainMenu(ctx) });
  });

  return composer;
}
