import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { BotHarness, Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";
import { FAST_WEBHOOKS, type Receiver, refusalOf, startReceiver } from "../support/receiver.js";

// /webhook in the bot: set it by URL, see the secret once, test it, rotate, remove; told when deliveries give up.

let bots: BotHarness;
let h: Harness;
let receiver: Receiver;

useBotHarness(670_000_001, { env: { ...FAST_WEBHOOKS, WEBHOOK_RETRY_FOR_MS: "1500" }, books: true }, async (started) => {
  bots = started;
  h = started.h;
  receiver = await startReceiver();
});
afterEach(() => {
  receiver.behaviour = () => ({ status: 200 });
});
afterAll(async () => receiver.close());

const SECRET = /whsec_[A-Za-z0-9_-]{43}/;

describe("/webhook", () => {
  it("sets the endpoint, shows the secret once, pings it, rotates the secret and removes it", async () => {
    const { chat } = await bots.registered(0);
    expect((await chat.reply("/webhook", (t) => t.includes("No webhook"))).text).toContain("/webhook https://");
    expect((await chat.reply("/webhook http://10.0.0.5/hook", (t) => t.includes("cannot receive"))).text).toContain("https://");

    const set = await chat.reply(`/webhook ${receiver.url}`, (t) => t.includes("Webhook set"));
    const secret = SECRET.exec(set.text)![0];
    const status = await chat.reply("/webhook", (t) => t.includes("Enabled"));
    expect(status.text).toContain(receiver.url);
    expect(status.text).not.toContain("whsec_");

    await chat.tap("Send a test");
    expect((await chat.next((t) => t.includes("Test event"))).text).toMatch(/delivered: HTTP 200 in \d+ ms/);
    const ping = receiver.received.at(-1)!;
    expect(ping.json).toMatchObject({ type: "ping", test: true });
    expect(refusalOf(ping, secret)).toBeNull();

    await chat.reply("/webhook", (t) => t.includes("Enabled"));
    await chat.tap("New secret");
    const rotated = await chat.next((t) => t.includes("new signing secret"));
    const fresh = SECRET.exec(rotated.text)![0];
    expect(fresh).not.toBe(secret);

    // During the overlap both secrets sign; the old one can be stopped at once.
    await chat.reply("/webhook", (t) => t.includes("Enabled"));
    await chat.tap("Stop the old secret now");
    await chat.next((t) => t.includes("no longer signs"));
    await chat.tap("Send a test");
    await chat.next((t) => t.includes("Test event"));
    const signed = receiver.received.at(-1)!;
    expect(refusalOf(signed, fresh)).toBeNull();
    expect(refusalOf(signed, secret)).toBe("forged");
    expect((await chat.reply("/webhook", (t) => t.includes("Enabled"))).reply_markup?.inline_keyboard.flat().map((b) => b.text)).not.toContain(
      "🚫 Stop the old secret now",
    );

    await chat.reply("/webhook", (t) => t.includes("Enabled"));
    await chat.tap("Remove");
    await chat.next((t) => t.includes("Remove the webhook?"));
    await chat.tap("Yes, remove it");
    await chat.next((t) => t.includes("Webhook removed"));
    await chat.reply("/webhook", (t) => t.includes("No webhook"));
  });

  it("tells the owner, in their language, when deliveries gave up and the endpoint was disabled", async () => {
    const { chat, key } = await bots.registered(10, { language_code: "ru" });
    await chat.reply(`/webhook ${receiver.url}`, (t) => t.includes("Вебхук задан"));
    receiver.behaviour = () => ({ status: 500 });
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    expect(bought.status).toBe(200);
    // Once an attempt has failed, the service's clock is moved past the retry period instead of waiting it out.
    await receiver.waitFor((r) => r.json.data?.order?.order_id === bought.body.order_id);
    h.clock.advance(1_500);
    const notice = await chat.next((t) => t.includes("отключён"), 15_000).finally(() => h.clock.reset());
    expect(notice.text).toContain(receiver.url);
    expect(notice.text).toContain("HTTP 500");
    expect((await chat.reply("/webhook", (t) => t.includes("Включён"))).text).toContain("Включён: нет");
  });
});
