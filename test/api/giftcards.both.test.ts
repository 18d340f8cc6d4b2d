import { readFileSync } from "node:fs";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

/** Everything the database holds, as raw as each engine stores it: the SQLite file and its WAL, or every table's rows as text. */
async function storedText(): Promise<string> {
  if (h.engine === "postgres") {
    const tables = ["accounts", "api_keys", "orders", "ledger_entries", "audit_log", "bot_state", "rate_limits"];
    const dumps = await Promise.all(
      tables.map((table) => sql<{ raw: string }>`select t::text as raw from ${sql.table(table)} t`.execute(h.service.db)),
    );
    return dumps.flatMap((d) => d.rows.map((r) => r.raw)).join("\n");
  }
  return readFileSync(h.databaseUrl).toString("latin1") + readFileSync(`${h.databaseUrl}-wal`).toString("latin1");
}

const order = (key: string, category: string, body: object) => h.call("POST", `/v1/giftcards/${category}/order`, { key, body });
const poll = (key: string, id: number) =>
  eventually(async () => {
    const res = await h.call("GET", `/v1/giftcards/orders/${id}`, { key });
    return res.body.status === "processing" ? undefined : res;
  });

describe("gift card brands and catalogues", () => {
  it("lists brands with their region notes, and a catalogue with price, uneven stock and limits", async () => {
    const { key } = await h.newKey();
    const brands = await h.call("GET", "/v1/giftcards", { key });
    expect(brands.status).toBe(200);
    expect(brands.body.giftcards).toContainEqual({ category_id: "psn-us", name: "PlayStation Store (US)", notes: expect.stringContaining("US") });
    const catalogue = await h.call("GET", "/v1/giftcards/psn-us/catalogue", { key });
    expect(catalogue.body).toMatchObject({ success: true, currency: "USDT", category_id: "psn-us", markup_percent: 5 });
    expect(catalogue.body.denominations).toContainEqual({
      card_id: "psn-us-10",
      name: "$10",
      price_usdt: 10.5,
      stock: expect.any(Number),
      min_quantity: 1,
      max_quantity: 10,
    });
    expect(catalogue.body.denominations).toContainEqual(expect.objectContaining({ card_id: "psn-us-50", stock: 0 }));
    // Names can repeat: the card_id tells them apart.
    expect(catalogue.body.denominations.filter((d: { name: string }) => d.name === "$10")).toHaveLength(2);
    expect((await h.call("GET", "/v1/giftcards/xbox/catalogue", { key })).status).toBe(400);
  });
});

describe("POST /v1/giftcards/{category_id}/order", () => {
  it("charges price x quantity, answers 202 without codes, and only the status endpoint shows them once completed", async () => {
    const { key } = await h.newKey(100);
    const res = await order(key, "psn-us", { card_id: "psn-us-10", quantity: 3, idempotency_key: "gc-1" });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      product_type: "giftcard",
      quantity: 3,
      usdt_charged: 31.5,
      balance_after: 68.5,
      status: "processing",
      codes_count: 0,
      poll: true,
    });
    expect(res.body).not.toHaveProperty("codes");

    const done = await poll(key, res.body.order_id);
    expect(done.body).toMatchObject({ status: "completed", codes_count: 3, success: true });
    expect(done.body.codes).toHaveLength(3);
    for (const code of done.body.codes) expect(code).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/);

    const list = await h.call("GET", "/v1/orders", { key });
    expect(JSON.stringify(list.body)).not.toContain(done.body.codes[0]);
    const generic = await h.call("GET", `/v1/orders/${res.body.order_id}`, { key });
    expect(generic.body.status).toBe("completed");
    expect(generic.body).not.toHaveProperty("codes");
    const replay = await order(key, "psn-us", { card_id: "psn-us-10", quantity: 3, idempotency_key: "gc-1" });
    expect(replay.status).toBe(200);
    expect(replay.body).not.toHaveProperty("codes");

    // At rest the codes are sealed: the database does not hold them in clear text.
    const row = await h.service.db.selectFrom("orders").select("sealed_codes").where("id", "=", res.body.order_id).executeTakeFirstOrThrow();
    expect(row.sealed_codes).toMatch(/^v1:/);
    for (const code of done.body.codes) expect(row.sealed_codes).not.toContain(code);
    const raw = await storedText();
    for (const code of done.body.codes) expect(raw).not.toContain(code);
    // Nor do the logs.
    for (const code of done.body.codes) expect(h.logs.join("")).not.toContain(code);
  });

  it("orders one code when quantity is left out", async () => {
    const { key } = await h.newKey(20);
    const res = await order(key, "apple-us", { card_id: "apple-us-5" });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ quantity: 1, usdt_charged: 5.25 });
  });

  it("refuses quantities outside the limits or above stock, and unknown cards or brands, with nothing charged", async () => {
    const { key } = await h.newKey(1000);
    const cases: Array<[string, object, string]> = [
      ["psn-us", { card_id: "psn-us-50", quantity: 1 }, "in stock"],
      ["psn-us", { card_id: "psn-us-25", quantity: 4 }, "in stock"],
      ["psn-us", { card_id: "psn-us-10", quantity: 11 }, "quantity must be from 1 to 10"],
      ["psn-us", { card_id: "psn-us-10-promo", quantity: 1 }, "quantity must be from 2 to 4"],
      ["psn-us", { card_id: "psn-us-10", quantity: 0 }, "quantity"],
      ["psn-us", { card_id: "psn-us-10", quantity: 1.5 }, "quantity"],
      ["psn-us", { card_id: "apple-us-5" }, "card_id"],
      ["psn-us", { card_id: "PSN-US-10" }, "card_id"],
      ["xbox", { card_id: "psn-us-10" }, "not supported"],
    ];
    for (const [category, body, message] of cases) {
      const res = await order(key, category, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toContain(message);
    }
    expect(await h.balance(key)).toBe(1000);
  });

  it("refunds a denomination that fails at the provider", async () => {
    const { key } = await h.newKey(10);
    const res = await order(key, "apple-us", { card_id: "apple-us-fail", quantity: 2 });
    expect(res.status).toBe(202);
    expect(await h.balance(key)).toBe(5.8);
    const done = await poll(key, res.body.order_id);
    expect(done.body).toMatchObject({ success: false, status: "failed", refunded: true, codes: [], codes_count: 0 });
    expect(await h.balance(key)).toBe(10);
  });

  it("answers 402 with price x quantity, and 503 while the provider is down", async () => {
    const { key } = await h.newKey(10);
    const poor = await order(key, "psn-us", { card_id: "psn-us-10", quantity: 2 });
    expect(poor.status).toBe(402);
    expect(poor.body).toMatchObject({ required_usdt: 21, balance_usdt: 10 });
    await h.fault("giftcards", "down");
    // Past the brand list's cache period (CATALOGUE_CACHE_SECONDS), so it is read again.
    h.clock.advance(60_000);
    try {
      expect((await h.call("GET", "/v1/giftcards", { key })).status).toBe(503);
      expect((await order(key, "psn-us", { card_id: "psn-us-10" })).status).toBe(503);
    } finally {
      h.clock.reset();
      await h.fault("giftcards", "ok");
    }
  });
});
