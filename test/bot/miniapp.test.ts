import { request } from "undici";
import { describe, expect, it } from "vitest";
import type { BotHarness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// The Mini App opens from the bot: the chat's menu button, and "Open the shop" on the main menu (issue 21).

const SHOP = "https://shop.example.com/app/";
let bots: BotHarness;
useBotHarness(697_000_001, { env: { MINIAPP_URL: SHOP } }, (started) => (bots = started));

describe("opening the Mini App from the bot", () => {
  it("sets the chat's menu button to the Mini App, and the main menu opens it too, in the user's language", async () => {
    const { chat } = await bots.registered(0, { language_code: "ru" });
    const menu = await chat.reply("/balance", (t) => t.includes("Баланс"));
    const buttons = menu.reply_markup!.inline_keyboard.flat() as Array<{ text: string; web_app?: { url: string } }>;
    expect(buttons[0]).toEqual({ text: "🛍 Открыть магазин", web_app: { url: SHOP } });

    const state = (await (await request(`${bots.emulatorUrl}/emulator/chats/${chat.user.id}`)).body.json()) as { menu_button: unknown };
    expect(state.menu_button).toEqual({ type: "web_app", text: "Shop", web_app: { url: SHOP } });
  });
});
