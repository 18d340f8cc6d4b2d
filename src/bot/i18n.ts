import path from "node:path";
import { fileURLToPath } from "node:url";
import { I18n } from "@grammyjs/i18n";
import type { Context } from "grammy";
import type { Core } from "../core/index.js";
import { type Caller, speak } from "../core/accounts.js";
import type { CallerFlavor } from "./context.js";

/**
 * English and Russian from src/bot/locales. The language is the one chosen with /language (kept on the
 * account, so it holds inside conversations too), else the user's Telegram language. `callersUnderWay` holds the caller
 * that each user's update under way read (middleware/load-caller.ts fills it).
 */
export function createI18n(core: Core, callersUnderWay: ReadonlyMap<string, Caller | undefined>) {
  return new I18n<Context>({
    defaultLocale: "en",
    directory: path.join(path.dirname(fileURLToPath(import.meta.url)), "locales"),
    useSession: false,
    // Fluent's bidi isolation marks would end up inside keys and amounts people copy.
    fluentBundleOptions: { useIsolating: false },
    localeNegotiator: async (ctx) => {
      if (!ctx.from) return "en";
      // Outer handlers carry the caller already. A conversation rebuilds a context for every earlier update of its
      // flow on each new one: those take the caller the update under way read instead of reading it again.
      const id = String(ctx.from.id);
      const caller =
        "caller" in ctx ? (ctx as CallerFlavor).caller : callersUnderWay.has(id) ? callersUnderWay.get(id) : await core.accounts.botCaller(id);
      return caller?.account.language ?? speak(ctx.from.language_code);
    },
  });
}
