import { FormattedString, fmt } from "@grammyjs/parse-mode";
import { Composer, InlineKeyboard } from "grammy";
import type { Core } from "../../core/index.js";
import { endKeyGrace, rotateKey, rotateKeyAnswer, rotateKeyGrace } from "../callback-data.js";
import type { BotContext, FlowContext } from "../context.js";
import { KEY_GRACE_CHOICES_HOURS } from "../../core/model/account.js";
import { minute } from "../format.js";
import { mainMenu } from "../keyboards.js";

/**
 * Shows a key once, as a code entity (tap to copy; no escaping needed). Not protected: protected content
 * cannot be copied at all, and a key must be copied into the partner's system.
 */
async function showKey(ctx: FlowContext, api: PublicApi | null, key: string, intro: string, keyboard?: InlineKeyboard) {
  const where = api ? `\n${ctx.t("key-api", { api: api.base, docs: api.docs })}` : "";
  const message = fmt`${intro}\n\n${FormattedString.code(key)}\n\n${ctx.t("key-usage")}${where}\n${ctx.t("key-once")}`;
  await ctx.reply(message.text, { entities: message.entities, ...(keyboard ? { reply_markup: keyboard } : {}) });
  await ctx.reply(ctx.t("menu-intro"), { reply_markup: mainMenu(ctx) });
}

/** The button that ends every replaced key's grace period now. */
const endGraceButton = (ctx: FlowContext, keyboard = new InlineKeyboard()) => keyboard.text(ctx.t("btn-end-grace"), endKeyGrace.pack());

/** Where a key is used: the API's public address and its OpenAPI description (served by the service itself). */
interface PublicApi {
  base: string;
  docs: string;
}

/**
 * The API's public address from what the deployment says about itself: the Mini App's address (served at /app/ of
 * the service), else the bot's webhook (posted to /telegram/webhook of it); null when neither is set (polling, no
 * Mini App), so no address is guessed.
 */
export function publicApi(miniAppUrl: string | null, webhookUrl: string | null): PublicApi | null {
  const base = miniAppUrl ? new URL("../", new URL(miniAppUrl)) : webhookUrl ? new URL("../", new URL(webhookUrl)) : null;
  if (!base) return null;
  base.search = "";
  base.hash = "";
  return { base: new URL("v1/", base).href, docs: new URL("openapi.json", base).href };
}

/** /start registers and issues the first key; "New API key" rotates it after a confirmation, the old one stopping now or after a grace. */
export function keyFeatures(core: Core, api: PublicApi | null) {
  const composer = new Composer<BotContext>();

  composer.command("start", async (ctx) => {
    const telegramId = String(ctx.from!.id);
    // Telegram's language as it says it now, followed until the user chooses one with /language (kept when unsaid).
    const language = ctx.from!.language_code;
    if (ctx.caller) {
      if (language) await core.accounts.noteTelegramLanguage(ctx.caller.account.id, language);
      await ctx.reply(ctx.t("welcome-back", { name: ctx.from!.first_name }), { reply_markup: mainMenu(ctx) });
      return;
    }
    const issued = await core.accounts.issueKey(telegramId, ctx.from!.username ?? null);
    if (language) await core.accounts.noteTelegramLanguage(issued.account.id, language);
    await showKey(ctx, api, issued.key, ctx.t("key-new", { name: ctx.from!.first_name }));
  });

  composer.callbackQuery(rotateKey.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.conversation.exitAll();
    // Keys replaced earlier and still answering are told, with the way to stop them now (a leaked one).
    const inGrace = ctx.caller ? await core.accounts.keysInGrace(ctx.caller.account.id) : [];
    const lines = [
      ...inGrace.map((key) => ctx.t("key-in-grace", { prefix: key.displayPrefix, until: minute(key.expiresAt) })),
      ctx.t("key-rotate-ask"),
    ];
    const keyboard = new InlineKeyboard().text(ctx.t("btn-rotate"), rotateKeyAnswer.pack({ yes: true })).row();
    for (const hours of KEY_GRACE_CHOICES_HOURS.filter((h) => h > 0))
      keyboard.text(ctx.t("btn-rotate-grace", { hours }), rotateKeyGrace.pack({ hours })).row();
    if (inGrace.length) endGraceButton(ctx, keyboard).row();
    keyboard.text(ctx.t("btn-keep-key"), rotateKeyAnswer.pack({ yes: false }));
    await ctx.reply(lines.join("\n\n"), { reply_markup: keyboard });
  });

  composer.callbackQuery(rotateKeyAnswer.filter({ yes: false }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    await ctx.reply(ctx.t("key-kept"), { reply_markup: mainMenu(ctx) });
  });

  /** A confirmed rotation: the confirmation loses its buttons first; a second tap finds none to remove and issues nothing. */
  async function rotate(ctx: BotContext & { from: NonNullable<BotContext["from"]> }, graceHours: number) {
    await ctx.answerCallbackQuery();
    const removed = await ctx.editMessageReplyMarkup({ reply_markup: undefined }).then(
      () => true,
      () => false,
    );
    if (!removed) return;
    const issued = await core.accounts.issueKey(String(ctx.from.id), ctx.from.username ?? null, graceHours);
    const { previousKeyExpiresAt: until, previousKeyPrefix: prefix } = issued;
    if (!until || !prefix) return showKey(ctx, api, issued.key, ctx.t("key-rotated"));
    await showKey(ctx, api, issued.key, ctx.t("key-rotated-grace", { prefix, until: minute(until) }), endGraceButton(ctx));
  }

  composer.callbackQuery(rotateKeyAnswer.filter({ yes: true }), (ctx) => rotate(ctx, 0));
  composer.callbackQuery(rotateKeyGrace.filter(), (ctx) => rotate(ctx, rotateKeyGrace.unpack(ctx.callbackQuery.data).hours));

  composer.callbackQuery(endKeyGrace.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    if (ctx.caller) await core.accounts.endKeyGrace(ctx.caller.account.id);
    await ctx.reply(ctx.t("key-grace-ended"), { reply_markup: mainMenu(ctx) });
  });

  return composer;
}
