import { describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import type { ChatMessage } from "../../src/emulator/state.js";
import type { BotHarness, Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// The bot as customers and admins really use it (issue 9): every wrong answer re-asked with its reason,
// nothing irreversible unseen, a next step after every final message, both languages.

const ADMIN = 930_000_001;
const RU_ADMIN = 930_000_002;
let bots: BotHarness;
let h: Harness;
useBotHarness(
  660_000_001,
  { admins: [ADMIN, RU_ADMIN], env: { SUPPORT_CONTACT: "@help_desk", ADMIN_CONFIRM_ABOVE_USDT: "100" }, books: true },
  (started) => {
    bots = started;
    h = started.h;
  },
);

const registered = (usdt: number, username?: string, language_code?: string) => bots.registered(usdt, { username, language_code });
const buttons = (message: ChatMessage) => message.reply_markup?.inline_keyboard.flat().map((b) => b.text) ?? [];
const hasMenu = (message: ChatMessage) => buttons(message).some((label) => label.includes("Stars") || label.includes("Звёзды"));
const admin = (id = ADMIN, language_code = "en") =>
  new EmulatedChat(bots.emulatorUrl, { id, first_name: "Admin", username: `admin${id}`, language_code });

/** Counts the user's own taps and messages from the menu button to Confirm, inclusive. */
function counted(chat: EmulatedChat) {
  let actions = 0;
  return {
    tap: (label: string | RegExp) => (actions++, chat.tap(label)),
    say: (text: string) => (actions++, chat.say(text)),
    get actions() {
      return actions;
    },
  };
}

describe("admins", () => {
  it("use their commands without registering as customers, in their own language", async () => {
    const { telegramId, key } = await registered(0, "walt_w");
    const en = admin();
    expect((await en.reply("/credit @walt_w 5", (t) => t.includes("USDT"))).text).toContain("+5.00 USDT, balance 5.00 USDT");
    await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
    const ru = admin(RU_ADMIN, "ru");
    expect((await ru.reply("/stats", (t) => t.includes("UTC"))).text).toContain("Сегодня (UTC):\nзвёзды: ");
    // Product, status and account kind in the admin's language, never the ids.
    const stats = (await ru.reply("/stats", (t) => t.includes("UTC"))).text;
    const user = (await ru.reply("/user @walt_w", (t) => t.includes("walt_w"))).text;
    for (const english of ["stars", "completed", "standard", "store", "giftcards"]) {
      expect(stats).not.toContain(english);
      expect(user).not.toContain(english);
    }
    expect(user).toContain("обычный");
    // A count agrees in Russian as a whole sentence: "1 заказ выполнен", "2 заказа выполнены", "5 заказов выполнено".
    const done = Number(/^звёзды: (\d+) /m.exec(stats)![1]);
    const form = { one: "заказ выполнен", few: "заказа выполнены", many: "заказов выполнено" }[new Intl.PluralRules("ru").select(done) as "one"];
    expect(stats).toMatch(new RegExp(`^звёзды: ${done} ${form}, \\d+\\.\\d\\d USDT$`, "m"));
    expect((await ru.reply("/credit @walt_w abc", (t) => t.includes("формат"))).text).toContain("сумма");
    expect(await h.service.core.accounts.byTelegramId(String(ADMIN))).toBeUndefined();
    // 5.00 credited, 0.75 spent on 50 stars.
    expect((await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro).toBe(4_250_000);
  });

  it("confirm a large credit first, and the user is told of a credit, a debit and a block", async () => {
    const { chat, telegramId } = await registered(0, "vera_v");
    const boss = admin();
    const ask = await boss.reply("/credit @vera_v 500", (t) => t.includes("confirmation threshold"));
    expect(buttons(ask)).toEqual(["✅ Confirm", "✖ Cancel"]);
    expect((await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro).toBe(0);
    await boss.tap("Confirm");
    expect((await boss.next((t) => t.includes("balance"))).text).toContain("+500.00 USDT");
    await chat.next((t) => t.includes("topped up"));
    // A second tap on the same Confirm moves nothing.
    await boss.tapData(ask.message_id, (ask.reply_markup!.inline_keyboard[0][0] as { callback_data: string }).callback_data);
    expect((await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro).toBe(500_000_000);

    await boss.reply("/debit @vera_v 20", (t) => t.includes("-20.00"));
    expect((await chat.next((t) => t.includes("took"))).text).toContain("20.00 USDT");
    await boss.reply("/block @vera_v", (t) => t.includes("blocked"));
    const blocked = await chat.next((t) => t.includes("blocked"));
    expect(blocked.text).toContain("403");
    // A blocked user is shown a way to reach a person.
    expect((await chat.reply("/balance", (t) => t.includes("blocked"))).text).toContain("@help_desk");
    await boss.reply("/unblock @vera_v", (t) => t.includes("unblocked"));
  });
});

describe("customers", () => {
  it("see their balance when a flow starts, and are told at once when nothing there is affordable, with the menu and support", async () => {
    const { chat } = await registered(0.5);
    await chat.say("/stars");
    expect((await chat.next((t) => t.includes("balance"))).text).toContain("0.50 USDT");
    const early = await chat.next((t) => t.includes("Not enough"));
    expect(early.text).toContain("0.75 USDT");
    expect(early.text).toContain("@help_desk");
    expect(hasMenu(early)).toBe(true);
  });

  it("are offered only the top-ups, months, cards and gifts their balance covers", async () => {
    const { chat } = await registered(6);
    await chat.tap("Game credit");
    await chat.next((t) => t.includes("Which game?"));
    await chat.tap("PUBG Mobile");
    await chat.next((t) => t.includes("Note:"));
    const offered = buttons(await chat.reply("512345678", (t) => t.includes("Choose the top-up")));
    // 60 (1.0395) and 325 (5.2395) fit in 6 USDT; 60 + Royale Pass (11.0145) does not.
    expect(offered.some((label) => label.startsWith("60 ·"))).toBe(true);
    expect(offered.some((label) => label.startsWith("325 ·"))).toBe(true);
    expect(offered.some((label) => label.includes("Royale Pass"))).toBe(false);
    await chat.tap("Cancel");
  });

  it("with an owner key see its limits, never a balance they do not have", async () => {
    const { chat, telegramId } = await registered(0);
    await h.service.core.admin.setWallet(fromUsdt(300), "test", { confirmed: true });
    await h.service.core.admin.makeOwner(telegramId, { dailyLimitMicro: fromUsdt(50), orderLimitMicro: fromUsdt(5) }, "test");
    await chat.say("/stars");
    const limits = await chat.next((t) => t.includes("Owner key"));
    expect(limits.text).toContain("50.00 USDT today");
    expect(limits.text).toContain("5.00");
    expect(limits.text).not.toContain("Your balance");
  });

  it("get one Cancel button however often an answer is wrong, and no Myself without a username", async () => {
    const { chat } = await registered(5, "");
    await chat.say("/stars");
    const question = await chat.next((t) => t.includes("Who is it for"));
    expect(question.text).not.toContain("Myself");
    expect(buttons(question)).toEqual(["✖ Cancel"]);
    await chat.reply("not a name!", (t) => t.includes("not a username"));
    const again = await chat.reply("still not!", (t) => t.includes("not a username"));
    expect(buttons(again)).toEqual(["✖ Cancel"]);
  });

  it("may type numbers as people write them: 1 000 stars, 1,000 stars, 10,5 USD", async () => {
    const { chat } = await registered(100);
    await chat.say("/stars");
    await chat.reply("@alice", (t) => t.includes("How many stars"));
    // The bot writes thousands as people do (1,000), and takes them back in any of these forms.
    expect((await chat.reply("1 000", (t) => t.includes("Confirm?"))).text).toContain("1,000 stars");
    await chat.tap("Cancel");
    await chat.say("/stars");
    await chat.reply("@alice", (t) => t.includes("How many stars"));
    expect((await chat.reply("1,000", (t) => t.includes("Confirm?"))).text).toContain("1,000 stars");
    await chat.tap("Cancel");
    await chat.say("/store");
    await chat.reply("gabe_n", (t) => t.includes("How much"));
    expect((await chat.reply("10,5", (t) => t.includes("Confirm?"))).text).toContain("10.50 USD");
    await chat.tap("Cancel");
  });

  it("may type the answer to a button question; anything else is asked again with the reason, in Russian too", async () => {
    const { chat } = await registered(20);
    await chat.say("/games");
    await chat.next((t) => t.includes("Which game"));
    expect((await chat.reply("Tetris", (t) => t.includes("choose one of the buttons"))).text).toContain("Which game");
    await chat.reply("Genshin Impact", (t) => t.includes("Which server"));
    await chat.reply("Europe", (t) => t.includes("player ID"));
    expect((await chat.reply("abcdef", (t) => t.includes("not accepted"))).text).toContain("digits only, 5 to 12");
    await chat.reply("700123456", (t) => t.includes("Choose the top-up"));
    const confirm = await chat.reply("Blessing of the Welkin Moon", (t) => t.includes("Confirm?"));
    expect(confirm.text).toContain("server Europe");
    await chat.tap("Cancel");

    await chat.say("/giftcards");
    await chat.next((t) => t.includes("Which gift card"));
    await chat.reply("psn", (t) => t.includes("Choose the denomination"));
    await chat.tap("Cancel");

    const ru = await registered(20, undefined, "ru");
    await ru.chat.say("/games");
    await ru.chat.next((t) => t.includes("Какая игра") || t.includes("игр"));
    await ru.chat.reply("PUBG Mobile", (t) => t.includes("ID игрока"));
    const note = await ru.chat.reply("abc", (t) => t.includes("не принят"));
    // The provider's own note stands on a line of its own, never inside a Russian sentence.
    expect(note.text.split("\n")[0]).not.toMatch(/[A-Za-z]{4,}/);
    expect(note.text).toContain("Поставщик сообщает");
  });

  it("see the gift recipient's name before anything is charged", async () => {
    const { chat } = await registered(5);
    await chat.say("/gifts");
    await chat.next((t) => t.includes("Which gift"));
    await chat.tap("🌹");
    expect((await chat.reply("@missing_moe", (t) => t.includes("cannot send to"))).text).toContain("@missing_moe");
    expect((await chat.reply("@alice", (t) => t.includes("message"))).text).toContain("Alice (@alice)");
    // Typing the Skip button's label skips, as tapping it does; it never becomes the gift's message.
    await chat.reply("skip", (t) => t.includes("Show your name"));
    await chat.tap("Show my name");
    const confirm = (await chat.next((t) => t.includes("Confirm?"))).text;
    expect(confirm).toContain("Alice (@alice)");
    expect(confirm).not.toMatch(/skip/i);
    await chat.tap("Cancel");
  });

  it("are never left at a dead end: outcomes and a kept key offer the menu; cancelling a key change charges nothing because there is nothing to charge", async () => {
    const { chat } = await registered(5);
    await chat.say("/stars");
    await chat.reply("@alice", (t) => t.includes("How many stars"));
    await chat.tap("50");
    await chat.next((t) => t.includes("Confirm?"));
    await chat.tap("Confirm");
    expect(hasMenu(await chat.next((t) => t.includes("Done!")))).toBe(true);

    await chat.tap("New API key");
    await chat.next((t) => t.includes("replaces your current one"));
    await chat.tap("Keep my current key");
    const kept = await chat.next((t) => t.includes("Kept"));
    expect(kept.text).not.toContain("charged");
    expect(hasMenu(kept)).toBe(true);
    await chat.tap("New API key");
    await chat.next((t) => t.includes("replaces your current one"));
    await chat.tap("the old one stops now");
    await chat.next((t) => t.includes("old one has stopped working"));
    expect(hasMenu(await chat.next((t) => t.includes("What would you like")))).toBe(true);
  });

  it("read notifications without a repeated status or a brand id, and tell same-named cards apart", async () => {
    const { chat } = await registered(60);
    await chat.say("/giftcards");
    await chat.next((t) => t.includes("Which gift card"));
    await chat.tap("PlayStation");
    const cards = await chat.next((t) => t.includes("Choose the denomination"));
    const tens = buttons(cards).filter((label) => label.startsWith("$10"));
    expect(tens).toHaveLength(2);
    expect(tens[0].replace(/[\d.]+ USDT/, "")).not.toBe(tens[1].replace(/[\d.]+ USDT/, ""));
    await chat.tap(/^\$10 · 10\.50/);
    await chat.reply("1", (t) => t.includes("Confirm?"));
    await chat.tap("Confirm");
    const done = await chat.next((t) => t.includes("Completed"), 15_000);
    expect(done.text).not.toContain("psn-us");
    expect(done.text).toContain("1 × PlayStation Store (US) $10");
    expect(done.text.match(/completed/gi)).toHaveLength(1);
    // A notice is a final message too: the menu comes with it, and with an order's detail from /orders.
    expect(hasMenu(done)).toBe(true);
    const list = await chat.reply("/orders", (t) => t.includes("recent orders"));
    expect(buttons(list).every((label) => label.length > 0)).toBe(true);
    await chat.tap(/^#\d+/);
    expect(hasMenu(await chat.next((t) => t.includes("USDT")))).toBe(true);

    await chat.say("/games");
    await chat.next((t) => t.includes("Which game"));
    await chat.tap("PUBG Mobile");
    await chat.reply("700123456", (t) => t.includes("Choose the top-up"));
    await chat.tap(/^60 ·/);
    const confirm = await chat.next((t) => t.includes("Confirm?"));
    expect(confirm.text).not.toContain("server");
    await chat.tap("Cancel");
  });
});

describe("taps per purchase", () => {
  it("needs at most 6 taps or messages from the menu to Confirm in every flow", async () => {
    const { chat } = await registered(100);
    // Each flow: its menu button, its first question, then the user's answers up to the confirmation.
    const flows: Array<[string, string, (c: ReturnType<typeof counted>) => Promise<void>]> = [
      [
        "stars",
        "Who is it for",
        async (c) => {
          await c.tap("Myself");
          await chat.next((t) => t.includes("How many stars"));
          await c.tap("100");
        },
      ],
      [
        "premium",
        "Who is it for",
        async (c) => {
          await c.tap("Myself");
          await chat.next((t) => t.includes("For how long"));
          await c.tap("3 months");
        },
      ],
      [
        "store",
        "store account login",
        async (c) => {
          await c.say("gabe_t");
          await chat.next((t) => t.includes("How much"));
          await c.tap("10.00 USD");
        },
      ],
      [
        "games",
        "Which game",
        async (c) => {
          await c.tap("Genshin Impact");
          await chat.next((t) => t.includes("Which server"));
          await c.tap("Europe");
          await chat.next((t) => t.includes("player ID"));
          await c.say("700123456");
          await chat.next((t) => t.includes("Choose the top-up"));
          await c.tap(/Welkin Moon/);
        },
      ],
      [
        "giftcards",
        "Which gift card",
        async (c) => {
          await c.tap("PlayStation");
          await chat.next((t) => t.includes("Choose the denomination"));
          await c.tap(/^\$10 · 10\.50/);
          await chat.next((t) => t.includes("How many codes"));
          await c.tap("1");
        },
      ],
      [
        "gifts",
        "Which gift",
        async (c) => {
          await c.tap("🌹");
          await chat.next((t) => t.includes("Who is it for"));
          await c.say("@alice");
          await chat.next((t) => t.includes("message"));
          await c.tap("Skip");
          await chat.next((t) => t.includes("Show your name"));
          await c.tap("Show my name");
        },
      ],
    ];
    const menus: Record<string, string> = {
      stars: "Stars",
      premium: "Premium",
      store: "Store top-up",
      games: "Game credit",
      giftcards: "Gift cards",
      gifts: "Gifts",
    };
    for (const [flow, first, steps] of flows) {
      await chat.say("/help");
      await chat.next((t) => t.includes("digital goods"));
      const c = counted(chat);
      await c.tap(menus[flow]);
      await chat.next((t) => t.includes(first));
      await steps(c);
      await chat.next((t) => t.includes("Confirm?"));
      await c.tap("Confirm");
      expect(c.actions, flow).toBeLessThanOrEqual(6);
      await chat.next((t) => t.includes("Done!") || t.includes("being processed"), 15_000);
    }
  });
});
