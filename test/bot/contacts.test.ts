import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmulatedChat } from "../../src/emulator/client.js";
import { type BotHarness, eventually, startBotHarness } from "../support/harness.js";

// Whoever writes to the bot privately becomes a contact (issue 37): the Bot API sends gifts and Premium by user id
// only, so a recipient's @username is looked up among the users the bot has seen.

let bots: BotHarness;
beforeAll(async () => {
  bots = await startBotHarness(670_000_001);
});
afterAll(async () => bots?.close());

describe("the bot's contacts", () => {
  it("take in a user who messages the bot, before any account, and follow their new username", async () => {
    const id = 670_100_001;
    const chat = new EmulatedChat(bots.emulatorUrl, { id, first_name: "Carol", username: "Carol_C" });
    const { contacts } = bots.h.service.core;
    expect(await contacts.find("carol_c")).toBeNull();
    await chat.say("hello");
    const found = await eventually(() => contacts.find("@CAROL_C").then((c) => c ?? undefined));
    expect(found).toMatchObject({ telegramId: String(id), username: "Carol_C", firstName: "Carol", isPremium: false });
    // Not a customer: noting them made no account.
    expect(await bots.h.service.core.accounts.byTelegramId(String(id))).toBeUndefined();

    const renamed = new EmulatedChat(bots.emulatorUrl, { id, first_name: "Carol", username: "carol_new" });
    await renamed.say("/start");
    await eventually(() => contacts.find("carol_new").then((c) => c ?? undefined));
    expect(await contacts.find("carol_c")).toBeNull();
  });
});
