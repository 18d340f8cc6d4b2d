import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";

let s: ListeningHarness;
beforeAll(async () => {
  s = await startListeningHarness();
});
afterAll(() => s.close());

const ENTRIES = 300;

describe("the ledger statement through the client", () => {
  it("pages through a few hundred entries: every entry once, newest first, adding up to closing - opening", { timeout: 60_000 }, async () => {
    const { telegramId, client } = await s.partner(0);
    for (let i = 1; i <= ENTRIES; i++) await s.h.service.core.admin.credit(telegramId, fromUsdt(i % 7 === 0 ? 0.5 : 0.01), `credit ${i}`);
    for (let i = 0; i < 5; i++) await client.buyStars({ username: "alice", stars: 50 });

    const pages = [];
    for await (const page of client.ledgerPages({ limit: 100 })) pages.push(page);
    expect(pages).toHaveLength(Math.ceil((ENTRIES + 5) / 100));
    const entries = pages.flatMap((page) => page.entries);
    expect(entries).toHaveLength(ENTRIES + 5);
    const ids = entries.map((entry) => entry.entry_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    for (const page of pages) expect([page.opening_balance_usdt, page.closing_balance_usdt]).toEqual([0, (await client.balance()).balance_usdt]);
    const sum = entries.reduce((total, entry) => total + Math.round(entry.amount_usdt * 1e6), 0) / 1e6;
    expect(sum).toBeCloseTo(pages[0]!.closing_balance_usdt - pages[0]!.opening_balance_usdt, 6);

    const streamed: number[] = [];
    for await (const entry of client.ledgerEntries({ limit: 37 })) streamed.push(entry.entry_id);
    expect(streamed).toEqual(ids);
  });

  it("exports a range as CSV with its totals", async () => {
    const { telegramId, client } = await s.partner(0);
    for (let i = 0; i < 3; i++) await s.h.service.core.admin.credit(telegramId, fromUsdt(2), `=credit ${i}`);
    const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const statement = await client.exportLedger({ from, to });
    expect(statement.entryCount).toBe(3);
    expect(statement.closingBalanceUsdt - statement.openingBalanceUsdt).toBe(6);
    expect(statement.filename).toMatch(/^ledger_.*\.csv$/);
    const lines = statement.csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("entry_id,created_at,kind,amount_usdt,balance_after_usdt,order_id,note");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^\d+,[^,]+,credit,2\.00,2\.00,,/);
  });
});
