import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// Top-ups paid in Telegram Stars, on this engine, through the Bot API emulator: Telegram's checkout answered by the
// bot, the successful_payment credited once per charge (doubled, lost), refunds by an administrator and by Telegram.
// At STAR_COST_USDT 0.01 a Star credits 0.01 USDT: 200 Stars are 2 USDT.

const ADMIN = { telegramId: "780000999", name: "ops" };
let bots: BotHarness;
let h: Harness;
let stars: EmulatedStars;
useBotHarness(780_000_001, { env: { STAR_COST_USDT: "0.01", TOPUP_POLL_MS: "60000" }, books: true }, (started) => {
  bots = started;
  h = started.h;
  stars = new EmulatedStars(bots.emulatorUrl);
});

const account = async (telegramId: string) => (await h.service.core.accounts.byTelegramId(telegramId))!;
const balance = async (telegramId: string) => (await account(telegramId)).balanceMicro;
const book = () => h.service.db.selectFrom("star_book").selectAll().orderBy("id").execute();

/** A Stars top-up the user pays through its link (as the Mini App's openInvoice does). */
async function payLink(chat: EmulatedChat, telegramId: string, count: number) {
  const made = await h.service.core.topups.starsLink(await account(telegramId), count);
  const attempt = await chat.pay(made.link);
  return { topup: made.topup, attempt };
}

describe("Stars top-ups", () => {
  it("credit a payment once, whatever Telegram delivers twice or loses", async () => {
    const { chat, telegramId } = await bots.registered(0);
    const { topup, attempt } = await payLink(chat, telegramId, 200);
    expect(attempt).toMatchObject({ status: "paid", delivered: "once" });
    await eventually(async () => ((await balance(telegramId)) === 2_000_000 ? true : undefined));
    const credited = await h.service.core.topups.get(await account(telegramId), topup.id);
    expect(credited).toMatchObject({
      status: "credited",
      method: "stars",
      stars: 200,
      creditedMicro: 2_000_000,
      chargeId: attempt.telegram_payment_charge_id,
    });

    await stars.nextDelivery("twice");
    const twice = await payLink(chat, telegramId, 150);
    expect(twice.attempt.delivered).toBe("twice");
    await eventually(async () => ((await balance(telegramId)) === 3_500_000 ? true : undefined));

    await stars.nextDelivery("dropped");
    const lost = await payLink(chat, telegramId, 100);
    expect(lost.attempt).toMatchObject({ status: "paid", delivered: "dropped" });
    expect(await balance(telegramId)).toBe(3_500_000);
    expect(await h.service.core.topups.settleStars()).toMatchObject({ credited: 1 });
    expect(await balance(telegramId)).toBe(4_500_000);
    // Settling again finds nothing more.
    expect(await h.service.core.topups.settleStars()).toMatchObject({ credited: 0 });
    expect(await balance(telegramId)).toBe(4_500_000);
    const payments = (await book()).filter((e) => e.user_id === telegramId);
    expect(payments.map((e) => Number(e.stars))).toEqual([200, 150, 100]);
  });

  it("refuse at checkout what cannot be credited: a blocked account, an amount past the day's bound", async () => {
    const { chat, telegramId } = await bots.registered(0);
    const made = await h.service.core.topups.starsLink(await account(telegramId), 300);
    await h.service.core.admin.setBlocked(telegramId, true, "test");
    const attempt = await chat.pay(made.link);
    expect(attempt).toMatchObject({ status: "failed", outcome: "refused", error_message: "This account is blocked: ask support." });
    expect(await balance(telegramId)).toBe(0);
  });

  it("refund by an administrator once, and refuse a refund of a credit already spent", async () => {
    const { chat, telegramId } = await bots.registered(0);
    const { topup } = await payLink(chat, telegramId, 200);
    await eventually(async () => ((await balance(telegramId)) === 2_000_000 ? true : undefined));
    const refunded = await h.service.core.topups.refundStars(topup.id, ADMIN);
    expect(refunded).toMatchObject({ status: "refunded", reversedMicro: 2_000_000 });
    expect(await balance(telegramId)).toBe(0);
    await expect(h.service.core.topups.refundStars(topup.id, ADMIN)).rejects.toThrow(/refunded already/);

    const second = await payLink(chat, telegramId, 300);
    await eventually(async () => ((await balance(telegramId)) === 3_000_000 ? true : undefined));
    await h.service.core.admin.debit(telegramId, micro(2_000_000), "test", { note: "spent" });
    await expect(h.service.core.topups.refundStars(second.topup.id, ADMIN)).rejects.toThrow(/already spent/);
    expect(await balance(telegramId)).toBe(1_000_000);
  });

  it("take back what a refund Telegram made on its own can, and say what it could not", async () => {
    const { chat, telegramId } = await bots.registered(0);
    const { attempt } = await payLink(chat, telegramId, 500);
    await eventually(async () => ((await balance(telegramId)) === 5_000_000 ? true : undefined));
    await h.service.core.admin.debit(telegramId, micro(4_000_000), "test", { note: "spent" });
    await stars.dispute(attempt.telegram_payment_charge_id!);
    await eventually(async () => ((await balance(telegramId)) === 0 ? true : undefined));
    const entries = (await book()).filter((e) => e.transaction_id === attempt.telegram_payment_charge_id);
    expect(entries.map((e) => [e.kind, Number(e.stars)])).toEqual([
      ["payment", 500],
      ["refund", -500],
    ]);
  });
});

describe("an unpaid Stars top-up cancelled", () => {
  it("no longer counts among the open ones, and is refused at checkout", async () => {
    const { chat, telegramId } = await bots.registered(0);
    const me = await account(telegramId);
    const closed = [];
    // More than the open bound (TOPUP_OPEN_INVOICES_MAX, 3): each one closed unpaid is cancelled and frees its place.
    for (let i = 0; i < 4; i++) {
      const made = await h.service.core.topups.starsLink(me, 100);
      closed.push(await h.service.core.topups.cancel(me, made.topup.id));
    }
    expect(closed.map((t) => t.status)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled"]);
    const refused = await chat.pay(
      (await h.service.db.selectFrom("topups").select("pay_url").where("id", "=", closed[0]!.id).executeTakeFirstOrThrow()).pay_url!,
    );
    expect(refused).toMatchObject({ status: "failed", outcome: "refused" });
    expect(await balance(telegramId)).toBe(0);
  });
});
