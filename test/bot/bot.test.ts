import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { type Harness, startHarness } from "../support/harness.js";
import { handled } from "../support/inbox.js";

const ADMIN = 900_000_001;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let h: Harness;
let nextUser = 500_000_001;

beforeAll(async () => {
  emulator = await startEmulator();
  h = await startHarness({}, { emulatorUrl: emulator.url, admins: [ADMIN] });
});
afterEach(async () => h.assertLedgerInvariant());
afterAll(async () => {
  await h.close();
  await emulator.app.close();
});

function user(username = `user${nextUser}`, language_code = "en") {
  const id = nextUser++;
  return new EmulatedChat(emulator.url, { id, first_name: `Tester${id}`, username, language_code });
}

const KEY = /sj_[A-Za-z0-9_-]{43}/;

/** Registers through /start and returns the key the bot showed. */
async function register(chat: EmulatedChat, usdt = 0): Promise<string> {
  const shown = await chat.reply("/start", (t) => KEY.test(t));
  await chat.next((t) => t.includes("What would you like to do?"));
  if (usdt > 0) await h.service.core.admin.credit(String(chat.user.id), fromUsdt(usdt), "test", { confirmed: true });
  return KEY.exec(shown.text)![0];
}

const orders = async (telegramId: number) => {
  const caller = await h.service.core.accounts.botCaller(String(telegramId));
  return caller ? h.service.core.orders.list(caller.account.id, 100) : [];
};

describe("keys", () => {
  it("/start registers and shows a working key once, as a code entity that can be copied; a returning user gets the menu", async () => {
    const chat = user();
    const shown = await chat.reply("/start", (t) => KEY.test(t));
    const key = KEY.exec(shown.text)![0];
    // Protected content cannot be copied in Telegram, and a key must be copied into the partner's system.
    expect(shown.protect_content).toBeFalsy();
    expect(shown.entities).toContainEqual({ type: "code", offset: shown.text.indexOf(key), length: key.length });
    expect(shown.text).toContain("X-API-Key");
    expect(shown.text).toContain("only time");
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);

    const again = await chat.reply("/start", (t) => t.includes("Welcome back"));
    expect(again.text).not.toMatch(KEY);
    expect(again.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toContain("⭐ Stars");
  });

  it("rotates the key after a confirmation: the old key is 401 at once, the balance stays, a double tap issues one key", async () => {
    const chat = user();
    const oldKey = await register(chat, 12);
    await chat.tap("New API key");
    await chat.next((t) => t.includes("stop working immediately"));
    const confirmation = (await chat.messages()).filter((m) => m.from_bot).at(-1)!;
    const yes = confirmation.reply_markup!.inline_keyboard.flat().find((b) => b.text.includes("stops now"))! as { callback_data: string };
    const taps = [await chat.tapData(confirmation.message_id, yes.callback_data), await chat.tapData(confirmation.message_id, yes.callback_data)];
    const rotated = await chat.next((t) => KEY.test(t));
    const newKey = KEY.exec(rotated.text)![0];
    expect(newKey).not.toBe(oldKey);
    // Both taps handled: whatever the second would issue is out by now.
    await handled(h.service.db, taps);
    expect((await chat.messages()).filter((m) => m.from_bot && KEY.test(m.text))).toHaveLength(2);
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(401);
    expect(await h.balance(newKey)).toBe(12);
  });

  it("rotates with a grace period: the old key answers until the end the bot shows, which a tap ends at once", async () => {
    const chat = user();
    const oldKey = await register(chat, 3);
    await chat.tap("New API key");
    const ask = await chat.next((t) => t.includes("keep working for a while"));
    expect(ask.reply_markup!.inline_keyboard.flat().map((b) => b.text)).toEqual([
      "🔑 New key, the old one stops now",
      "🔑 New key, the old one works 1 hour more",
      "🔑 New key, the old one works 24 hours more",
      "🔑 New key, the old one works 7 days more",
      "Keep my current key",
    ]);
    await chat.tap("works 24 hours more");
    const rotated = await chat.next((t) => KEY.test(t));
    const newKey = KEY.exec(rotated.text)![0];
    const until = new Date(h.clock.now().getTime() + 24 * 3_600_000).toISOString().slice(0, 13);
    expect(rotated.text).toContain(`The old one (${oldKey.slice(0, 11)}…) keeps working until ${until.replace("T", " ")}`);
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(200);
    expect(await h.balance(newKey)).toBe(3);

    // "New API key" again tells the old key's end and offers to stop it now.
    await chat.tap("New API key");
    const again = await chat.next((t) => t.includes("Your previous key"));
    expect(again.text).toContain(`Your previous key ${oldKey.slice(0, 11)}… still works until ${until.replace("T", " ")}`);
    await chat.tap("Stop the previous key now");
    await chat.next((t) => t.includes("only the current key works now"));
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(401);
    expect(await h.balance(newKey)).toBe(3);
  });

  it("offers the grace choice in Russian too", async () => {
    const chat = user(undefined, "ru");
    const oldKey = KEY.exec((await chat.reply("/start", (t) => KEY.test(t))).text)![0];
    await chat.next((t) => t.includes("Что вы хотите сделать?"));
    await chat.tap("Новый API-ключ");
    await chat.next((t) => t.includes("без простоя"));
    await chat.tap("старый работает ещё 1 час");
    const rotated = await chat.next((t) => KEY.test(t));
    expect(rotated.text).toContain(`Старый (${oldKey.slice(0, 11)}…) работает до`);
    await chat.tap("Отключить прежний ключ сейчас");
    await chat.next((t) => t.includes("работает только текущий"));
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(401);
  });

  it("tells a blocked account it is blocked, and nothing else", async () => {
    const chat = user();
    await register(chat);
    await h.service.core.admin.setBlocked(String(chat.user.id), true, "test");
    expect((await chat.reply("/balance", () => true)).text).toContain("blocked");
    await chat.tap("Stars").catch(() => undefined);
    expect((await chat.next()).text).toContain("blocked");
    await h.service.core.admin.setBlocked(String(chat.user.id), false, "test");
  });

  it("answers in a group only with a request to open a private chat", async () => {
    const member = user();
    const group = new EmulatedChat(emulator.url, member.user, -4_000_000_001);
    const answer = await group.reply("/start");
    expect(answer.text).toContain("private chat");
    expect(answer.text).not.toMatch(KEY);
    expect(await h.service.core.accounts.botCaller(String(member.user.id))).toBeUndefined();
  });
});

describe("stars and premium", () => {
  it("buys stars for another user step by step, and a double-tapped Confirm charges once", async () => {
    const chat = user();
    const key = await register(chat, 10);
    await chat.tap("Stars");
    await chat.next((t) => t.includes("Who is it for?"));
    expect((await chat.reply("not a name!", (t) => t.includes("not a username"))).text).toContain("3 to 32");
    expect((await chat.reply("@missing_zed", (t) => t.includes("cannot send to"))).text).toContain("@missing_zed");
    expect((await chat.reply("@alice", (t) => t.includes("How many stars?"))).text).toContain("Alice (@alice)");
    expect((await chat.reply("49", (t) => t.includes("whole number"))).text).toContain("50");
    const confirm = await chat.reply("200", (t) => t.includes("Confirm?"));
    expect(confirm.text).toContain("200 stars for @alice");
    expect(confirm.text).toContain("Charge: 3.00 USDT");
    expect(confirm.text).toContain("Balance after: 7.00 USDT");
    const ok = confirm.reply_markup!.inline_keyboard.flat().find((b) => b.text.includes("Confirm")) as { callback_data: string };
    const taps = [await chat.tapData(confirm.message_id, ok.callback_data), await chat.tapData(confirm.message_id, ok.callback_data)];
    const done = await chat.next((t) => t.includes("Done!"));
    expect(done.text).toContain("Balance: 7.00 USDT");
    // Both taps handled: a second order would be placed by now.
    await handled(h.service.db, taps);
    expect(await orders(chat.user.id)).toHaveLength(1);
    expect(await h.balance(key)).toBe(7);
  });

  it("reads the account once per update through a whole flow, not again for every earlier step the flow replays", async () => {
    const chat = user();
    await register(chat, 10);
    const accounts = h.service.core.accounts;
    const botCaller = accounts.botCaller;
    let reads = 0;
    accounts.botCaller = (telegramId) => ((reads += 1), botCaller(telegramId));
    try {
      await chat.tap("Stars");
      await chat.next((t) => t.includes("Who is it for?"));
      await chat.reply("@alice", (t) => t.includes("How many stars?"));
      const confirm = await chat.reply("100", (t) => t.includes("Confirm?"));
      const ok = confirm.reply_markup!.inline_keyboard.flat().find((b) => b.text.includes("Confirm")) as { callback_data: string };
      await chat.tapData(confirm.message_id, ok.callback_data);
      expect((await chat.next((t) => t.includes("Done!"))).text).toContain("Balance: 8.50 USDT");
    } finally {
      accounts.botCaller = botCaller;
    }
    // Four updates, one read each, and the flow's own read of the buyer when it starts (15 before: each update's
    // conversation rebuilt the earlier steps' contexts, and each of those read the account for its language).
    expect(reads).toBe(5);
  });

  it("reports a failed delivery and its refund", async () => {
    const chat = user();
    const key = await register(chat, 10);
    await chat.tap("Stars");
    await chat.reply("fail_bob", (t) => t.includes("How many stars?"));
    await chat.tap("100");
    await chat.next((t) => t.includes("Confirm?"));
    await chat.tap("Confirm");
    const failed = await chat.next((t) => t.includes("failed"));
    expect(failed.text).toContain("1.50 USDT were refunded");
    expect(await h.balance(key)).toBe(10);
  });

  it("buys premium for the user themself and says when the profile already has Premium", async () => {
    const chat = user("premium_pat");
    const key = await register(chat, 20);
    await chat.tap("Premium");
    await chat.next((t) => t.includes("Who is it for?"));
    await chat.tap("Myself");
    expect((await chat.next((t) => t.includes("already has Premium"))).text).toContain("@premium_pat");
    await chat.tap("6 months");
    expect((await chat.next((t) => t.includes("Confirm?"))).text).toContain("15.99 USDT");
    await chat.tap("Confirm");
    await chat.next((t) => t.includes("Done!"));
    expect(await h.balance(key)).toBe(4.01);
  });

  it("stops before the confirmation when the balance is short", async () => {
    const chat = user();
    await register(chat, 1);
    await chat.tap("Stars");
    await chat.reply("@alice", (t) => t.includes("How many stars?"));
    expect((await chat.reply("100", (t) => t.includes("Not enough"))).text).toContain("1.50 USDT");
    expect(await orders(chat.user.id)).toHaveLength(0);
  });
});

describe("leaving and resuming", () => {
  it("/cancel and the Cancel button leave a flow at any step, with nothing charged", async () => {
    const chat = user();
    const key = await register(chat, 10);
    await chat.tap("Stars");
    await chat.reply("@alice", (t) => t.includes("How many stars?"));
    expect((await chat.reply("/cancel", (t) => t.includes("Cancelled"))).text).toContain("Nothing was charged");
    expect((await chat.reply("100", (t) => t.includes("did not understand"))).text).toBeTruthy();

    await chat.tap("Stars");
    await chat.reply("@alice", (t) => t.includes("How many stars?"));
    await chat.reply("100", (t) => t.includes("Confirm?"));
    await chat.tap("Cancel");
    await chat.next((t) => t.includes("Cancelled"));
    expect(await orders(chat.user.id)).toHaveLength(0);
    expect(await h.balance(key)).toBe(10);
  });

  it("a command leaves the flow and runs", async () => {
    const chat = user();
    await register(chat, 3);
    await chat.tap("Stars");
    await chat.next((t) => t.includes("Who is it for?"));
    expect((await chat.reply("/balance", (t) => t.includes("Balance:"))).text).toContain("3.00 USDT");
    expect((await chat.reply("@alice", (t) => t.includes("did not understand"))).text).toBeTruthy();
  });

  it("resumes a flow where it was after the service restarts", async () => {
    const chat = user();
    const key = await register(chat, 10);
    await chat.tap("Stars");
    await chat.reply("@alice", (t) => t.includes("How many stars?"));
    await h.restart();
    const confirm = await chat.reply("100", (t) => t.includes("Confirm?"));
    expect(confirm.text).toContain("100 stars for @alice");
    await chat.tap("Confirm");
    await chat.next((t) => t.includes("Done!"));
    expect(await h.balance(key)).toBe(8.5);
  });
});
