import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/core/model/errors.js";
import { accountByTelegramId } from "../../src/db/accounts.js";
import { ordersPage } from "../../src/db/orders.js";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// What one key can make the service do is bounded (docs/money-and-security.md): open quotes, exports at once, and the
// rows an order page reads. The webhook bounds are test/jobs/webhook-fairness.both.test.ts.

let h: Harness;
useHarness({ env: { QUOTES_OPEN_MAX: "3" }, books: true }, (started) => (h = started));

const starsQuote = { product_type: "stars", username: "alice", stars: 100 };

describe("bounded work per key", () => {
  it("holds at most QUOTES_OPEN_MAX open quotes per key: past it 429 with when one frees, and nothing stored", async () => {
    const { key } = await h.newKey(20);
    const quotes = [];
    for (let i = 0; i < 3; i += 1) {
      const issued = await h.call("POST", "/v1/quotes", { key, body: starsQuote });
      expect(issued.status).toBe(200);
      quotes.push(issued.body.quote_id as string);
    }
    const count = async () => (await h.service.db.selectFrom("quotes").select("id").execute()).length;
    const before = await count();
    const refused = await h.call("POST", "/v1/quotes", { key, body: starsQuote });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toContain("3 open quotes");
    expect(refused.body.retry_after).toBeGreaterThanOrEqual(1);
    expect(refused.body.retry_after).toBeLessThanOrEqual(60);
    expect(refused.headers["retry-after"]).toBe(String(refused.body.retry_after));
    expect(await count()).toBe(before);

    // Another key is not held back by this one.
    const other = await h.newKey(0);
    expect((await h.call("POST", "/v1/quotes", { key: other.key, body: starsQuote })).status).toBe(200);

    // A quote spent on its purchase is no longer open...
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: quotes[0] } });
    expect(bought.status).toBe(200);
    expect((await h.call("POST", "/v1/quotes", { key, body: starsQuote })).status).toBe(200);
    expect((await h.call("POST", "/v1/quotes", { key, body: starsQuote })).status).toBe(429);
    // ...nor is an expired one.
    h.clock.advance(61_000);
    try {
      expect((await h.call("POST", "/v1/quotes", { key, body: starsQuote })).status).toBe(200);
    } finally {
      h.clock.reset();
    }
  });

  it("makes one ledger export per key at a time; the next may start when it is done", async () => {
    const { telegramId } = await h.newKey(20);
    const account = (await accountByTelegramId(h.service.db, telegramId))!;
    const now = Date.now();
    const range = { from: new Date(now - 100 * 86_400_000).toISOString(), to: new Date(now + 100 * 86_400_000).toISOString() };
    const { statements } = h.service.core;
    const first = statements.export(account, range);
    const second = statements.export(account, range).catch((error: unknown) => error);
    const refused = await second;
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "rate_limited", details: { retryAfterSeconds: 1 } });
    expect((await first).entries).toHaveLength(1);
    expect((await statements.export(account, range)).entries).toHaveLength(1);
  });

  it("reads an order page from an index leading with each filter's columns: only the rows it answers", async () => {
    const { telegramId } = await h.newKey(20);
    const account = (await accountByTelegramId(h.service.db, telegramId))!;
    /** SQLite's plan of the page's query, its parameters bound. */
    const plan = async (filter: Parameters<typeof ordersPage>[3]) => {
      const compiled = ordersPage(h.service.db, account.id, 20, filter).compile();
      const explained = await h.service.db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` });
      return explained.rows.map((r) => r.detail).join(" | ");
    };
    expect(await plan({})).toMatch(/USING (COVERING )?INDEX orders_account_newest \(account_id=\?/);
    expect(await plan({ productType: "stars" })).toMatch(/INDEX orders_account_product \(account_id=\? AND product_type=\?/);
    expect(await plan({ status: "failed" })).toMatch(/INDEX orders_account_status \(account_id=\? AND status=\?/);
    expect(await plan({ productType: "stars", status: "failed", before: 10 })).toMatch(
      /INDEX orders_account_product_status \(account_id=\? AND product_type=\? AND status=\? AND id<\?\)/,
    );
  });
});
