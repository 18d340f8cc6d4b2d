import { afterEach, describe, expect, it } from "vitest";
import { DomainError } from "../../src/core/model/errors.js";
import { EmulatedStars } from "../../src/emulator/client.js";
import { slowTelegram } from "../support/bot-replies.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { http } from "../support/processes.js";
import { botStars, refundsAtTelegram, topupLedger } from "../support/stars.js";
import { useBotHarness } from "../support/use-harness.js";

// An administrator's refund of a Stars top-up, on this engine, through the Bot API emulator: racing a purchase
// that needs the same money (exactly one wins, the other is refused cleanly, and Telegram refunds only when the
// refund won); refused by Telegram (the credit comes back, and a later refund works); and with Telegram's answer
// lost (the refund stays under way, and a second call or the scheduled look finishes it without refunding twice).
// At STAR_COST_USDT 0.01 a Star credits 0.01 USDT; 100 stars bought cost 1.50 USDT (STARS_USDT_PER_STAR 0.015).

const ADMIN = { telegramId: "784000999", name: "ops" };
const UPSTREAM_TIMEOUT_MS = 1_000;
let bots: BotHarness;
let h: Harness;
let stars: EmulatedStars;
useBotHarness(784_000_001, { env: { STAR_COST_USDT: "0.01", TOPUP_POLL_MS: "600000" } }, async (started) => {
  bots = started;
  h = started.h;
  stars = new EmulatedStars(bots.emulatorUrl);
  await stars.setBalance(1_000_000);
});
afterEach(async () => {
  await stars.setBalance(1_000_000);
  await h.assertLedgerInvariant();
});

const balance = async (telegramId: string) => (await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro;
async function topupRow(id: number) {
  const row = await h.service.db.selectFrom("topups").select(["status", "reversed_micro"]).where("id", "=", id).executeTakeFirstOrThrow();
  return { status: row.status, reversed_micro: row.reversed_micro === null ? null : Number(row.reversed_micro) };
}
const slow = (method: string, ms: number, takesEffect: "at-once" | "when-answered") =>
  http("POST", `${bots.emulatorUrl}/emulator/slow`, undefined, { method, ms, takes_effect: takesEffect });
const late = async () => ((await http("GET", `${bots.emulatorUrl}/emulator/late`)).body.waiting_ms as number[]).length;

/** Once the refunded_payment Telegram sent to the payer's chat has been handled by the bot. */
const refundUpdateHandled = (telegramId: string) =>
  eventually(async () => {
    const row = await h.service.db
      .selectFrom("bot_inbox")
      .select("done_at")
      .where("chat", "=", telegramId)
      .where("payload", "like", "%refunded_payment%")
      .executeTakeFirst();
    return row?.done_at ? true : undefined;
  }, 20_000);

/** A registered user who paid a Stars top-up of `count` Stars, credited. */
async function paidTopup(count: number) {
  const { chat, key, telegramId } = await bots.registered(0);
  const account = (await h.service.core.accounts.byTelegramId(telegramId))!;
  const { topup, link } = await h.service.core.topups.starsLink(account, count);
  const attempt = await chat.pay(link);
  expect(attempt.status).toBe("paid");
  await eventually(async () => ((await balance(telegramId)) === count * 10_000 ? true : undefined));
  return { chat, key, telegramId, topup, chargeId: attempt.telegram_payment_charge_id! };
}

/** How the refund ended: done, or refused with its message. */
const outcome = (refund: Promise<unknown>) =>
  refund.then(
    () => ({ refunded: true as const }),
    (error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
      return { refunded: false as const, code: error.code, message: error.message };
    },
  );

describe("an administrator's refund of a Stars top-up", () => {
  it("racing a purchase that needs the same money: exactly one wins, and the books and Telegram agree", async () => {
    const won = { refund: 0, purchase: 0 };
    for (let round = 0; round < 10; round++) {
      const p = await paidTopup(200);
      const after = <T>(ms: number, start: () => Promise<T>) => new Promise((resolve) => setTimeout(resolve, ms)).then(start);
      // In turns, one starts first and the other 0 to 4 ms later: the rounds sweep across the moment both debit.
      const lag = round >> 1;
      const [refunded, bought] = await Promise.all([
        after(round % 2 ? lag : 0, () => outcome(h.service.core.topups.refundStars(p.topup.id, ADMIN))),
        after(round % 2 ? 0 : lag, () =>
          h.call("POST", "/v1/stars", { key: p.key, body: { username: "@alice", stars: 100, idempotency_key: `race-${round}` } }),
        ),
      ]);

      if (refunded.refunded) {
        won.refund += 1;
        expect(bought.status).toBe(402);
        expect(bought.body).toMatchObject({ success: false, required_usdt: 1.5, balance_usdt: 0 });
        expect(await balance(p.telegramId)).toBe(0);
        expect(await topupRow(p.topup.id)).toEqual({ status: "refunded", reversed_micro: 2_000_000 });
        expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
          ["topup", 2_000_000],
          ["reversal", -2_000_000],
        ]);
        expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(1);
      } else {
        won.purchase += 1;
        expect(bought.status).toBe(200);
        expect(refunded).toMatchObject({ code: "invalid_input", message: expect.stringMatching(/is already spent/) });
        expect(await balance(p.telegramId)).toBe(500_000);
        expect(await topupRow(p.topup.id)).toEqual({ status: "credited", reversed_micro: null });
        expect(await topupLedger(h.service.db, p.topup.id)).toEqual([["topup", 2_000_000]]);
        expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(0);
      }
      const orders = await h.service.db.selectFrom("orders").select("id").where("idempotency_key", "=", `race-${round}`).execute();
      expect(orders).toHaveLength(refunded.refunded ? 0 : 1);
    }
    console.log(`refund racing a purchase (${h.engine}): the refund won ${won.refund} times, the purchase ${won.purchase}`);
  }, 120_000);

  it("refused by Telegram: the credit is back, the ledger shows both moves, and a later refund works", async () => {
    const p = await paidTopup(300);
    // The bot's Stars are spent: Telegram cannot give 300 back.
    await stars.setBalance(100);
    const refused = await outcome(h.service.core.topups.refundStars(p.topup.id, ADMIN));
    expect(refused).toMatchObject({ refunded: false, code: "invalid_input", message: expect.stringMatching(/BALANCE_TOO_LOW.*credit is back/) });
    expect(await balance(p.telegramId)).toBe(3_000_000);
    expect(await topupRow(p.topup.id)).toEqual({ status: "credited", reversed_micro: null });
    expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
      ["topup", 3_000_000],
      ["reversal", -3_000_000],
      ["adjustment", 3_000_000],
    ]);
    expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(0);
    expect(await botStars(bots.emulatorUrl)).toBe(100);

    await stars.setBalance(5_000);
    await expect(h.service.core.topups.refundStars(p.topup.id, ADMIN)).resolves.toMatchObject({ status: "refunded", reversedMicro: 3_000_000 });
    expect(await balance(p.telegramId)).toBe(0);
    expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
      ["topup", 3_000_000],
      ["reversal", -3_000_000],
      ["adjustment", 3_000_000],
      ["reversal", -3_000_000],
    ]);
    expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(1);
    expect(await botStars(bots.emulatorUrl)).toBe(4_700);
  });

  /**
   * Telegram makes the refund but its answer never comes back (held past the service's timeout), and the
   * refunded_payment it sends waits in the payer's chat behind a reply the bot is still sending: the top-up stays
   * `refunding`, its credit taken back, until `finish` completes it. The update handled after changes nothing.
   */
  async function answerLost(finish: (topupId: number) => Promise<unknown>) {
    const p = await paidTopup(400);
    const before = await botStars(bots.emulatorUrl);
    await slowTelegram(bots.emulatorUrl, 8_000, "sendMessage", "when-answered");
    try {
      await p.chat.say("hello");
      await eventually(async () => ((await late()) >= 1 ? true : undefined));
      await slow("refundStarPayment", UPSTREAM_TIMEOUT_MS * 3, "at-once");
      const lost = await outcome(h.service.core.topups.refundStars(p.topup.id, ADMIN));
      expect(lost).toMatchObject({ refunded: false, code: "unavailable", message: expect.stringMatching(/under way/) });
      await slow("refundStarPayment", 0, "at-once");
      expect(await topupRow(p.topup.id)).toEqual({ status: "refunding", reversed_micro: null });
      expect(await balance(p.telegramId)).toBe(0);
      expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(1);

      await finish(p.topup.id);
      expect(await topupRow(p.topup.id)).toEqual({ status: "refunded", reversed_micro: 4_000_000 });
    } finally {
      await slow("refundStarPayment", 0, "at-once");
      await slowTelegram(bots.emulatorUrl, 0, "sendMessage");
    }
    // The refunded_payment, handled after the chat's reply went out, finds the refund done.
    await refundUpdateHandled(p.telegramId);
    expect(await topupRow(p.topup.id)).toEqual({ status: "refunded", reversed_micro: 4_000_000 });
    expect(await balance(p.telegramId)).toBe(0);
    expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
      ["topup", 4_000_000],
      ["reversal", -4_000_000],
    ]);
    expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(1);
    expect(await botStars(bots.emulatorUrl)).toBe(before - 400);
    const book = await h.service.db
      .selectFrom("star_book")
      .select(["kind", "stars"])
      .where("transaction_id", "=", p.chargeId)
      .orderBy("id")
      .execute();
    expect(book.map((e) => [e.kind, Number(e.stars)])).toEqual([
      ["payment", 400],
      ["refund", -400],
    ]);
  }

  it("asked twice at once: the second waits for the first, so the Stars go back once and the credit stays taken", async () => {
    const p = await paidTopup(250);
    // Telegram slow to make and answer the first (within the service's timeout): a second ask meanwhile is refused.
    await slow("refundStarPayment", UPSTREAM_TIMEOUT_MS * 0.8, "when-answered");
    try {
      const first = outcome(h.service.core.topups.refundStars(p.topup.id, ADMIN));
      // The first holds the top-up while it asks Telegram.
      await eventually(async () => ((await topupRow(p.topup.id)).status === "refunding" ? true : undefined));
      const second = await outcome(h.service.core.topups.refundStars(p.topup.id, ADMIN));
      expect(second).toMatchObject({ refunded: false, code: "invalid_input", message: expect.stringMatching(/under way/) });
      expect(await first).toEqual({ refunded: true });
    } finally {
      await slow("refundStarPayment", 0, "at-once");
    }
    expect(await topupRow(p.topup.id)).toEqual({ status: "refunded", reversed_micro: 2_500_000 });
    expect(await balance(p.telegramId)).toBe(0);
    expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
      ["topup", 2_500_000],
      ["reversal", -2_500_000],
    ]);
    expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(1);
  });

  it("made by Telegram on its own with its update not yet handled: the scheduled look takes the credit back, once", async () => {
    const p = await paidTopup(200);
    // The refunded_payment waits in the payer's chat behind a reply the bot is still sending.
    await slowTelegram(bots.emulatorUrl, 8_000, "sendMessage", "when-answered");
    try {
      await p.chat.say("hello");
      await eventually(async () => ((await late()) >= 1 ? true : undefined));
      await stars.dispute(p.chargeId);
      expect(await balance(p.telegramId)).toBe(2_000_000);
      expect(await h.service.core.topups.settleStars()).toMatchObject({ refunded: 1 });
      expect(await topupRow(p.topup.id)).toEqual({ status: "refunded", reversed_micro: 2_000_000 });
      expect(await balance(p.telegramId)).toBe(0);
    } finally {
      await slowTelegram(bots.emulatorUrl, 0, "sendMessage");
    }
    // The update, handled later, changes nothing.
    await refundUpdateHandled(p.telegramId);
    expect(await balance(p.telegramId)).toBe(0);
    expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
      ["topup", 2_000_000],
      ["reversal", -2_000_000],
    ]);
  }, 60_000);

  it("with Telegram's answer lost: a second call finishes it, without refunding twice", async () => {
    await answerLost(async (id) => {
      await expect(h.service.core.topups.refundStars(id, ADMIN)).resolves.toMatchObject({ status: "refunded" });
    });
  }, 60_000);

  it("with Telegram's answer lost: the scheduled look finishes it, without refunding twice", async () => {
    await answerLost(async () => {
      expect(await h.service.core.topups.settleStars()).toMatchObject({ refunded: 1 });
    });
  }, 60_000);

  it("not made at Telegram and its answer lost: stays under way through the look, and a second call refunds once", async () => {
    const p = await paidTopup(150);
    // Held past the service's timeout and dropped unmade: the caller had hung up.
    await slow("refundStarPayment", UPSTREAM_TIMEOUT_MS * 3, "when-answered");
    try {
      const lost = await outcome(h.service.core.topups.refundStars(p.topup.id, ADMIN));
      expect(lost).toMatchObject({ refunded: false, code: "unavailable" });
    } finally {
      await slow("refundStarPayment", 0, "at-once");
    }
    // Telegram has not refunded it (its answer came after the caller left: not taken).
    await eventually(async () => ((await http("GET", `${bots.emulatorUrl}/emulator/late`)).body.hung_up >= 1 ? true : undefined));
    expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(0);
    expect(await h.service.core.topups.settleStars()).toMatchObject({ refunded: 0 });
    expect(await topupRow(p.topup.id)).toEqual({ status: "refunding", reversed_micro: null });
    expect(await balance(p.telegramId)).toBe(0);

    await expect(h.service.core.topups.refundStars(p.topup.id, ADMIN)).resolves.toMatchObject({ status: "refunded" });
    await refundUpdateHandled(p.telegramId);
    expect(await refundsAtTelegram(bots.emulatorUrl, p.chargeId)).toBe(1);
    expect(await topupLedger(h.service.db, p.topup.id)).toEqual([
      ["topup", 1_500_000],
      ["reversal", -1_500_000],
    ]);
    expect(await topupRow(p.topup.id)).toEqual({ status: "refunded", reversed_micro: 1_500_000 });
  }, 60_000);
});
