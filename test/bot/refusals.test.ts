import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../../src/core/model/errors.js";
import { REASONS } from "../../src/core/model/reasons.js";
import { refusalText } from "../../src/bot/refusals.js";
import type { BotHarness, Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

let bots: BotHarness;
let h: Harness;
useBotHarness(640_000_001, { books: true }, (started) => {
  bots = started;
  h = started.h;
});

const registered = (usdt: number, username?: string, language_code?: string) => bots.registered(usdt, { username, language_code });

async function balanceOf(telegramId: string) {
  return (await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro / 1e6;
}

const CODES: ErrorCode[] = [
  "invalid_input",
  "unauthorized",
  "key_blocked",
  "forbidden",
  "not_found",
  "insufficient_funds",
  "rate_limited",
  "upstream_failed",
  "unavailable",
];
const CYRILLIC = /[А-Яа-яЁё]/;

describe("refusals in the bot", () => {
  it("has a Russian and an English text for every reason and every kind of refusal, never the core's English message", () => {
    const i18n = h.service.bot!.i18n;
    const refusals = [
      ...REASONS.map((reason) => ({ code: "invalid_input" as const, details: { reason, requiredMicro: 1_500_000 } })),
      ...CODES.map((code) => ({ code, details: {} })),
    ];
    for (const refusal of refusals) {
      const ru = refusalText((key, vars) => i18n.t("ru", key, vars), refusal);
      const en = refusalText((key, vars) => i18n.t("en", key, vars), refusal);
      const label = JSON.stringify(refusal);
      expect(ru, label).toMatch(CYRILLIC);
      expect(ru, label).not.toMatch(/reason-|refused-|refusal/);
      expect(en, label).not.toMatch(CYRILLIC);
      expect(en, label).not.toMatch(/reason-|refused-|refusal/);
      expect(ru, label).not.toBe(en);
    }
  });

  it("tells a Russian user why in Russian: a short balance, a refusing gift recipient, a provider that is down", async () => {
    const poor = await registered(1, undefined, "ru");
    await poor.chat.say("/stars");
    await poor.chat.next((t) => t.includes("@username"));
    await poor.chat.reply("@alice", (t) => t.includes("50"));
    expect((await poor.chat.reply("100", (t) => t.includes("Недостаточно"))).text).toContain("1.50 USDT");

    const giver = await registered(5, undefined, "ru");
    await giver.chat.say("/gifts");
    await giver.chat.next((t) => CYRILLIC.test(t) && t.includes("?"));
    await giver.chat.tap("🌹");
    await giver.chat.next((t) => t.includes("@username"));
    const refused = await giver.chat.reply("@refuse_rita", (t) => t.includes("не принимает подарки"));
    expect(refused.text).toContain("ничего не списано");
    expect(refused.text).not.toMatch(/does not accept|nothing was charged/);
    expect(await balanceOf(giver.telegramId)).toBe(5);

    await h.fault("store", "down");
    try {
      const shopper = await registered(5, undefined, "ru");
      await shopper.chat.say("/store");
      const down = await shopper.chat.next((t) => t.includes("недоступен"));
      expect(down.text).not.toMatch(/unavailable|retry/);
    } finally {
      await h.fault("store", "ok");
    }
  });
});

describe("the confirmed price", () => {
  it("charges nothing when the price moves between the quote and Confirm, shows the new one, and buys at it once confirmed", async () => {
    const { chat, telegramId } = await registered(50);
    await chat.say("/store");
    await chat.next((t) => t.includes("login"));
    await chat.reply("gabe_q", (t) => t.includes("How much to add"));
    const first = await chat.reply("10", (t) => t.includes("Confirm?"));
    expect(first.text).toContain("Total: 10.61 USDT");

    // An administrator raises the user's markup while the confirmation is on screen.
    await h.service.core.admin.setMarkup(telegramId, "store", 1000, "test");
    await chat.tap("Confirm");
    expect((await chat.next((t) => t.includes("price changed"))).text).toContain("from 10.61 to 11.33 USDT");
    const second = await chat.next((t) => t.includes("Confirm?"));
    expect(second.text).toContain("Total: 11.33 USDT");
    expect(await balanceOf(telegramId)).toBe(50);
    expect(await h.service.core.orders.list((await h.service.core.accounts.byTelegramId(telegramId))!.id, 10)).toHaveLength(0);

    // The Confirm of the old price buys nothing; the new one buys at the new price.
    const old = first.reply_markup!.inline_keyboard.flat().find((b) => b.text.includes("Confirm"))!;
    await chat.tapData(first.message_id, (old as { callback_data: string }).callback_data);
    await chat.next((t) => t.includes("Tap Confirm or Cancel"));
    expect(await balanceOf(telegramId)).toBe(50);
    await chat.tap("Confirm");
    expect((await chat.next((t) => t.includes("Done!"))).text).toContain("charged 11.33 USDT");
    expect(await balanceOf(telegramId)).toBe(38.67);
  });
});
