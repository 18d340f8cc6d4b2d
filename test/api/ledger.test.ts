import { describe, expect, it } from "vitest";
import { fromUsdt, parseUsdt } from "../../src/core/model/money.js";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Entry {
  entry_id: number;
  kind: string;
  amount_usdt: number;
  balance_after_usdt: number | null;
  order_id: number | null;
  note: string | null;
  created_at: string;
}

/** Micro of a JSON number of USDT, so sums are exact. */
const micro = (usdt: number) => fromUsdt(usdt);
const sumMicro = (entries: Entry[]) => entries.reduce((total, e) => total + micro(e.amount_usdt), 0);

/** Every page of a statement, following next_before; checks the totals are the same on each page. */
async function allPages(key: string, query: string, limit: number) {
  const pages = [];
  let before: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const response = await h.call("GET", `/v1/ledger?limit=${limit}${query}${before ? `&before=${before}` : ""}`, { key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.count).toBe(response.body.entries.length);
    expect(response.body.entries.length).toBeLessThanOrEqual(limit);
    pages.push(response.body);
    before = response.body.next_before;
    if (!before) break;
    expect(response.body.entries.length).toBe(limit);
  }
  for (const page of pages) {
    expect(page.opening_balance_usdt).toBe(pages[0].opening_balance_usdt);
    expect(page.closing_balance_usdt).toBe(pages[0].closing_balance_usdt);
  }
  const entries: Entry[] = pages.flatMap((p) => p.entries);
  return { pages, entries, opening: pages[0].opening_balance_usdt as number, closing: pages[0].closing_balance_usdt as number };
}

/** RFC 4180: rows of cells, quotes doubled inside quoted cells, CRLF between rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  expect(cell).toBe("");
  expect(row).toEqual([]);
  return rows;
}

/** A signed exact decimal string of the CSV to micro. */
const csvMicro = (text: string) => (text.startsWith("-") ? -parseUsdt(text.slice(1))! : parseUsdt(text)!);

describe("GET /v1/ledger", () => {
  it("pages through every entry newest first with no gap or duplicate; each entry shows its kind, signed amount, balance after, order and note", async () => {
    const { key, telegramId } = await h.newKey(50);
    await h.service.core.admin.credit(telegramId, fromUsdt(10.123456), "test", { note: "top-up invoice 7" });
    await h.service.core.admin.debit(telegramId, fromUsdt(0.5), "test", { note: "fee" });
    const stars = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    const failed = await h.call("POST", "/v1/stars", { key, body: { username: "fail_bob", stars: 100 } });
    expect(failed.status).toBe(502);
    for (let i = 0; i < 9; i++) await h.call("POST", "/v1/stars", { key, body: { username: "carol", stars: 50 + i } });

    const first = await h.call("GET", "/v1/ledger", { key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      basis: "balance",
      from: null,
      to: null,
      opening_balance_usdt: 0,
      count: 15,
      next_before: null,
    });
    const balance = await h.balance(key);
    expect(first.body.closing_balance_usdt).toBe(balance);
    expect(first.body.entries[0].balance_after_usdt).toBe(balance);
    const oldest = first.body.entries.slice(-6);
    expect(oldest[5]).toMatchObject({ kind: "credit", amount_usdt: 50, balance_after_usdt: 50, order_id: null, note: null });
    expect(oldest[4]).toMatchObject({ kind: "credit", amount_usdt: 10.123456, balance_after_usdt: 60.123456, note: "top-up invoice 7" });
    expect(oldest[3]).toMatchObject({ kind: "debit", amount_usdt: -0.5, balance_after_usdt: 59.623456, note: "fee" });
    expect(oldest[2]).toMatchObject({ kind: "charge", amount_usdt: -1.5, balance_after_usdt: 58.123456, order_id: stars.body.order_id, note: null });
    expect(oldest[1]).toMatchObject({ kind: "charge", amount_usdt: -1.5, order_id: failed.body.order_id });
    expect(oldest[0]).toMatchObject({ kind: "refund", amount_usdt: 1.5, balance_after_usdt: 58.123456, order_id: failed.body.order_id });
    expect(Object.keys(oldest[0]).sort()).toEqual(["amount_usdt", "balance_after_usdt", "created_at", "entry_id", "kind", "note", "order_id"]);

    for (const limit of [1, 4, 7, 15, 100]) {
      const { entries, opening, closing, pages } = await allPages(key, "", limit);
      expect(pages.length).toBe(Math.ceil(15 / limit));
      expect(entries.map((e) => e.entry_id)).toEqual(first.body.entries.map((e: Entry) => e.entry_id));
      expect(new Set(entries.map((e) => e.entry_id)).size).toBe(15);
      expect(micro(closing) - micro(opening)).toBe(sumMicro(entries));
    }
    // Each balance follows from the one before it by the entry's amount.
    const ascending = [...first.body.entries].reverse() as Entry[];
    for (let i = 1; i < ascending.length; i++) {
      expect(micro(ascending[i].balance_after_usdt!)).toBe(micro(ascending[i - 1].balance_after_usdt!) + micro(ascending[i].amount_usdt));
    }
  });

  it("a range [from, to) holds exactly its entries; opening is the balance before it, closing the balance at its end, equal to opening plus the entries on every page", async () => {
    const { key, telegramId } = await h.newKey(1);
    for (let i = 2; i <= 12; i++) {
      // Kept on purpose: entries a few milliseconds apart, so each range boundary below falls between two of them.
      await sleep(3);
      await h.service.core.admin.credit(telegramId, fromUsdt(i + 0.01), "test", { note: `n${i}` });
    }
    const all = (await allPages(key, "", 100)).entries.reverse();
    expect(all.length).toBe(12);
    for (const [lo, hi] of [
      [0, 12],
      [3, 8],
      [5, 6],
      [11, 12],
      [0, 1],
    ]) {
      const from = all[lo].created_at;
      const to = hi < all.length ? all[hi].created_at : new Date(Date.parse(all[11].created_at) + 1).toISOString();
      const { entries, opening, closing } = await allPages(key, `&from=${from}&to=${to}`, 2);
      expect(entries.map((e) => e.entry_id)).toEqual(
        all
          .slice(lo, hi)
          .map((e) => e.entry_id)
          .reverse(),
      );
      expect(opening).toBe(lo === 0 ? 0 : all[lo - 1].balance_after_usdt);
      expect(closing).toBe(all[hi - 1].balance_after_usdt);
      expect(micro(closing) - micro(opening)).toBe(sumMicro(entries));
    }
    // Open-ended on either side; a range with nothing in it.
    const sinceFifth = await allPages(key, `&from=${all[4].created_at}`, 3);
    expect(sinceFifth.entries.length).toBe(8);
    expect(sinceFifth.closing).toBe(await h.balance(key));
    const beforeFifth = await allPages(key, `&to=${all[4].created_at}`, 3);
    expect(beforeFifth.entries.length).toBe(4);
    expect(beforeFifth).toMatchObject({ opening: 0, closing: all[3].balance_after_usdt });
    const empty = await h.call("GET", "/v1/ledger?from=2001-01-01&to=2001-02-01", { key });
    expect(empty.body).toMatchObject({ count: 0, entries: [], opening_balance_usdt: 0, closing_balance_usdt: 0, next_before: null });
    // A date and a time with an offset are read as the instants they name.
    const offset = await h.call("GET", "/v1/ledger?from=2001-01-01T03:00:00%2B03:00&to=2001-01-02", { key });
    expect(offset.body).toMatchObject({ from: "2001-01-01T00:00:00.000Z", to: "2001-01-02T00:00:00.000Z" });
  });

  it("never shows another key's entries, even with that key's cursor; a rotated key keeps its account's statement", async () => {
    const a = await h.newKey(30);
    const b = await h.newKey(7);
    await h.call("POST", "/v1/stars", { key: a.key, body: { username: "alice", stars: 50 } });
    const aPage = await h.call("GET", "/v1/ledger?limit=1", { key: a.key });
    const bAll = await h.call("GET", "/v1/ledger", { key: b.key });
    expect(bAll.body.entries.map((e: Entry) => e.amount_usdt)).toEqual([7]);
    const withCursor = await h.call("GET", `/v1/ledger?before=${aPage.body.next_before}`, { key: b.key });
    expect(withCursor.status).toBe(200);
    expect(withCursor.body.entries.every((e: Entry) => bAll.body.entries.some((x: Entry) => x.entry_id === e.entry_id))).toBe(true);
    const aAll = await h.call("GET", "/v1/ledger", { key: a.key });
    expect(aAll.body.entries.some((e: Entry) => bAll.body.entries.some((x: Entry) => x.entry_id === e.entry_id))).toBe(false);

    const rotated = await h.service.core.admin.issueKey(a.telegramId);
    expect((await h.call("GET", "/v1/ledger", { key: a.key })).status).toBe(401);
    expect((await h.call("GET", "/v1/ledger", { key: rotated.key })).body.entries).toEqual(aAll.body.entries);
  });

  it("refuses bad input with 400 naming the parameter, and changes nothing", async () => {
    const { key } = await h.newKey(5);
    const before = await h.call("GET", "/v1/ledger", { key });
    const cases: Array<[string, RegExp]> = [
      ["limit=0", /limit must be a whole number from 1 to 100/],
      ["limit=101", /limit must be a whole number from 1 to 100/],
      ["limit=abc", /limit must be a whole number from 1 to 100/],
      ["before=xyz", /before must be a next_before value/],
      ["before=" + Buffer.from("e0").toString("base64url"), /before must be a next_before value/],
      ["before=12", /before must be a next_before value/],
      ["from=yesterday", /from must be an ISO 8601 date or time/],
      ["from=2026-02-30", /from must be an ISO 8601 date or time/],
      ["from=2026-11-01T10:00:00", /from must be an ISO 8601 date or time/],
      ["to=2026-13-01", /to must be an ISO 8601 date or time/],
      ["from=1969-12-31", /from must be an ISO 8601 date or time/],
      ["from=2026-11-02&to=2026-11-01", /from must be before to/],
      ["from=2026-11-01&to=2026-11-01", /from must be before to/],
    ];
    for (const [query, message] of cases) {
      const response = await h.call("GET", `/v1/ledger?${query}`, { key });
      expect(response.status, query).toBe(400);
      expect(response.body.success, query).toBe(false);
      expect(response.body.error, query).toMatch(message);
    }
    const exportCases: Array<[string, RegExp]> = [
      ["from=2026-01-01", /^to is required$/],
      ["to=2026-01-01", /^from is required$/],
      ["from=2025-01-01&to=2026-01-03", /at most 366 days/],
      ["from=2026-02-01&to=2026-01-01", /from must be before to/],
      ["from=2026-01-01&to=nope", /to must be an ISO 8601 date or time/],
    ];
    for (const [query, message] of exportCases) {
      const response = await h.call("GET", `/v1/ledger/export?${query}`, { key });
      expect(response.status, query).toBe(400);
      expect(response.body.error, query).toMatch(message);
    }
    expect((await h.call("GET", "/v1/ledger/export?from=2025-01-01&to=2026-01-02", { key })).status).toBe(200);
    expect((await h.call("GET", "/v1/ledger", { key })).body).toEqual(before.body);
    expect((await h.call("GET", "/v1/ledger")).status).toBe(401);
    expect((await h.call("GET", "/v1/ledger/export?from=2026-01-01&to=2026-02-01")).status).toBe(401);
  });
});

describe("GET /v1/ledger/export", () => {
  it("neutralises a formula wherever a spreadsheet of any locale could start a cell in a note", async () => {
    const { key, telegramId } = await h.newKey(0);
    const notes = ["refund;=1+2", "paid, +1", "tab\t@cmd", " =SUM(A1)", "two\n-3", "ok; fine", "a-b=c"];
    for (const note of notes) await h.service.core.admin.credit(telegramId, fromUsdt(1), "test", { note });
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const response = await h.call("GET", `/v1/ledger/export?from=${from}&to=${to}`, { key });
    const shown = parseCsv(response.body as string)
      .slice(1)
      .map((row) => row[6]);
    expect(shown).toEqual(["refund;'=1+2", "paid,' +1", "tab\t'@cmd", "' =SUM(A1)", "two\n'-3", "ok; fine", "a-b=c"]);
    // Each of them is one quoted cell, so a reader splitting on ; or tab keeps it whole.
    expect(response.body).toContain('"refund;\'=1+2"');
    expect(response.body).toContain('"ok; fine"');
  });

  it("answers CSV oldest first, cell by cell, with notes quoted and guarded against formulas, and totals in headers that sum up", async () => {
    const { key, telegramId } = await h.newKey(20);
    const notes = ["=SUM(A1:A9)", "+1 bonus", "-5 correction", "@cmd", 'said "hi", then left', "two\r\nlines", "Пополнение, счёт №5", "plain"];
    for (const note of notes) await h.service.core.admin.credit(telegramId, fromUsdt(1.000001), "test", { note });
    await h.service.core.admin.debit(telegramId, fromUsdt(3), "test", { note: "\tTabbed" });
    const order = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
    const statement = await h.call("GET", "/v1/ledger?limit=100", { key });
    const entries = [...statement.body.entries].reverse() as Entry[];
    // The longest range allowed, from a whole second 100 days ago.
    const from = new Date(Math.floor(Date.now() / 1000) * 1000 - 100 * 24 * 3600_000).toISOString();
    const to = new Date(Date.parse(from) + 366 * 24 * 3600_000).toISOString();
    const compact = (iso: string) => iso.replace(".000Z", "Z").replace(/[-:]/g, "");

    const response = await h.call("GET", `/v1/ledger/export?from=${from}&to=${to}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(response.headers["content-disposition"]).toBe(`attachment; filename="ledger_${compact(from)}_${compact(to)}.csv"`);
    const rows = parseCsv(response.body as string);
    expect(rows[0]).toEqual(["entry_id", "created_at", "kind", "amount_usdt", "balance_after_usdt", "order_id", "note"]);
    expect(rows.length).toBe(entries.length + 1);
    expect(rows[1]).toEqual([String(entries[0].entry_id), entries[0].created_at, "credit", "20.00", "20.00", "", ""]);
    const shownNotes = [
      "'=SUM(A1:A9)",
      "'+1 bonus",
      "'-5 correction",
      "'@cmd",
      'said "hi", then left',
      "two\r\nlines",
      "Пополнение, счёт №5",
      "plain",
    ];
    shownNotes.forEach((note, i) => {
      expect(rows[i + 2]).toEqual([
        String(entries[i + 1].entry_id),
        entries[i + 1].created_at,
        "credit",
        "1.000001",
        entries[i + 1].balance_after_usdt!.toFixed(6),
        "",
        note,
      ]);
    });
    expect(rows[10]).toEqual([String(entries[9].entry_id), entries[9].created_at, "debit", "-3.00", "25.000008", "", "'\tTabbed"]);
    expect(rows[11]).toEqual([String(entries[10].entry_id), entries[10].created_at, "charge", "-0.75", "24.250008", String(order.body.order_id), ""]);
    // The raw text: quotes doubled, CRLF everywhere.
    expect(response.body).toContain('"said ""hi"", then left"');
    expect((response.body as string).split("\r\n").length).toBe(rows.length + 2); // the quoted note holds one more CRLF

    const opening = response.headers["x-opening-balance-usdt"];
    const closing = response.headers["x-closing-balance-usdt"];
    expect(opening).toBe("0");
    expect(Number(closing)).toBe(await h.balance(key));
    expect(response.headers["x-entry-count"]).toBe(String(entries.length));
    expect(response.headers["x-statement-basis"]).toBe("balance");
    const sum = rows.slice(1).reduce((total, row) => total + csvMicro(row[3]), 0);
    expect(fromUsdt(Number(closing)) - fromUsdt(Number(opening))).toBe(sum);

    // A range that starts after the first entries: opening is the balance then, and the sum still holds.
    const mid = entries[4].created_at;
    const part = await h.call("GET", `/v1/ledger/export?from=${mid}&to=${to}`, { key });
    const partRows = parseCsv(part.body as string).slice(1);
    expect(partRows.map((r) => Number(r[0]))).toEqual(entries.filter((e) => e.created_at >= mid).map((e) => e.entry_id));
    // Entries made within one millisecond share a time: none may be before `mid`, and the opening is then 0.
    expect(Number(part.headers["x-opening-balance-usdt"])).toBe(entries.filter((e) => e.created_at < mid).at(-1)?.balance_after_usdt ?? 0);
    const partSum = partRows.reduce((total, row) => total + csvMicro(row[3]), 0);
    expect(fromUsdt(Number(part.headers["x-closing-balance-usdt"])) - fromUsdt(Number(part.headers["x-opening-balance-usdt"]))).toBe(partSum);
    // An empty range is a header row alone.
    const none = await h.call("GET", "/v1/ledger/export?from=2001-01-01&to=2001-01-02", { key });
    expect(none.body).toBe("entry_id,created_at,kind,amount_usdt,balance_after_usdt,order_id,note\r\n");
    expect(none.headers["content-disposition"]).toBe('attachment; filename="ledger_20010101T000000Z_20010102T000000Z.csv"');
  });
});

describe("an owner key's statement", () => {
  it("shows the wallet's charges and refunds of the orders this key placed, none of another owner key's or of the wallet's own changes, with a running net total", async () => {
    await h.service.core.admin.setWallet(fromUsdt(500), "test");
    const owner = await h.newKey();
    const other = await h.newKey();
    await h.service.core.admin.makeOwner(owner.telegramId, {}, "test");
    await h.service.core.admin.makeOwner(other.telegramId, {}, "test");
    const o1 = await h.call("POST", "/v1/stars", { key: owner.key, body: { username: "alice", stars: 100 } });
    await h.call("POST", "/v1/stars", { key: other.key, body: { username: "alice", stars: 200 } });
    const o2 = await h.call("POST", "/v1/stars", { key: owner.key, body: { username: "fail_bob", stars: 50 } });
    await h.service.core.admin.setWallet(fromUsdt(400), "test");
    const o3 = await h.call("POST", "/v1/premium", { key: owner.key, body: { username: "alice", months: 3 } });
    expect([o1.status, o2.status, o3.status]).toEqual([200, 502, 200]);

    const { entries, opening, closing, pages } = await allPages(owner.key, "", 2);
    expect(pages[0].basis).toBe("owner_orders");
    expect(entries.map((e) => [e.kind, e.amount_usdt, e.order_id, e.balance_after_usdt, e.note])).toEqual([
      ["charge", -11.99, o3.body.order_id, null, null],
      ["refund", 0.75, o2.body.order_id, null, null],
      ["charge", -0.75, o2.body.order_id, null, null],
      ["charge", -1.5, o1.body.order_id, null, null],
    ]);
    expect(opening).toBe(0);
    expect(closing).toBe(-13.49);
    expect(micro(closing) - micro(opening)).toBe(sumMicro(entries));
    // A range after the first order: its opening is the net total before it.
    const all = [...entries].reverse();
    const since = await allPages(owner.key, `&from=${all[1].created_at}`, 1);
    expect(since.entries.length).toBe(3);
    expect(since.opening).toBe(-1.5);
    expect(since.closing).toBe(-13.49);

    const csv = await h.call(
      "GET",
      `/v1/ledger/export?from=${new Date(Date.now() - 300 * 24 * 3600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`,
      {
        key: owner.key,
      },
    );
    expect(csv.headers["x-statement-basis"]).toBe("owner_orders");
    const rows = parseCsv(csv.body as string).slice(1);
    expect(rows.map((r) => [r[2], r[3], r[4], r[5]])).toEqual([
      ["charge", "-1.50", "", String(o1.body.order_id)],
      ["charge", "-0.75", "", String(o2.body.order_id)],
      ["refund", "0.75", "", String(o2.body.order_id)],
      ["charge", "-11.99", "", String(o3.body.order_id)],
    ]);
    expect(csv.headers["x-closing-balance-usdt"]).toBe("-13.49");

    const others = await h.call("GET", "/v1/ledger", { key: other.key });
    expect(others.body.entries.map((e: Entry) => e.amount_usdt)).toEqual([-3]);
  });
});

describe("the OpenAPI document", () => {
  it("describes the statement, its CSV export and the order list's new filters", async () => {
    const doc = JSON.parse((await h.api.inject({ url: "/openapi.json" })).body);
    const params = (path: string) => doc.paths[path].get.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]);
    expect(params("/v1/ledger")).toEqual([
      ["limit", false],
      ["before", false],
      ["from", false],
      ["to", false],
    ]);
    expect(params("/v1/ledger/export")).toEqual([
      ["from", true],
      ["to", true],
    ]);
    expect(params("/v1/orders")).toEqual([
      ["limit", false],
      ["before", false],
      ["product_type", false],
      ["status", false],
    ]);
    expect(Object.keys(doc.paths["/v1/ledger/export"].get.responses["200"].content)).toEqual(["text/csv"]);
    expect(doc.paths["/v1/ledger"].get.responses["200"].content["application/json"].schema.$ref).toBe("#/components/schemas/LedgerStatement");
    expect(doc.paths["/v1/orders"].get.responses["200"].content["application/json"].schema.properties).toHaveProperty("orders");
    expect(Object.keys(doc.paths["/v1/orders"].get.responses["200"].content["application/json"].schema.properties)).toEqual([
      "success",
      "count",
      "orders",
    ]);
  });
});
