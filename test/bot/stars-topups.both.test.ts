import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import type { ChatMessage } from "../../src/emulator/state.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// Top-ups in Telegram Stars as a person meets them in the bot, on this engine, through the Bot API emulator: a pack or
// a typed amount from the top-up menu, a purchase short of balance topped up and placed in one tap, an administrator's
// refund, /paysupport and /terms, and a refused checkout in the payer's language (issue 44).
// At STAR_COST_USDT 0.01 a Star credits 0.01 USDT: 250 Stars are 2.50 USDT; the smallest top-up (1 USDT) is 100 Stars.

const ADMIN = 790_000_900;
let bots: BotHarness;
let h: Harness;
let stars: EmulatedStars;
let admin: EmulatedChat;
useBotHarness(
  790_000_001,
  {
    admins: [ADMIN],
    env: {
      STAR_COST_USDT: "0.01",
      TOPUP_POLL_MS: "60000",
      STARS_TOPUP_DAILY_MAX_USDT: "30",
      SUPPORT_CONTACT: "@helpdesk",
      PAYMENT_SUPPORT_TEXT: "Payments: write to @pay_desk\\nMonday to Friday",
    },
    books: true,
  },
  (started) => {
    bots = started;
    h = started.h;
    stars = new EmulatedStars(bots.emulatorUrl);
    admin = new EmulatedChat(bots.emulatorUrl, { id: ADMIN, first_name: "Ops", username: "ops_admin", language_code: "en" });
  },
);

const account = async (telegramId: string) => (await h.service.core.accounts.byTelegramId(telegramId))!;
const balance = async (telegramId: string) => (await account(telegramId)).balanceMicro;
const lastMessageId = async (chat: EmulatedChat) => (await chat.messages()).at(-1)?.message_id ?? 0;

/** The first invoice the bot sends in the chat after message `after`. */
const invoiceAfter = (chat: EmulatedChat, after: number) =>
  eventually(async () =>
    (await chat.messages()).find((m): m is ChatMessage & { invoice: object } => m.from_bot && !!m.invoice && m.message_id > after),
  );

const topupsOf = async (telegramId: string) => h.service.core.topups.list(await account(telegramId), { limit: 10 });

describe("Stars top-ups in the bot", () => {
  it("pays a pack from the menu: XTR invoice in the chat, paid, credited once with its ledger entry and Star book row", async () => {
    const { chat, telegramId } = await bots.registered(0);
    await chat.tap("Top up");
    await chat.next((t) => t.includes("How much do you want to add"));
    const before = await lastMessageId(chat);
    await chat.tap("Pay with Telegram Stars");
    const packs = await chat.next((t) => t.includes("Pay in Telegram Stars"));
    expect(packs.text).toContain("each ⭐ adds 0.01 USDT");
    expect(packs.text).toContain("from 100 to 10000");
    const labels = packs.reply_markup!.inline_keyboard.flat().map((b) => b.text);
    expect(labels).toEqual(expect.arrayContaining(["100 ⭐ → 1.00 USDT", "250 ⭐ → 2.50 USDT", "2500 ⭐ → 25.00 USDT"]));
    await chat.tap("250 ⭐ → 2.50 USDT");

    const invoice = await invoiceAfter(chat, before);
    expect(invoice.invoice).toMatchObject({ currency: "XTR", total_amount: 250, title: "Top-up 2.50 USDT" });
    const [open] = await topupsOf(telegramId);
    expect(open).toMatchObject({ method: "stars", status: "active", stars: 250, amountMicro: 2_500_000 });

    const attempt = await chat.pay(invoice.message_id);
    expect(attempt).toMatchObject({ status: "paid", delivered: "once" });
    const notice = await chat.next((t) => t.includes("Paid in Telegram Stars"));
    expect(notice.text).toContain("250 ⭐ → +2.50 USDT. Balance: 2.50 USDT.");
    expect(await balance(telegramId)).toBe(2_500_000);

    const { id: accountId } = await account(telegramId);
    const entries = await h.service.db.selectFrom("ledger_entries").selectAll().where("account_id", "=", accountId).execute();
    expect(entries.map((e) => [e.kind, Number(e.amount_micro), e.topup_id === null ? null : Number(e.topup_id)])).toEqual([
      ["topup", 2_500_000, open!.id],
    ]);
    const book = await h.service.db.selectFrom("star_book").selectAll().where("transaction_id", "=", attempt.telegram_payment_charge_id!).execute();
    expect(book.map((e) => [e.kind, Number(e.stars), Number(e.topup_id)])).toEqual([["payment", 250, open!.id]]);

    // /topups names the method and its Stars; with nothing open to cancel, it offers the menu.
    const list = await chat.reply("/topups", (t) => t.includes(`#${open!.id}`));
    expect(list.text).toContain(`#${open!.id} Telegram Stars 250 ⭐ 2.50 USDT: credited`);
    expect(list.reply_markup?.inline_keyboard.flat().length).toBeGreaterThan(0);
    expect(list.reply_markup?.inline_keyboard.flat().some((b) => b.text.startsWith("Cancel"))).toBe(false);
  });

  it("takes a typed number of Stars within the bounds, in Russian", async () => {
    const { chat, telegramId } = await bots.registered(0, { language_code: "ru" });
    await chat.reply("/topup", (t) => t.includes("Сколько добавить"));
    await chat.tap("Оплатить звёздами Telegram");
    await chat.next((t) => t.includes("Оплата звёздами Telegram"));
    expect((await chat.reply("50", (t) => t.includes("целое число звёзд"))).text).toContain("от 100 до 10000");
    const before = await lastMessageId(chat);
    await chat.say("333");
    const invoice = await invoiceAfter(chat, before);
    expect(invoice.invoice).toMatchObject({ currency: "XTR", total_amount: 333, title: "Пополнение 3.33 USDT" });
    await chat.pay(invoice.message_id);
    expect((await chat.next((t) => t.includes("Оплачено звёздами"))).text).toContain("333 ⭐ → +3.33 USDT");
    expect(await balance(telegramId)).toBe(3_330_000);

    // An invoice left unpaid can be cancelled from /topups; its checkout is refused from then on.
    const unpaid = await h.service.core.topups.startStars((await h.service.core.accounts.byTelegramId(telegramId))!, 200);
    await chat.reply("/topups", (t) => t.includes(`#${unpaid.topup.id}`));
    await chat.tap(`Отменить #${unpaid.topup.id}`);
    await chat.next((t) => t.includes(`#${unpaid.topup.id}`) && t.includes("отменено"));
    expect((await h.service.core.topups.find(unpaid.topup.id)).status).toBe("cancelled");
  });

  it("tops up a short balance in Stars and places the order once, whatever Telegram delivers twice", async () => {
    const { chat, telegramId } = await bots.registered(1);
    await chat.tap("Stars");
    await chat.next((t) => t.includes("@username"));
    await chat.reply("@alice", (t) => t.includes("How many stars"));
    // 100 stars cost 1.50 USDT: 0.50 short, so the smallest Stars top-up (100 Stars, 1.00 USDT) covers it.
    const offer = await chat.reply("100", (t) => t.includes("short"));
    expect(offer.text).toContain("Charge: 1.50 USDT. Your balance: 1.00 USDT, 0.50 USDT short.");
    expect(offer.text).toContain("Pay 100 ⭐ in Telegram Stars: 1.00 USDT");
    const before = await lastMessageId(chat);
    await chat.tap("Top up 100 ⭐ and buy");
    const invoice = await invoiceAfter(chat, before);
    expect(invoice.invoice).toMatchObject({ total_amount: 100 });
    expect(await h.orderCount()).toBe(0);

    await stars.nextDelivery("twice");
    const attempt = await chat.pay(invoice.message_id);
    expect(attempt).toMatchObject({ status: "paid", delivered: "twice" });
    const placed = await chat.next((t) => /Order #\d+/.test(t), 15_000);
    const orderId = Number(/Order #(\d+)/.exec(placed.text)![1]);
    // The chat's updates are handled in order: once /balance is answered, the second delivery was handled too.
    await chat.reply("/balance", (t) => t.includes("0.50 USDT"));
    const { id: accountId } = await account(telegramId);
    const orders = await h.service.core.orders.list(accountId, 10);
    expect(orders.map((o) => o.id)).toEqual([orderId]);
    expect(orders[0]).toMatchObject({ chargeMicro: 1_500_000 });
    expect(await balance(telegramId)).toBe(500_000);
    const book = await h.service.db.selectFrom("star_book").selectAll().where("transaction_id", "=", attempt.telegram_payment_charge_id!).execute();
    expect(book).toHaveLength(1);
    const texts = (await chat.messages()).filter((m) => m.from_bot).map((m) => m.text);
    expect(texts.some((t) => t.includes("did not understand"))).toBe(false);

    // The paid invoice's Cancel, tapped now, cancels nothing and never says nothing was charged.
    const cancel = invoice.reply_markup!.inline_keyboard.flat().find((b) => b.text.includes("Cancel"))!;
    await chat.tapData(invoice.message_id, (cancel as { callback_data: string }).callback_data);
    await chat.reply("/balance", (t) => t.includes("0.50 USDT"));
    expect((await chat.messages()).filter((m) => m.from_bot && m.text.includes("Nothing was charged"))).toEqual([]);
    expect(await h.service.core.orders.list(accountId, 10)).toHaveLength(1);
  });

  it("says so when the price moved while the Stars were paid: nothing bought, the credit stays on the balance", async () => {
    const { chat, telegramId } = await bots.registered(1);
    await chat.tap("Store top-up");
    await chat.next((t) => t.includes("login"));
    await chat.reply("pending_gabe", (t) => t.includes("How much to add"));
    // 10 USD costs 10.61 USDT at the default 3% markup: 9.61 short, 961 Stars.
    const offer = await chat.reply("10", (t) => t.includes("short"));
    expect(offer.text).toContain("Charge: 10.61 USDT. Your balance: 1.00 USDT, 9.61 USDT short.");
    const before = await lastMessageId(chat);
    await chat.tap("Top up 961 ⭐ and buy");
    const invoice = await invoiceAfter(chat, before);
    await h.service.core.admin.setMarkup(telegramId, "store", 500, "test");
    await chat.pay(invoice.message_id);
    const moved = await chat.next((t) => t.includes("The price changed"));
    expect(moved.text).toContain("from 10.61 to 10.82 USDT");
    expect(moved.text).toContain("Your Stars top-up stays on your balance.");
    // Still 0.21 short at the new price: the offer comes again, for the smallest top-up.
    expect((await chat.next((t) => t.includes("short"))).text).toContain("Your balance: 10.61 USDT, 0.21 USDT short.");
    expect(await h.service.core.orders.list((await account(telegramId)).id, 10)).toEqual([]);
    expect(await balance(telegramId)).toBe(10_610_000);
    await chat.tap("Cancel");
    await chat.next((t) => t.includes("Cancelled"));
  });

  it("leaves nothing charged when the buyer closes the invoice and cancels", async () => {
    const { chat, telegramId } = await bots.registered(1);
    await chat.tap("Stars");
    await chat.next((t) => t.includes("@username"));
    await chat.reply("@alice", (t) => t.includes("How many stars"));
    await chat.reply("200", (t) => t.includes("short"));
    const before = await lastMessageId(chat);
    await chat.tap("Top up");
    const invoice = await invoiceAfter(chat, before);
    expect(await chat.pay(invoice.message_id, { close: true })).toMatchObject({ status: "cancelled" });
    await chat.say("hello");
    await chat.next((t) => t.includes("Waiting for your payment"));
    await chat.tap("Cancel");
    await chat.next((t) => t.includes("Cancelled. Nothing was charged."));
    expect(await h.service.core.orders.list((await account(telegramId)).id, 10)).toEqual([]);
    expect(await balance(telegramId)).toBe(1_000_000);
  });

  it("refunds a Stars top-up on an administrator's confirmation, and refuses when its credit is spent or it is no Stars top-up", async () => {
    const { chat, telegramId } = await bots.registered(0, { username: "refundee" });
    const pay = async (count: number) => {
      const before = await lastMessageId(chat);
      await chat.reply("/topup", (t) => t.includes("How much"));
      await chat.tap("Pay with Telegram Stars");
      await chat.next((t) => t.includes("Pay in Telegram Stars"));
      await chat.say(String(count));
      await chat.pay((await invoiceAfter(chat, before)).message_id);
      await chat.next((t) => t.includes("Paid in Telegram Stars"));
      return (await topupsOf(telegramId))[0]!;
    };
    const first = await pay(250);

    const ask = await admin.reply(`/refund ${first.id}`, (t) => t.includes("Refund Telegram Stars top-up"));
    expect(ask.text).toContain(`${telegramId} @refundee paid 250 ⭐ on ${first.creditedAt!.slice(0, 10)}`);
    expect(ask.text).toContain("2.50 USDT were credited");
    await admin.tap(`Yes, refund #${first.id}`);
    expect((await admin.next((t) => t.includes("refunded:"))).text).toContain(`250 ⭐ given back to ${telegramId} @refundee, 2.50 USDT taken`);
    expect((await chat.next((t) => t.includes("was refunded"))).text).toContain(`#${first.id} was refunded: 250 ⭐ went back to you and 2.50 USDT`);
    expect(await balance(telegramId)).toBe(0);
    expect((await chat.reply("/topups", (t) => t.includes(`#${first.id}`))).text).toContain(`#${first.id} Telegram Stars 250 ⭐ 2.50 USDT: refunded`);
    expect((await admin.reply(`/refund ${first.id}`, (t) => t.includes("refunded already"))).text).toContain("nothing changed");
    // The statement names both entries in words.
    const statement = (await chat.reply("/statement", (t) => t.includes("top-up refunded"))).text;
    expect(statement).toContain("· top-up · +2.50");
    expect(statement).toContain("· top-up refunded · -2.50");

    const second = await pay(500);
    await h.service.core.admin.debit(telegramId, micro(4_000_000), "test", { note: "spent" });
    await admin.reply(`/refund ${second.id}`, (t) => t.includes("Refund Telegram Stars top-up"));
    await admin.tap(`Yes, refund #${second.id}`);
    const spent = await admin.next((t) => t.includes("already spent"));
    expect(spent.text).toContain("the refund needs 5.00 USDT and the balance is 1.00 USDT");
    expect(await balance(telegramId)).toBe(1_000_000);
    expect((await h.service.core.topups.find(second.id)).status).toBe("credited");

    const invoice = await h.service.core.topups.startInvoice(await account(telegramId), micro(10_000_000));
    expect((await admin.reply(`/refund ${invoice.id}`, (t) => t.includes("not paid in Telegram Stars"))).text).toContain("only a Stars top-up");
    expect((await admin.reply("/refund twelve", (t) => t.includes("usage"))).text).toContain("/refund <top-up id>");
  });

  it("refuses a checkout past the day's bound in the payer's language, and takes nothing", async () => {
    // Telegram says English; the account chose Russian (/language): the account's choice is the payer's language.
    const { chat, telegramId } = await bots.registered(0, { language_code: "en" });
    await h.service.core.accounts.setLanguage((await account(telegramId)).id, "ru");
    const payInRussian = async (count: number) => {
      const before = await lastMessageId(chat);
      await chat.reply("/topup", (t) => t.includes("Сколько добавить"));
      await chat.tap("Оплатить звёздами Telegram");
      await chat.next((t) => t.includes("Оплата звёздами Telegram"));
      await chat.say(String(count));
      return chat.pay((await invoiceAfter(chat, before)).message_id);
    };
    expect(await payInRussian(2500)).toMatchObject({ status: "paid" });
    await eventually(async () => ((await balance(telegramId)) === 25_000_000 ? true : undefined));
    // 25 + 10 USDT would pass the day's 30: Telegram shows the bot's refusal, in Russian, and takes no Star.
    const refused = await payInRussian(1000);
    expect(refused).toMatchObject({ status: "failed", outcome: "refused" });
    expect(refused.error_message).toBe("Пополнение звёздами ограничено 30.00 USDT в сутки: выберите сумму меньше или попробуйте позже.");
    expect(await balance(telegramId)).toBe(25_000_000);
    expect((await topupsOf(telegramId))[0]).toMatchObject({ stars: 1000, status: "active" });
  });
});

describe("payment help", () => {
  it("answers /paysupport with the operator's text and /terms with the locale's, in English and Russian, customer or not", async () => {
    const en = await bots.registered(0);
    const support = await en.chat.reply("/paysupport", (t) => t.includes("Payments"));
    expect(support.text).toBe("Payments: write to @pay_desk\nMonday to Friday");
    const terms = await en.chat.reply("/terms", (t) => t.includes("Terms of payment"));
    expect(terms.text).toContain("A top-up in Telegram Stars adds the USDT shown before you pay");
    expect(terms.text).toContain("Need help? Write to @helpdesk.");

    // Not registered: Telegram asks that anyone can read them.
    const stranger = new EmulatedChat(bots.emulatorUrl, { id: 790_000_777, first_name: "Ann", language_code: "ru" });
    const ru = await stranger.reply("/terms", (t) => t.includes("Условия оплаты"));
    expect(ru.text).toContain("Пополнение звёздами Telegram добавляет");
    expect(ru.text).toContain("Нужна помощь? Напишите @helpdesk.");
    expect((await stranger.reply("/paysupport", (t) => t.includes("Payments"))).text).toContain("@pay_desk");

    const i18n = h.service.bot!.i18n;
    expect(i18n.t("ru", "paysupport", { contact: "@helpdesk", id: "1" })).toContain("@helpdesk");
    expect(i18n.t("en", "paysupport-no-contact", { id: "1" })).toContain("no support contact");
  });
});
