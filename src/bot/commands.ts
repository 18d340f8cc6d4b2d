import type { I18n } from "@grammyjs/i18n";
import type { Api } from "grammy";
import { ADMIN_COMMANDS } from "./features/admin.js";
import { FLOWS } from "./flows/index.js";

/** The commands a user sees in the client's list, in this order (each described by its `cmd-<command>` text). */
const USER_COMMANDS = [
  "start",
  ...FLOWS.map((flow) => flow.id),
  "topup",
  "topups",
  "balance",
  "orders",
  "statement",
  "webhook",
  "language",
  "help",
  "paysupport",
  "terms",
  "forget",
  "cancel",
];

interface CommandListOptions {
  api: Api;
  i18n: I18n;
  admins: Iterable<number>;
  miniAppUrl?: string | null;
  log: { warn(obj: object, msg: string): void };
}

/**
 * Command lists in the client, in English and Russian; administrators get theirs added in their own chats.
 * The chat's menu button opens the Mini App, where there is one. Telegram refusing is logged, never fatal.
 */
export async function publishCommands({ api, i18n, admins, miniAppUrl, log }: CommandListOptions): Promise<void> {
  const described = (locale: string) => USER_COMMANDS.map((command) => ({ command, description: i18n.t(locale, `cmd-${command}`) }));
  try {
    await api.setMyCommands(described("en"));
    await api.setMyCommands(described("ru"), { language_code: "ru" });
    for (const admin of admins) {
      await api.setMyCommands([...described("en"), ...Object.entries(ADMIN_COMMANDS).map(([command, usage]) => ({ command, description: usage }))], {
        scope: { type: "chat", chat_id: admin },
      });
    }
  } catch (error) {
    log.warn({ err: error }, "setMyCommands failed; the bot runs without command lists");
  }
  if (!miniAppUrl) return;
  try {
    await api.setChatMenuButton({
      menu_button: { type: "web_app", text: i18n.t("en", "menu-shop-button"), web_app: { url: miniAppUrl } },
    });
  } catch (error) {
    log.warn({ err: error }, "setChatMenuButton failed; the Mini App opens from the menu's button only");
  }
}
