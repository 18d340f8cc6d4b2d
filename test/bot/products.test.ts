import { describe, expect, it } from "vitest";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

let bots: BotHarness;
let h: Harness;
useBotHarness(600_000_001, { books: true }, (started) => {
  bots = started;
  h = started.h;
});

const registered = (usdt: number, username?: string, language_code?: string) => bots.registered(usdt, { username, language_code });

describe("store top-up in the bot", () => {
  it("explains the login, refuses an e-mail, shows the quote broken down, and messages the user when it completes", async () => {
    const { chat, key } = await registered(50);
    await chat.tap("Store top-up");
    expect((await chat.next((t) => t.includes("login"))).text).toContain("not the profile name");
    expect((await chat.reply("gabe@example.com", (t) => t.includes("e-mail"))).text).toContain("not accepted");
    await chat.reply("pending_gabe", (t) => t.includes("How much to add"));
    expect((await chat.reply("10.123", (t) => t.includes("at most 2 decimals"))).text).toContain("from 1.00 USD to 400.00 USD");
    const confirm = await chat.reply("10", (t) => t.includes("Confirm?"));
    for (const part of [
      "Credited to the wallet: 10.00 USD",
      "Provider fee: 0.30 USDT",
      "Service markup (3%): 0.31 USDT",
      "Total: 10.61 USDT",
      "Balance after: 39.39 USDT",
    ]) {
      expect(confirm.text).toContain(part);
    }
    await chat.tap("Confirm");
    expect((await chat.next((t) => t.includes("being processed"))).text).toContain("message you");
    const done = await chat.next((t) => t.includes("Completed"), 15_000);
    expect(done.text).toContain("pending_gabe");
    expect(await h.balance(key)).toBe(39.39);
  });
});

describe("game credit in the bot", () => {
  it("offers the servers as buttons with exact values, checks the player by name, and reports the credit", async () => {
    const { chat, key } = await registered(20);
    await chat.tap("Game credit");
    await chat.next((t) => t.includes("Which game?"));
    await chat.tap("Genshin Impact");
    const servers = await chat.next((t) => t.includes("Which server"));
    expect(servers.reply_markup!.inline_keyboard.flat().map((b) => b.text)).toEqual(["America", "Europe", "Asia", "TW, HK, MO", "✖ Cancel"]);
    await chat.tap("Europe");
    await chat.next((t) => t.includes("player ID"));
    expect((await chat.reply("000000", (t) => t.includes("not accepted"))).text).toContain("player ID not found");
    const who = await chat.reply("700123456", (t) => t.includes("Choose the top-up"));
    expect(who.text).toContain("Player3456");
    expect(who.text).toContain("cannot be reversed");
    await chat.tap("Wrong account");
    await chat.next((t) => t.includes("player ID"));
    await chat.reply("700123456", (t) => t.includes("Choose the top-up"));
    await chat.tap("Blessing of the Welkin Moon");
    const confirm = await chat.next((t) => t.includes("Confirm?"));
    expect(confirm.text).toContain("server Europe");
    expect(confirm.text).not.toContain("os_euro");
    expect(confirm.text).toContain("5.2395 USDT");
    await chat.tap("Confirm");
    await chat.next((t) => t.includes("being processed"));
    await chat.next((t) => t.includes("Completed"), 15_000);
    const order = (await h.service.core.orders.list((await h.service.core.accounts.authenticate(key)).account.id, 1))[0];
    expect(order.details).toMatchObject({
      game_code: "genshin",
      server_id: "os_euro",
      player_id: "700123456",
      denomination: "Blessing of the Welkin Moon",
    });
  });

  it("tells the user when a restricted-region credit is refunded", async () => {
    const { chat, key } = await registered(5);
    await chat.tap("Game credit");
    await chat.next((t) => t.includes("Which game?"));
    await chat.tap("PUBG Mobile");
    await chat.next((t) => t.includes("Note:"));
    await chat.reply("999111222", (t) => t.includes("Choose the top-up"));
    await chat.tap(/^60 ·/);
    await chat.next((t) => t.includes("Confirm?"));
    await chat.tap("Confirm");
    const refunded = await chat.next((t) => t.includes("Failed and refunded"), 15_000);
    expect(refunded.text).toContain("restricted");
    expect(await h.balance(key)).toBe(5);
  });
});

describe("gift cards in the bot", () => {
  it("sends the codes in a private message when the order completes, and shows them again from /orders", async () => {
    const { chat, key } = await registered(30);
    await chat.tap("Gift cards");
    expect((await chat.next((t) => t.includes("Which gift card?"))).text).toContain("US PlayStation accounts only");
    await chat.tap("PlayStation");
    const cards = await chat.next((t) => t.includes("Choose the denomination"));
    const labels = cards.reply_markup!.inline_keyboard.flat().map((b) => b.text);
    expect(labels.some((l) => l.includes("$50"))).toBe(false);
    await chat.tap(/^\$10 · 10\.50/);
    expect((await chat.reply("11", (t) => t.includes("whole number"))).text).toContain("1 to 10");
    const confirm = await chat.reply("2", (t) => t.includes("Confirm?"));
    expect(confirm.text).toContain("21.00 USDT");
    await chat.tap("Confirm");
    await chat.next((t) => t.includes("being processed"));
    const delivered = await chat.next((t) => t.includes("Your codes"), 15_000);
    const codes = delivered.text.match(/[0-9A-F]{4}(-[0-9A-F]{4}){3}/g)!;
    expect(codes).toHaveLength(2);
    expect(delivered.protect_content).toBeFalsy();
    // The notice names the brand, never its id.
    expect(delivered.text).toMatch(/^✅ Completed: #\d+ gift cards → 2 × PlayStation Store \(US\) \$10 · 21\.00 USDT/);
    expect(delivered.text).not.toContain("psn-us");
    expect(await h.balance(key)).toBe(9);

    await chat.say("/orders");
    const orders = await chat.next((t) => t.includes("recent orders"));
    expect(orders.reply_markup!.inline_keyboard.flat().map((b) => b.text)).toContainEqual(expect.stringContaining("2 × PlayStation Store (US) $10"));
    await chat.tap("gift cards");
    const detail = await chat.next((t) => t.includes("Your codes"));
    expect(detail.text.match(/[0-9A-F]{4}(-[0-9A-F]{4}){3}/g)).toEqual(codes);
    expect(detail.text).toContain("PlayStation Store (US)");
  });
});

describe("gifts in the bot", () => {
  it("explains a refusing recipient as their choice, with nothing charged", async () => {
    const { chat, key } = await registered(2);
    await chat.tap("Gifts");
    const gifts = await chat.next((t) => t.includes("Which gift?"));
    expect(gifts.reply_markup!.inline_keyboard.flat().some((b) => b.text.includes("🎃"))).toBe(false);
    await chat.tap("🌹");
    // The recipient is checked at once, and asked again with the reason.
    const refused = await chat.reply("@refuse_rita", (t) => t.includes("does not accept gifts"));
    expect((await chat.messages()).some((m) => m.text?.includes("Confirm?"))).toBe(false);
    expect(refused.text).toContain("their choice");
    expect(refused.text).toContain("nothing was charged");
    expect(await h.balance(key)).toBe(2);
  });

  it("sends a gift with a message", async () => {
    const { chat, key } = await registered(2);
    await chat.tap("Gifts");
    await chat.next((t) => t.includes("Which gift?"));
    await chat.tap("💝");
    await chat.reply("@friend_fay", (t) => t.includes("message"));
    await chat.reply("Happy birthday!", (t) => t.includes("Show your name"));
    await chat.tap("Show my name");
    expect((await chat.next((t) => t.includes("Confirm?"))).text).toContain("Happy birthday!");
    await chat.tap("Confirm");
    await chat.next((t) => t.includes("Done!"));
    expect(await h.balance(key)).toBe(1.775);
  });
});

describe("every purchase flow", () => {
  it("opens with one message: what the user can spend, then the flow's first question", async () => {
    const { chat } = await registered(100);
    await chat.next((t) => t.includes("topped up"));
    for (const [command, question] of [
      ["/stars", "Who is it for?"],
      ["/premium", "Who is it for?"],
      ["/store", "Send the store account login"],
      ["/games", "Which game?"],
      ["/giftcards", "Which gift card?"],
      ["/gifts", "Which gift?"],
    ]) {
      await chat.say(command);
      const [first, ...more] = await chat.fresh();
      expect(first!.text, command).toMatch(new RegExp(`^Your balance: 100\\.00 USDT\\.\\n\\n${question.replace("?", "\\?")}`));
      expect(more, command).toEqual([]);
      await chat.reply("/cancel", (t) => t.includes("Cancelled"));
    }
  });
});

describe("notifications", () => {
  it("come without buttons while a flow waits for an answer, and the flow goes on", async () => {
    const { chat, key } = await registered(50);
    await chat.reply("/stars", (t) => t.includes("Who is it for?"));
    const res = await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_mid", amount_usd: 5 } });
    const note = await chat.next((t) => t.includes("Failed and refunded"), 15_000);
    expect(note.text).toContain(`#${res.body.order_id}`);
    // The flow's question keeps the one live keyboard.
    expect(note.reply_markup?.inline_keyboard ?? []).toEqual([]);
    expect((await chat.reply("@alice", (t) => t.includes("How many stars?"))).text).toContain("@alice");
    await chat.reply("/cancel", (t) => t.includes("Cancelled"));
    // Outside a flow a notice offers the menu, the next step.
    await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_out", amount_usd: 5 } });
    const after = await chat.next((t) => t.includes("Failed and refunded"), 15_000);
    expect(after.reply_markup!.inline_keyboard.flat().map((b) => b.text)).toContain("⭐ Stars");
  });

  it("reports an order placed over the API with the user's key when it finishes in the background", async () => {
    const { chat, key } = await registered(50);
    const res = await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_api", amount_usd: 5 } });
    expect(res.status).toBe(202);
    const note = await chat.next((t) => t.includes("Failed and refunded"), 15_000);
    expect(note.text).toContain(`#${res.body.order_id}`);
    expect(note.text).toContain("5.30 USDT are back");
  });

  it("skips a user who blocked the bot, loses nothing, and keeps the codes in /orders", async () => {
    const { chat, key } = await registered(20);
    await chat.setBlocked(true);
    const res = await h.call("POST", "/v1/giftcards/apple-us/order", { key, body: { card_id: "apple-us-5" } });
    const done = await eventually(async () => {
      const order = await h.call("GET", `/v1/giftcards/orders/${res.body.order_id}`, { key });
      return order.body.status === "completed" ? order.body : undefined;
    });
    // The notice is tried in the background once the order completes: its outcome is awaited, not slept for.
    await eventually(async () => (h.logs.join("").includes("user blocked the bot") ? true : undefined));
    await chat.setBlocked(false);
    await chat.say("/orders");
    await chat.next((t) => t.includes("recent orders"));
    await chat.tap("gift cards");
    expect((await chat.next((t) => t.includes("Your codes"))).text).toContain(done.codes[0]);
  });
});

describe("language", () => {
  it("speaks Russian to a Russian Telegram user, and switches with /language", async () => {
    const { chat } = await registered(1, undefined, "ru");
    expect((await chat.reply("/balance", () => true)).text).toContain("Баланс: 1.00 USDT");
    await chat.say("/language");
    await chat.next((t) => t.includes("Выберите язык"));
    await chat.tap("English");
    expect((await chat.next((t) => t.includes("English"))).text).toContain("I will speak English");
    expect((await chat.reply("/balance", () => true)).text).toContain("Balance: 1.00 USDT");
  });
});
