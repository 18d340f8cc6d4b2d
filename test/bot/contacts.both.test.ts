import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { type BotHarness, eventually, startBotHarness } from "../support/harness.js";
import { sessionOf } from "../support/miniapp.js";

// Whoever writes to the bot privately becomes a contact (issue 37), but only while a Telegram backend needs their
// id (issue 43): the Bot API sends gifts and Premium by user id only, so a recipient's @username is looked up among
// the users the bot has seen. Both harnesses run the defaults of issue 43's settings.

const ROSE = "5168103777563050263";
let telegram: BotHarness;
let plain: BotHarness;
beforeAll(async () => {
  telegram = await startBotHarness(670_000_001, {}, { GIFTS_BACKEND: "telegram", STAR_COST_USDT: "0.01" });
  await new EmulatedStars(telegram.emulatorUrl).setBalance(1_000);
  plain = await startBotHarness(671_000_001);
});
afterAll(async () => {
  await telegram?.close();
  await plain?.close();
});

const rows = (bots: BotHarness, id: number) =>
  bots.h.service.db.selectFrom("telegram_contacts").selectAll().where("telegram_id", "=", String(id)).execute();

describe("the bot's contacts", () => {
  it("take in a user who messages the bot, before any account, and follow their new username", async () => {
    const id = 670_100_001;
    const chat = new EmulatedChat(telegram.emulatorUrl, { id, first_name: "Carol", username: "Carol_C" });
    const { contacts } = telegram.h.service.core;
    expect(await contacts.find("carol_c")).toBeNull();
    await chat.say("hello");
    const found = await eventually(() => contacts.find("@CAROL_C").then((c) => c ?? undefined));
    expect(found).toMatchObject({ telegramId: String(id), username: "Carol_C", firstName: "Carol", isPremium: false });
    // Not a customer: noting them made no account.
    expect(await telegram.h.service.core.accounts.byTelegramId(String(id))).toBeUndefined();

    const renamed = new EmulatedChat(telegram.emulatorUrl, { id, first_name: "Carol", username: "carol_new" });
    await renamed.say("/start");
    await eventually(() => contacts.find("carol_new").then((c) => c ?? undefined));
    expect(await contacts.find("carol_c")).toBeNull();
  });

  it("leave the Mini App's gift text what the bot's label leaves of Telegram's 128 characters, with no name to hide", async () => {
    const id = 670_100_003;
    const session = await sessionOf(telegram.h.call, { id, first_name: "Gus", username: "gus_g" });
    const account = (await telegram.h.service.core.accounts.byTelegramId(String(id)))!;
    const forms = await telegram.h.call("GET", "/miniapp/forms", { headers: session });
    expect(forms.body.gift).toEqual({ message_max: 128 - `From customer #${account.id}: `.length, names_buyer: false });
  });

  it("are not kept at all without a Telegram backend", async () => {
    const id = 671_100_001;
    const chat = new EmulatedChat(plain.emulatorUrl, { id, first_name: "Dan", username: "dan_d", language_code: "en" });
    await chat.reply("/start", (t) => t.includes("sj_"));
    expect(await rows(plain, id)).toEqual([]);
  });

  it("answer /forget in Russian too, saying what was removed", async () => {
    const id = 670_100_002;
    const chat = new EmulatedChat(telegram.emulatorUrl, { id, first_name: "Ира", username: "ira_i", language_code: "ru" });
    await chat.say("привет");
    await eventually(async () => ((await rows(telegram, id)).length ? true : undefined));
    const removed = await chat.reply("/forget", (t) => t.includes("Удалено"));
    expect(removed.text).toContain("@ira_i");
    expect(await rows(telegram, id)).toEqual([]);
    expect((await chat.reply("/forget", (t) => t.includes("удалять нечего"))).text).toBeTruthy();
  });
});

describe("gift texts from API keys, by default", () => {
  it("are refused before any charge where the bot sends the gift; the gift itself goes without one", async () => {
    const { h } = telegram;
    const friend = new EmulatedChat(telegram.emulatorUrl, { id: 670_100_003, first_name: "Eve", username: "eve_e", language_code: "en" });
    await friend.say("hi");
    await eventually(async () => ((await rows(telegram, 670_100_003)).length ? true : undefined));
    const { key } = await h.newKey(5);
    const orders = await h.orderCount();
    const refused = await h.call("POST", "/v1/gifts", { key, body: { recipient: "eve_e", gift_id: ROSE, message: "Happy birthday" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("takes no text from API keys");
    expect(await h.orderCount()).toBe(orders);
    expect(await h.balance(key)).toBe(5);
    const sent = await h.call("POST", "/v1/gifts", { key, body: { recipient: "eve_e", gift_id: ROSE } });
    expect(sent.status).toBe(201);
    expect(await friend.giftsReceived()).toMatchObject([{ gift_id: ROSE }]);
  });
});
