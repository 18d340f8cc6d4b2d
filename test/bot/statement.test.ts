import { request } from "undici";
import { describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import type { ChatMessage } from "../../src/emulator/state.js";
import type { BotHarness, Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

let bots: BotHarness;
let h: Harness;
useBotHarness(680_000_001, { books: true }, (started) => {
  bots = started;
  h = started.h;
});

const buttons = (message: ChatMessage) => message.reply_markup?.inline_keyboard.flat().map((b) => b.text) ?? [];
const isStatement = (t: string) => t.startsWith("📒");

describe("the bot's statement", () => {
  it("is listed in the command lists, the help text and the main menu (also under /balance)", async () => {
    const { calls } = (await (await request(`${bots.emulatorUrl}/emulator/calls`)).body.json()) as {
      calls: Array<{ method: string; payload: { commands?: Array<{ command: string; description: string }>; language_code?: string } }>;
    };
    const lists = calls.filter((c) => c.method === "setMyCommands");
    expect(lists.find((c) => !c.payload.language_code)!.payload.commands).toContainEqual({
      command: "statement",
      description: "Balance history and CSV export",
    });
    expect(lists.find((c) => c.payload.language_code === "ru")!.payload.commands).toContainEqual({
      command: "statement",
      description: "История баланса и выгрузка CSV",
    });
    const { chat } = await bots.registered(1);
    const help = (await chat.reply("/help", (t) => t.includes("/statement"))).text;
    for (const command of ["/statement", "/topup", "/topups", "/paysupport", "/terms"]) expect(help).toContain(command);
    const balance = await chat.reply("/balance", (t) => t.includes("USDT"));
    expect(buttons(balance)).toContain("📒 Statement");
    await chat.tap("📒 Statement");
    expect((await chat.next(isStatement)).text).toContain("Balance now: 1.00 USDT");
  });

  it("pages ten entries at a time, newest first, with an Older button, and shows kinds, signed amounts, orders, balances and notes", async () => {
    const { chat, key, telegramId } = await bots.registered(5);
    for (let i = 1; i <= 12; i++) await h.service.core.admin.credit(telegramId, fromUsdt(i / 100), "test", { note: `top-up ${i}` });
    const order = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
    await h.service.core.admin.debit(telegramId, fromUsdt(1), "test", { note: '=HYPERLINK("x")' });

    const first = await chat.reply("/statement", isStatement);
    const lines = first.text.split("\n");
    expect(lines[0]).toBe("📒 Balance history, newest first. Balance now: 4.03 USDT");
    const entryLines = lines.filter((l) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} · /.test(l));
    expect(entryLines.length).toBe(10);
    expect(entryLines[0]).toMatch(/ · debit · -1\.00 · → 4\.03$/);
    expect(lines[lines.indexOf(entryLines[0]) + 1]).toBe('    “=HYPERLINK("x")”');
    expect(entryLines[1]).toMatch(new RegExp(` · charge · -0\\.75 · order #${order.body.order_id} · → 5\\.03$`));
    expect(entryLines[2]).toMatch(/ · credit · \+0\.12 · → 5\.78$/);
    expect(buttons(first)).toEqual(["◀ Older", "📄 CSV: this month", "📄 CSV: last month", "📄 CSV: last 30 days"]);

    await chat.tap("◀ Older");
    const second = await chat.next(isStatement);
    const older = second.text.split("\n").filter((l) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2} · /.test(l));
    expect(older.length).toBe(5);
    expect(older[0]).toMatch(/ · credit · \+0\.04 · → 5\.10$/);
    expect(older.at(-1)).toMatch(/ · credit · \+5\.00 · → 5\.00$/);
    expect(second.text).toContain("“top-up 1”");
    expect(buttons(second)).not.toContain("◀ Older");
  });

  it("sends this month, last month and the last 30 days as CSV documents, the same bytes the API exports for the range", async () => {
    const { chat, key, telegramId } = await bots.registered(2);
    await h.service.core.admin.credit(telegramId, fromUsdt(0.000001), "test", { note: '-tiny, "quoted"' });
    await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
    await chat.reply("/statement", isStatement);

    await chat.tap("CSV: this month");
    const month = await chat.nextDocument();
    const now = new Date();
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
    const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    const api = await h.call("GET", `/v1/ledger/export?from=${from}&to=${to}`, { key });
    expect(EmulatedChat.documentText(month)).toBe(api.body);
    expect(month.document!.file_name).toBe(/filename="([^"]+)"/.exec(String(api.headers["content-disposition"]))![1]);
    const rows = EmulatedChat.documentText(month).split("\r\n");
    expect(rows[0]).toBe("entry_id,created_at,kind,amount_usdt,balance_after_usdt,order_id,note");
    expect(rows.slice(1, 4).map((r) => r.split(",").slice(2, 5))).toEqual([
      ["credit", "2.00", "2.00"],
      ["credit", "0.000001", "2.000001"],
      ["charge", "-0.75", "1.250001"],
    ]);
    expect(rows[2]).toMatch(/,"'-tiny, ""quoted"""$/);
    const last = new Date(Date.parse(to) - 1).toISOString().slice(0, 10);
    expect(month.text).toBe(`Statement ${from.slice(0, 10)} – ${last} (UTC): 3 entries. Opening balance 0.00 USDT, closing 1.250001 USDT.`);
    expect(buttons(month)).toContain("📒 Statement");

    await chat.tap("CSV: last month");
    const previous = await chat.nextDocument();
    expect(EmulatedChat.documentText(previous)).toBe("entry_id,created_at,kind,amount_usdt,balance_after_usdt,order_id,note\r\n");
    expect(previous.text).toContain(": 0 entries. Opening balance 0.00 USDT, closing 0.00 USDT.");

    await chat.tap("CSV: last 30 days");
    const recent = await chat.nextDocument();
    expect(EmulatedChat.documentText(recent).split("\r\n").length).toBe(5);
    expect(recent.document!.file_name).toMatch(/^ledger_\d{8}T000000Z_\d{8}T000000Z\.csv$/);
  });

  it("names a top-up as one in both languages, never a raw key", async () => {
    for (const [language_code, kind] of [
      ["en", "top-up"],
      ["ru", "пополнение"],
    ]) {
      const { chat, key } = await bots.registered(0, { language_code });
      const made = await h.call("POST", "/v1/topups", { key, body: { method: "transfer", amount_usdt: 3, reference: `bank ${language_code}` } });
      await h.service.core.topups.decide(made.body.topup.topup_id, { telegramId: "1", name: "Test" }, { approve: true });
      const shown = await chat.reply("/statement", (t) => isStatement(t) && t.includes("3.00"));
      expect(shown.text).toMatch(new RegExp(` · ${kind} · \\+3\\.00 · → 3\\.00$`, "m"));
      expect(shown.text).not.toMatch(/[{}]/);
    }
  });

  it("speaks Russian to a Russian user, and shows an owner key its orders on the wallet without a balance", async () => {
    const { chat, key, telegramId } = await bots.registered(0, { language_code: "ru" });
    await h.service.core.admin.setWallet(fromUsdt(100), "test");
    await h.service.core.admin.makeOwner(telegramId, {}, "test");
    const order = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    const shown = await chat.reply("/statement", isStatement);
    expect(shown.text).toContain("Списания и возвраты ваших заказов с кошелька сервиса");
    expect(shown.text).toContain("Итого: -1.50 USDT");
    expect(shown.text).toMatch(new RegExp(` · оплата · -1\\.50 · заказ #${order.body.order_id}$`, "m"));
    expect(shown.text).not.toContain("→");
    await chat.tap("CSV: этот месяц");
    const csv = await chat.nextDocument();
    expect(csv.text).toMatch(/^Ваши заказы с кошелька сервиса .*записей: 1\. Итого до периода 0\.00 USDT, после -1\.50 USDT\.$/);
    expect(EmulatedChat.documentText(csv).split("\r\n")[1]).toMatch(new RegExp(`,charge,-1\\.50,,${order.body.order_id},$`));
  });
});
