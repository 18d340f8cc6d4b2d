import path from "node:path";
import { fileURLToPath } from "node:url";
import { I18n } from "@grammyjs/i18n";
import type { Context } from "grammy";
import type { Core } from "../core/index.js";
import { speak } from "../core/accounts.js";
import type { CallerFlavor } from "./context.js";

/**
 * English and Russian from src/bot/locales. The language is the one chosen with /language (kept on the
 * account, so it holds inside conversations too), else the user's Telegram language.
 */
export function createI18n(core: Core) {
  return new I18n<Context>({
    defaultLocale: "en",
    directory: path.join(path.dirname(fileURLToPath(import.meta.url)), "locales"),
    useSession: false,
    // Fluent's bidi isolation marks would end up inside keys and amounts people copy.
    fluentBundleOptions: { useIsolating: false },
    localeNegotiator: async (ctx) => {
      if (!ctx.from) return "en";
      // Outer handlers carry the caller already; a conversation's rebuilt context does not, so it looks it up.
      const caller = "caller" in ctx ? (ctx as CallerFlavor).caller : await core.accounts.botCaller(String(ctx.from.id));
      return caller?.account.language ?? speak(ctx.from.language_code);
    },
  });
}
