import { request } from "undici";
import { describe, expect, it } from "vitest";
import { publicApi } from "../../src/bot/features/keys.js";
import { EmulatedChat } from "../../src/emulator/client.js";
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

  it("names the API's address and its description with the key, from the deployment's public address", async () => {
    const chat = new EmulatedChat(bots.emulatorUrl, { id: 697_000_900, first_name: "Kai", username: "kai_k", language_code: "en" });
    const shown = await chat.reply("/start", (t) => t.includes("Your API key"));
    expect(shown.text).toContain(
      "The API: https://shop.example.com/v1/ · what it takes and answers (OpenAPI): https://shop.example.com/openapi.json",
    );
  });

  it("takes the API's address from the webhook's when there is no Mini App, keeping a path prefix, and guesses none without", () => {
    expect(publicApi(null, "https://bot.example.com/shop/telegram/webhook")).toEqual({
      base: "https://bot.example.com/shop/v1/",
      docs: "https://bot.example.com/shop/openapi.json",
    });
    expect(publicApi(null, null)).toBeNull();
  });
});
