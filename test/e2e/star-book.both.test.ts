import { sign } from "@telegram-apps/init-data-node";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fromUsdt, micro } from "../../src/core/model/money.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { eventually, type Harness, startHarness, TEST_BOT_TOKEN } from "../support/harness.js";

// The bot's Star book against the Bot API emulator, on this engine: a mixed run (payments, one delivered twice, one
// whose update was lost, an administrator's refund, a refund Telegram made on its own, a gift and Premium sent from
// the bot's Stars) leaves a book equal to the emulator's transactions and balance; a difference planted behind the
// book's back is an alert to the administrators, and its end too. At STAR_COST_USDT 0.01 a Star credits 0.01 USDT;
// the emulator's 🌹 costs 25 Stars, 3 months of Premium 1000.

const ADMIN = 790_000_999;
const ROSE = "5168103777563050263";
const OPENING = 5_000;
const SHOWN_KEY = /sj_[A-Za-z0-9_-]{43}/;

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let h: Harness;
let stars: EmulatedStars;
let admin: EmulatedChat;

beforeAll(async () => {
  emulator = await startEmulator();
  stars = new EmulatedStars(emulator.url);
  // Stars on the bot before the book began: its opening.
  await stars.setBalance(OPENING);
  h = await startHarness(
    {
      GIFTS_BACKEND: "telegram",
      PREMIUM_BACKEND: "telegram",
      STAR_COST_USDT: "0.01",
      TOPUP_POLL_MS: "60000",
      STARS_BOOK_CHECK_MINUTES: "600",
      ALERT_CHECK_INTERVAL_MS: "100",
    },
    { emulatorUrl: emulator.url, admins: [ADMIN] },
  );
  admin = new EmulatedChat(emulator.url, { id: ADMIN, first_name: "Admin", username: "ops_admin_790", language_code: "en" });
});
afterEach(async () => h.assertLedgerInvariant());
afterAll(async () => {
  await h.close();
  await emulator.app.close();
});

let nextUser = 790_000_001;
/** A Telegram user who registered with the bot: their chat and key. */
async function registered() {
  const id = nextUser++;
  const chat = new EmulatedChat(emulator.url, { id, first_name: `Buyer${id}`, username: `buyer${id}`, language_code: "en" });
  const shown = await chat.reply("/start", (t) => SHOWN_KEY.test(t));
  return { chat, key: SHOWN_KEY.exec(shown.text)![0], telegramId: String(id), username: `buyer${id}` };
}

const account = async (telegramId: string) => (await h.service.core.accounts.byTelegramId(telegramId))!;
const balance = async (telegramId: string) => (await account(telegramId)).balanceMicro;
const creditedTo = (telegramId: string, micro: number) => eventually(async () => ((await balance(telegramId)) === micro ? true : undefined));
const book = () => h.service.db.selectFrom("star_book").selectAll().orderBy("id").execute();

/** A Stars top-up paid through its link (as the Mini App's openInvoice does). */
async function payLink(chat: EmulatedChat, telegramId: string, count: number) {
  const made = await h.service.core.topups.starsLink(await account(telegramId), count);
  return { topup: made.topup, attempt: await chat.pay(made.link) };
}

/** What the emulator (Telegram) lists: every transaction, and the bot's balance. */
async function telegram() {
  const call = async (method: string, body: object) => {
    const response = await request(`${emulator.url}/bot${TEST_BOT_TOKEN}/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return ((await response.body.json()) as { result: any }).result;
  };
  const transactions: Array<{ id: string; amount: number; source?: { transaction_type?: string }; receiver?: { transaction_type?: string } }> = (
    await call("getStarTransactions", { offset: 0, limit: 100 })
  ).transactions;
  return { transactions, balance: (await call("getMyStarBalance", {})).amount as number };
}

describe("the bot's Star book", () => {
  it("equals Telegram's transactions and balance after a mixed run, and alerts on a difference planted behind its back", async () => {
    // The first reconciliation (at the service's start) opened the book with the bot's balance.
    await h.service.jobs.starBook!.runOnce();
    expect((await book()).filter((row) => row.kind === "opening").map((row) => Number(row.stars))).toEqual([OPENING]);

    const buyer = await registered();
    const first = await payLink(buyer.chat, buyer.telegramId, 300);
    expect(first.attempt).toMatchObject({ status: "paid", delivered: "once" });
    await creditedTo(buyer.telegramId, 3_000_000);
    await stars.nextDelivery("twice");
    const twice = await payLink(buyer.chat, buyer.telegramId, 200);
    expect(twice.attempt.delivered).toBe("twice");
    await creditedTo(buyer.telegramId, 5_000_000);
    await stars.nextDelivery("dropped");
    const lost = await payLink(buyer.chat, buyer.telegramId, 100);
    expect(lost.attempt).toMatchObject({ status: "paid", delivered: "dropped" });

    // An administrator's refund, and one Telegram makes on its own of a credit mostly spent.
    const refunded = await h.service.core.topups.refundStars(twice.topup.id, { actor: "cli:test" });
    expect(refunded).toMatchObject({ status: "refunded", reversedMicro: 2_000_000 });
    const other = await registered();
    const disputed = await payLink(other.chat, other.telegramId, 500);
    await creditedTo(other.telegramId, 5_000_000);
    await h.service.core.admin.debit(other.telegramId, micro(4_000_000), "test", { note: "spent" });
    await stars.dispute(disputed.attempt.telegram_payment_charge_id!);
    await creditedTo(other.telegramId, 0);
    // The administrators hear what the balance could not give back.
    await eventually(async () => (await admin.messages()).find((m) => m.text.includes("4.00 USDT could not be taken back")));

    // A gift and Premium sent from the bot's Stars, to a user the bot knows.
    await h.service.core.admin.credit(buyer.telegramId, fromUsdt(20), "test");
    const friend = await registered();
    const gift = await h.call("POST", "/v1/gifts", { key: buyer.key, body: { recipient: `@${friend.username}`, gift_id: ROSE } });
    expect(gift.body.status).toBe("completed");
    const premium = await h.call("POST", "/v1/premium", { key: buyer.key, body: { username: friend.username, months: 3 } });
    expect(premium.body.status).toBe("completed");

    // The reconciliation credits the lost payment first (the top-ups' look), then finds nothing differs.
    const result = await h.service.core.starBook.reconcile();
    expect(await balance(buyer.telegramId)).toBe(3_000_000 + 1_000_000 + 20_000_000 - 375_000 - 11_990_000);
    const seen = await telegram();
    expect(seen.balance).toBe(OPENING + 300 + 200 + 100 + 500 - 200 - 500 - 25 - 1000);
    expect(result).toMatchObject({ balance: seen.balance, book: seen.balance, settling: 0, opening: OPENING, differenceCount: 0 });

    // Every row is one of Telegram's transactions with the same Stars, and every transaction has its row.
    const rows = (await book()).filter((row) => row.kind !== "opening");
    const kindOf = (t: (typeof seen.transactions)[number]) =>
      t.source
        ? "payment"
        : ({ invoice_payment: "refund", gift_purchase: "gift", premium_purchase: "premium" } as const)[t.receiver!.transaction_type!];
    const fromTelegram = seen.transactions.map((t) => [kindOf(t), t.id, t.source ? t.amount : -t.amount]).sort();
    expect(rows.map((row) => [row.kind, row.transaction_id, Number(row.stars)]).sort()).toEqual(fromTelegram);
    expect(rows.map((row) => row.kind).sort()).toEqual(["gift", "payment", "payment", "payment", "payment", "premium", "refund", "refund"]);
    expect(OPENING + rows.reduce((sum, row) => sum + Number(row.stars), 0)).toBe(seen.balance);
    // Reconciled again: nothing booked twice, nothing differs.
    expect(await h.service.core.starBook.reconcile()).toMatchObject({ booked: 0, differenceCount: 0 });
    expect(await book()).toHaveLength(rows.length + 1);

    // Stars moved behind the book's back: a difference, told to the administrators, and its end.
    await stars.setBalance(seen.balance + 7);
    const planted = await h.service.core.starBook.reconcile();
    expect(planted.differences).toEqual([{ what: "balance", telegram: seen.balance + 7, book: seen.balance }]);
    await eventually(async () =>
      (await admin.messages()).find(
        (m) => m.text.includes("Star book differs") && m.text.includes(`balance: Telegram ${seen.balance + 7}, book ${seen.balance}`),
      ),
    );
    await stars.setBalance(seen.balance);
    expect(await h.service.core.starBook.reconcile()).toMatchObject({ differenceCount: 0 });
    await eventually(async () => (await admin.messages()).find((m) => m.text.includes("Star book matches Telegram's")));
  });

  it("is shown on the desk to administrators only, as the CLI's summary", async () => {
    const signedIn = async (user: { id: number; first_name: string }) => {
      const init = sign({ user: { ...user, is_premium: false } as never, query_id: "AAH" } as never, TEST_BOT_TOKEN, new Date());
      const answer = await h.call("POST", "/miniapp/session", { body: { init_data: init }, remoteAddress: `10.79.0.${user.id % 250}` });
      expect(answer.status).toBe(200);
      return { authorization: `Bearer ${answer.body.token}` };
    };
    const refused = await h.call("GET", "/miniapp/admin/stars", { headers: await signedIn({ id: 790_000_501, first_name: "Nat" }) });
    expect(refused.status).toBe(403);
    const shown = await h.call("GET", "/miniapp/admin/stars", { headers: await signedIn({ id: ADMIN, first_name: "Admin" }) });
    expect(shown.status).toBe(200);
    const { balance } = await telegram();
    expect(shown.body).toMatchObject({
      success: true,
      balance,
      balance_error: null,
      open_orders: 0,
      open_stars: 0,
      rate_usdt: 0.01,
      last: { balance, book: balance, differences: [], difference_count: 0 },
    });
    expect(shown.body.today.in.payment).toBe(1_100);
    expect(shown.body.today.out).toMatchObject({ refund: -700, gift: -25, premium: -1_000 });
    expect(shown.body.margins).toContainEqual({
      product: "premium",
      months: 3,
      price_usdt: 11.99,
      in_stars: 1199,
      cost_stars: 1000,
      margin_stars: 199,
    });
  });

  it("books again a delivery whose booking was lost, with its transaction, and opens only when nothing is arriving", async () => {
    const deliveries = await h.service.db.selectFrom("star_book").selectAll().where("kind", "in", ["gift", "premium"]).execute();
    expect(deliveries.every((row) => row.transaction_id !== null && row.order_id !== null)).toBe(true);
    // As if the process died between the order's completion and its booking.
    await h.service.db.deleteFrom("star_book").where("kind", "=", "gift").execute();
    expect(await h.service.core.starBook.reconcile()).toMatchObject({ differenceCount: 0 });
    const again = await h.service.db.selectFrom("star_book").selectAll().where("kind", "=", "gift").execute();
    expect(again.map((row) => [row.order_id, row.transaction_id, Number(row.stars)])).toEqual(
      deliveries.filter((row) => row.kind === "gift").map((row) => [row.order_id, row.transaction_id, -25]),
    );

    // A book without its opening (as before the first reconciliation) does not open while a transaction is arriving.
    const opening = await h.service.db.selectFrom("star_book").selectAll().where("kind", "=", "opening").executeTakeFirstOrThrow();
    await h.service.db.deleteFrom("star_book").where("kind", "=", "opening").execute();
    const buyer = await registered();
    await payLink(buyer.chat, buyer.telegramId, 150);
    await creditedTo(buyer.telegramId, 1_500_000);
    await h.service.db.deleteFrom("star_book").where("user_id", "=", buyer.telegramId).execute();
    await expect(h.service.core.starBook.reconcile()).rejects.toThrow(
      /opens when nothing is on its way into it \(0 gift or Premium orders open, 1 transactions just made\)/,
    );
    h.clock.advance(10 * 60_000);
    try {
      // Once it cannot be on its way, it is in the opening; the book matches.
      expect(await h.service.core.starBook.reconcile()).toMatchObject({ opening: Number(opening.stars) + 150, differenceCount: 0 });
    } finally {
      h.clock.reset();
    }
  });

  it("finds a gift sent past the service and a row Telegram does not list, once they cannot be on their way", async () => {
    const stranger = await registered();
    const sent = await request(`${emulator.url}/bot${TEST_BOT_TOKEN}/sendGift`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: Number(stranger.telegramId), gift_id: ROSE }),
    });
    expect(((await sent.body.json()) as { ok: boolean }).ok).toBe(true);
    // Just sent, it may still be a delivery settling: not a difference yet.
    expect(await h.service.core.starBook.reconcile()).toMatchObject({ settling: -25, differenceCount: 0 });
    const { transactions } = await telegram();
    const outside = transactions.at(-1)!;
    await h.service.db
      .insertInto("star_book")
      .values({
        kind: "payment",
        stars: 40,
        transaction_id: "never-at-telegram",
        topup_id: null,
        order_id: null,
        user_id: null,
        created_at: "2026-01-01T00:00:00.000Z",
      })
      .execute();
    h.clock.advance(10 * 60_000);
    try {
      const found = await h.service.core.starBook.reconcile();
      expect(found.differences).toEqual([
        { what: "balance", telegram: expect.any(Number), book: expect.any(Number) },
        { what: "unbooked", kind: "gift", transactionId: outside.id, stars: -25, userId: stranger.telegramId, date: expect.any(Number) },
        { what: "missing", kind: "payment", transactionId: "never-at-telegram", stars: 40 },
      ]);
      expect(found.book - found.balance).toBe(40 + 25);
      await eventually(async () => (await admin.messages()).find((m) => m.text.includes("3 differences")));
    } finally {
      h.clock.reset();
    }
    // A payment booked that no top-up took (a payload not ours): the administrators hear of it.
    await h.service.db
      .insertInto("star_book")
      .values({
        kind: "payment",
        stars: 70,
        transaction_id: "charge-of-nobody",
        topup_id: null,
        order_id: null,
        user_id: "1",
        created_at: h.clock.now().toISOString(),
      })
      .execute();
    await eventually(async () =>
      (await admin.messages()).find(
        (m) => m.text.includes("1 Stars payment in the last 24 hours matched no top-up") && m.text.includes("charge-of-nobody"),
      ),
    );
  });
});
