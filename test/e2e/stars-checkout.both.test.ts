import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EmulatedStars } from "../../src/emulator/client.js";
import { slowTelegram } from "../support/bot-replies.js";
import { type BotHarness, eventually, startBotHarness } from "../support/harness.js";
import { relayWebhook, topupLedger } from "../support/stars.js";

// Telegram's checkout behind a backlog, on this engine: the payer's own chat has 200 updates waiting in the bot's
// inbox (every reply of the bot held 2 s at Telegram), Telegram's wait for the pre-checkout answer is shortened to
// 3 s, and the payer pays a Stars top-up. The answer must not queue behind the backlog: the payment goes through,
// and the successful_payment, which waits its turn in the chat, credits once the backlog drains. Polling, and the
// webhook (Telegram's posting played by the test).

const BACKLOG = 200;
const CHECKOUT_MS = 3_000;
const HELD_MS = 2_000;
const SECRET = "webhook-secret-for-the-stars-checkout";

/** The payer's updates stored in the inbox and not handled yet. */
async function waiting(bots: BotHarness, chat: string): Promise<number> {
  const rows = await bots.h.service.db.selectFrom("bot_inbox").select("update_id").where("chat", "=", chat).where("done_at", "is", null).execute();
  return rows.length;
}

async function payBehindBacklog(bots: BotHarness) {
  const { h } = bots;
  const stars = new EmulatedStars(bots.emulatorUrl);
  const { chat, telegramId } = await bots.registered(0);
  const account = (await h.service.core.accounts.byTelegramId(telegramId))!;
  const balance = async () => (await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro;
  try {
    // The bot's every reply is held at Telegram: its handling of the payer's chat crawls, one update at a time.
    await slowTelegram(bots.emulatorUrl, HELD_MS, "sendMessage", "at-once");
    await Promise.all(Array.from({ length: BACKLOG }, (_, n) => chat.say(`hello ${n + 1}`)));
    await eventually(async () => ((await waiting(bots, telegramId)) >= BACKLOG - 5 ? true : undefined), 20_000);

    await stars.setCheckoutTimeout(CHECKOUT_MS);
    const { topup, link } = await h.service.core.topups.starsLink(account, 200);
    const attempt = await chat.pay(link);
    // Answered within Telegram's (shortened) wait while the backlog still waited: the payment went through.
    expect(attempt).toMatchObject({ status: "paid", outcome: "paid" });
    expect(await waiting(bots, telegramId)).toBeGreaterThanOrEqual(BACKLOG - 10);
    // Nothing credits but the successful_payment, which waits its turn behind the backlog.
    expect(await balance()).toBe(0);

    // Telegram answers at once again: the backlog drains, then the payment is credited.
    await slowTelegram(bots.emulatorUrl, 0, "sendMessage");
    await eventually(async () => ((await balance()) === 2_000_000 ? true : undefined), 60_000);
    await eventually(async () => ((await waiting(bots, telegramId)) === 0 ? true : undefined), 20_000);
    expect(await balance()).toBe(2_000_000);
    expect(await topupLedger(h.service.db, topup.id)).toEqual([["topup", 2_000_000]]);
    expect(await h.service.core.topups.get(account, topup.id)).toMatchObject({ status: "credited", chargeId: attempt.telegram_payment_charge_id });
    // Every message of the backlog was stored and handled, none lost.
    const backlog = await h.service.db
      .selectFrom("bot_inbox")
      .select("done_at")
      .where("chat", "=", telegramId)
      .where("payload", "like", '%"text":"hello %')
      .execute();
    expect(backlog).toHaveLength(BACKLOG);
    expect(backlog.every((row) => row.done_at !== null)).toBe(true);
  } finally {
    await slowTelegram(bots.emulatorUrl, 0, "sendMessage");
    await stars.setCheckoutTimeout();
  }
}

describe("a pre-checkout behind 200 waiting updates, long polling", () => {
  let bots: BotHarness;
  beforeAll(async () => {
    // The scheduled look at the bot's transactions stays out of the way: only the successful_payment credits here.
    bots = await startBotHarness(781_000_001, {}, { STAR_COST_USDT: "0.01", TOPUP_POLL_MS: "600000" });
  });
  afterEach(async () => bots.h.assertLedgerInvariant());
  afterAll(async () => bots.close());

  it("is answered in time, and the payment is credited once the backlog drains", async () => payBehindBacklog(bots), 120_000);

  it("is not held by Telegram holding the answer to another: the next payment goes through, and both are credited", async () => {
    const stars = new EmulatedStars(bots.emulatorUrl);
    const first = await bots.registered(0);
    const second = await bots.registered(0);
    const account = async (telegramId: string) => (await bots.h.service.core.accounts.byTelegramId(telegramId))!;
    // Telegram takes each answer at once (the payment goes on) but holds its reply 15 s, past Telegram's own wait.
    await slowTelegram(bots.emulatorUrl, 15_000, "answerPreCheckoutQuery", "at-once");
    await stars.setCheckoutTimeout(CHECKOUT_MS);
    try {
      const one = await bots.h.service.core.topups.starsLink(await account(first.telegramId), 100);
      expect(await first.chat.pay(one.link)).toMatchObject({ status: "paid" });
      const two = await bots.h.service.core.topups.starsLink(await account(second.telegramId), 150);
      expect(await second.chat.pay(two.link)).toMatchObject({ status: "paid" });
      // Both successful_payments reach the bot meanwhile, long before the held replies.
      await eventually(async () => ((await account(first.telegramId)).balanceMicro === 1_000_000 ? true : undefined), 5_000);
      await eventually(async () => ((await account(second.telegramId)).balanceMicro === 1_500_000 ? true : undefined), 5_000);
    } finally {
      await slowTelegram(bots.emulatorUrl, 0, "answerPreCheckoutQuery");
      await stars.setCheckoutTimeout();
    }
  }, 60_000);
});

describe("a pre-checkout behind 200 waiting updates, webhook", () => {
  let bots: BotHarness;
  let relay: ReturnType<typeof relayWebhook>;
  beforeAll(async () => {
    bots = await startBotHarness(
      781_100_001,
      {},
      {
        STAR_COST_USDT: "0.01",
        TOPUP_POLL_MS: "600000",
        BOT_WEBHOOK_URL: "https://bot.example.invalid/telegram/webhook",
        BOT_WEBHOOK_SECRET: SECRET,
      },
    );
    relay = relayWebhook(bots.emulatorUrl, async (update) => {
      const response = await bots.h.api.inject({
        method: "POST",
        url: "/telegram/webhook",
        headers: { "x-telegram-bot-api-secret-token": SECRET },
        payload: update,
      });
      return response.statusCode;
    });
  });
  afterEach(async () => bots.h.assertLedgerInvariant());
  afterAll(async () => {
    await relay?.stop();
    await bots?.close();
  });

  it("is answered in time, and the payment is credited once the backlog drains", async () => payBehindBacklog(bots), 120_000);
});
