import { request } from "undici";
import { describe, expect, it } from "vitest";
import { EmulatedChat } from "../../src/emulator/client.js";
import type { BotHarness, Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// Top-ups in the chat: an invoice's pay link two taps from the menu, credited when paid; a transfer stated,
// decided by the first administrator, the others' messages updated; in both languages (issue 20).

const ADMINS = [680_000_901, 680_000_902];
let bots: BotHarness;
let h: Harness;
let admins: EmulatedChat[];
useBotHarness(680_000_001, { admins: ADMINS, env: { TOPUP_POLL_MS: "200" }, books: true }, (started) => {
  bots = started;
  h = started.h;
  admins = ADMINS.map(
    (id, i) => new EmulatedChat(bots.emulatorUrl, { id, first_name: ["Ann", "Bob"][i], username: `admin_${i}`, language_code: "en" }),
  );
});

const payUrlOf = (message: { reply_markup?: { inline_keyboard: Array<Array<{ text: string; url?: string }>> } }) =>
  message.reply_markup?.inline_keyboard.flat().find((b) => b.url)?.url;

describe("top-ups in the bot", () => {
  it("reaches a pay link in two taps from the menu, and tells the user when the invoice is paid", async () => {
    const { chat, key } = await bots.registered(0);
    await chat.tap("Top up"); // 1: the main menu's button
    await chat.next((t) => t.includes("How much do you want to add"));
    await chat.tap("25 USDT"); // 2: an amount
    const invoice = await chat.next((t) => t.includes("Invoice for 25.00 USDT"));
    expect(payUrlOf(invoice)).toMatch(/^https:\/\/t\.me\/CryptoBot\?start=/);

    const [topup] = (await h.call("GET", "/v1/topups", { key })).body.topups;
    const paid = await request(`${h.simulatorUrl}/cryptopay/control/invoices/${topup.invoice_id}/pay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deliver: false }),
    });
    expect(paid.statusCode).toBe(200);
    await paid.body.dump();
    // No webhook reaches this service: the poll finds the payment.
    expect((await chat.next((t) => t.includes("Top-up credited"))).text).toContain("+25.00 USDT. Balance: 25.00 USDT");
    expect(await h.balance(key)).toBe(25);
  });

  it("takes a typed amount in Russian, and cancels the invoice from /topups", async () => {
    const { chat, key } = await bots.registered(0, { language_code: "ru" });
    await chat.reply("/topup", (t) => t.includes("Сколько добавить"));
    await chat.reply("12,5", (t) => t.includes("Счёт на 12.50 USDT"));
    const list = await chat.reply("/topups", (t) => t.includes("ждёт оплаты"));
    expect(list.text).toContain("12.50 USDT");
    await chat.tap("Отменить");
    await chat.next((t) => t.includes("отменено"));
    expect((await h.call("GET", "/v1/topups", { key })).body.topups[0].status).toBe("cancelled");
  });

  it("asks every administrator about a transfer; the first to decide wins and the others' messages say who", async () => {
    const { chat, key, telegramId } = await bots.registered(0, { username: "payer_p" });
    await chat.reply("/topup", (t) => t.includes("How much"));
    await chat.tap("I paid by transfer");
    await chat.next((t) => t.includes("How much did you transfer"));
    await chat.reply("40", (t) => t.includes("transaction id"));
    const sent = await chat.reply("bank ref 7781", (t) => t.includes("sent to the administrators"));
    const id = Number(/#(\d+)/.exec(sent.text)![1]);

    const asked = await Promise.all(admins.map((admin) => admin.next((t) => t.includes(`Transfer top-up #${id}`))));
    for (const message of asked) {
      expect(message.text).toContain(`${telegramId} @payer_p says they paid 40.00 USDT`);
      expect(message.text).toContain("Reference, as the user typed it: bank ref 7781");
      // The reference is shown as code: plain text, never a link, whatever the user typed.
      const offset = message.text.indexOf("bank ref 7781");
      expect(message.entities).toContainEqual({ type: "code", offset, length: "bank ref 7781".length });
      expect(message.text).toContain("Balance now: 0.00 USDT");
    }
    await admins[0].tap("Approve");
    expect((await chat.next((t) => t.includes("Top-up credited"))).text).toContain("+40.00 USDT");
    for (const admin of admins) {
      const updated = await admin.next((t) => t.includes(`#${id}`) && t.includes("approved by"));
      expect(updated.text).toContain(`approved by Ann (${ADMINS[0]})`);
      expect(updated.reply_markup?.inline_keyboard ?? []).toEqual([]);
    }
    // The second administrator's late rejection decides nothing.
    expect((await admins[1].reply(`/reject ${id} duplicate`, (t) => t.includes("decided already"))).text).toContain(`#${id}`);
    expect(await h.balance(key)).toBe(40);
    expect((await admins[0].reply("/stats", (t) => t.includes("top-ups"))).text).toMatch(
      /top-ups \(all time\): .*transfer credited: 1 \(40\.00 USDT\)/,
    );
    const [entry] = (await h.call("GET", "/v1/ledger", { key })).body.entries;
    // The customer's note does not name the administrator (the audit log does).
    expect(entry).toMatchObject({ kind: "topup", amount_usdt: 40, note: `Transfer top-up ${id} approved` });

    // A rejection: the user is told the reason.
    await chat.reply("/topup", (t) => t.includes("How much"));
    await chat.tap("I paid by transfer");
    await chat.next((t) => t.includes("How much did you transfer"));
    await chat.reply("15", (t) => t.includes("transaction id"));
    const again = await chat.reply("cash", (t) => t.includes("sent to the administrators"));
    const second = Number(/#(\d+)/.exec(again.text)![1]);
    await admins[1].next((t) => t.includes(`Transfer top-up #${second}`));
    // Reject asks for the reason in the next message (no command to retype); Cancel decides nothing.
    await admins[1].tap("Reject");
    const question = await admins[1].next((t) => t.includes("send the reason"));
    expect(question.text).toBe(
      `Reject transfer top-up #${second} (${telegramId} @payer_p, 15.00 USDT): send the reason the user is told, or tap Cancel.`,
    );
    expect(question.text).not.toContain("/reject");
    await admins[1].tap("Cancel");
    await admins[1].next((t) => t.includes("Cancelled"));
    expect((await h.service.core.topups.review(second)).topup.status).toBe("pending");
    // Another command leaves the step: the text after it is not taken for a reason.
    await admins[1].tap("Reject");
    await admins[1].next((t) => t.includes("send the reason"));
    await admins[1].reply("/help", (t) => t.includes("/credit"));
    await admins[1].reply("thanks", (t) => t.includes("did not understand"));
    expect((await h.service.core.topups.review(second)).topup.status).toBe("pending");
    await admins[1].tap("Reject");
    await admins[1].next((t) => t.includes("send the reason"));
    expect((await admins[1].reply("no such payment", (t) => t.includes("rejected"))).text).toBe(`Top-up #${second} rejected; the user was told why.`);
    expect((await chat.next((t) => t.includes("was rejected"))).text).toContain("no such payment");
    expect((await admins[0].next((t) => t.includes(`#${second}`) && t.includes("rejected by"))).text).toContain("no such payment");
    expect(await h.balance(key)).toBe(40);
  });

  it("flags a reference used before and asks to confirm; a cancelled request's messages lose their buttons at once", async () => {
    const first = await bots.registered(0, { username: "payer_q" });
    const second = await bots.registered(0, { username: "payer_r" });
    const ask = async (who: typeof first, amount: string, reference: string) => {
      await who.chat.reply("/topup", (t) => t.includes("How much"));
      await who.chat.tap("I paid by transfer");
      await who.chat.next((t) => t.includes("How much did you transfer"));
      await who.chat.reply(amount, (t) => t.includes("transaction id"));
      const sent = await who.chat.reply(reference, (t) => t.includes("sent to the administrators"));
      return Number(/#(\d+)/.exec(sent.text)![1]);
    };
    const original = await ask(first, "40", "bank tx 7781 https://example.com/proof");
    await admins[0].next((t) => t.includes(`Transfer top-up #${original}`));
    await admins[0].tap("Approve");
    await first.chat.next((t) => t.includes("Top-up credited"));
    expect(await h.balance(first.key)).toBe(40);

    // The same reference again, from another account and written differently: flagged, and approving asks first.
    const copy = await ask(second, "40", "Bank TX-7781 https://example.com/proof");
    const flagged = await admins[0].next((t) => t.includes(`Transfer top-up #${copy}`));
    expect(flagged.text).toContain(`same reference is on transfer #${original} (credited, ${first.telegramId})`);
    await admins[0].tap("Approve");
    await admins[0].next((t) => t.includes(`Approve transfer top-up #${copy}`));
    expect(await h.balance(second.key)).toBe(0);
    await admins[0].tap(`Yes, approve #${copy}`);
    expect((await second.chat.next((t) => t.includes("Top-up credited"))).text).toContain("+40.00 USDT");
    expect(await h.balance(second.key)).toBe(40);

    // Above ADMIN_CONFIRM_ABOVE_USDT (1,000 here): approving asks to confirm too.
    const large = await ask(first, "5000", "wire 5000");
    const above = await admins[1].next((t) => t.includes(`Transfer top-up #${large}`));
    expect(above.text).toContain("Above 1000.00 USDT: approving needs a confirmation");
    await admins[1].tap("Approve");
    await admins[1].next((t) => t.includes(`Approve transfer top-up #${large}`));
    expect(await h.balance(first.key)).toBe(40);

    // The user cancels it: both administrators' messages say so at once, with no buttons left.
    await first.chat.reply("/topups", (t) => t.includes("waiting for an administrator"));
    await first.chat.tap(`Cancel #${large}`);
    await first.chat.next((t) => t.includes("cancelled"));
    for (const admin of admins) {
      const closed = await admin.next((t) => t.includes(`#${large}`) && t.includes("cancelled by the user"));
      expect(closed.reply_markup?.inline_keyboard ?? []).toEqual([]);
    }
    // A confirmation tapped after the cancel decides nothing.
    await admins[1].tap(`Yes, approve #${large}`);
    await admins[1].next((t) => t.includes("decided already"));
    expect(await h.balance(first.key)).toBe(40);
  });
});
