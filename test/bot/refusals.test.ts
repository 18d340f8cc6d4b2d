import { describe, expect, it } from "vitest";
import type { Refusal } from "../../src/core/model/errors.js";
import { micro, microUsd } from "../../src/core/model/money.js";
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

const needed = micro(1_500_000);
const balance = micro(250_000);
/** One refusal of every shape the core makes (src/core/model/errors.ts), each with the details its code carries. */
const REFUSALS: Refusal[] = [
  ...(["invalid_input", "unauthorized", "key_blocked", "forbidden", "not_found", "upstream_failed", "unavailable"] as const).map((code) => ({
    code,
    details: {},
  })),
  { code: "insufficient_funds", details: { requiredMicro: needed, balanceMicro: balance } },
  { code: "rate_limited", details: { retryAfterSeconds: 30 } },
  { code: "invalid_input", details: { reason: "invalid_amount", minMicro: microUsd(5_000_000), maxMicro: microUsd(500_000_000) } },
  { code: "invalid_input", details: { reason: "price_changed", requiredMicro: needed } },
  ...(["login_not_supported", "recipient_refuses", "quote_not_found", "quote_expired", "quote_used", "quote_mismatch"] as const).map((reason) => ({
    code: "invalid_input" as const,
    details: { reason },
  })),
  { code: "not_found", details: { reason: "order_not_found" } },
  ...(["disabled", "provider_unavailable", "provider_balance", "database_unavailable"] as const).map((reason) => ({
    code: "unavailable" as const,
    details: { reason },
  })),
];
const CYRILLIC = /[А-Яа-яЁё]/;

describe("refusals in the bot", () => {
  it("has a Russian and an English text for every kind of refusal, its amounts filled in, never the core's English message", () => {
    const i18n = h.service.bot!.i18n;
    for (const refusal of REFUSALS) {
      const ru = refusalText((key, vars) => i18n.t("ru", key, vars), refusal);
      const en = refusalText((key, vars) => i18n.t("en", key, vars), refusal);
      const label = JSON.stringify(refusal);
      expect(ru, label).toMatch(CYRILLIC);
      expect(ru, label).not.toMatch(/reason-|refused-|refusal|\{\s*\$/);
      expect(en, label).not.toMatch(CYRILLIC);
      expect(en, label).not.toMatch(/reason-|refused-|refusal|\{\s*\$/);
      expect(ru, label).not.toBe(en);
    }
    const en = (refusal: Refusal) => refusalText((key, vars) => i18n.t("en", key, vars), refusal);
    expect(en(REFUSALS.find((r) => r.code === "insufficient_funds")!)).toContain("this needs 1.50 USDT and you have 0.25 USDT");
    expect(
      en({ code: "invalid_input", details: { reason: "invalid_amount", minMicro: microUsd(5_000_000), maxMicro: microUsd(500_000_000) } }),
    ).toContain("from 5.00 to 500.00 USD");
  });

  it("has a Russian and an English text for every reason an order fails with", () => {
    const i18n = h.service.bot!.i18n;
    for (const reason of REASONS) {
      const vars = { needed: "1.50", min: "5.00", max: "500.00" };
      const [ru, en] = [i18n.t("ru", `reason-${reason}`, vars), i18n.t("en", `reason-${reason}`, vars)];
      expect(ru, reason).toMatch(CYRILLIC);
      expect(en, reason).not.toMatch(CYRILLIC);
      expect(en, reason).not.toMatch(/^reason-/);
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
