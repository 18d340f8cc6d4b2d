import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "../support/harness.js";
import { expectedTotal } from "../support/store-formula.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

const pollStore = (key: string, id: number) =>
  eventually(async () => {
    const res = await h.call("GET", `/v1/store/${id}`, { key });
    return res.body.status === "processing" ? undefined : res;
  });

describe("GET /v1/store/pricing", () => {
  it("gives live limits, the fee ratio, the default markup, examples, and no quote without an amount", async () => {
    const { key } = await h.newKey();
    const res = await h.call("GET", "/v1/store/pricing", { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      currency: "USDT",
      min_usd: 1,
      max_usd: 400,
      markup_percent: 3,
      provider_fee_ratio: 0.03,
      quote: null,
    });
    expect(res.body.examples[1]).toEqual({
      amount_usd: 10,
      provider_fee_usd: 0.3,
      cost_usd: 10.3,
      markup_percent: 3,
      markup_usdt: 0.309,
      total_usdt: 10.61,
    });
  });

  // The formula itself is checked on thousands of amounts against the core (test/core/markup.test.ts); here the
  // answer carries it, with the key's personal markup.
  it("quotes by the spec's formula on many amounts, with the key's personal markup", async () => {
    const { key, telegramId } = await h.newKey();
    await h.service.core.admin.setMarkup(telegramId, "store", 275, "test");
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 100, max: 40_000 }), async (cents) => {
        const amount = cents / 100;
        const res = await h.call("GET", `/v1/store/pricing?amount_usd=${amount}`, { key });
        expect(res.status).toBe(200);
        expect(res.body.markup_percent).toBe(2.75);
        const quote = res.body.quote;
        expect(quote.amount_usd).toBe(amount);
        // Fee and markup are exact to the micro (half away from zero); the total to the cent.
        expect(Math.abs(quote.cost_usd - (quote.amount_usd + quote.provider_fee_usd))).toBeLessThan(1e-9);
        expect(Math.abs(quote.markup_usdt - (quote.cost_usd * 2.75) / 100)).toBeLessThanOrEqual(0.5e-6 + 1e-12);
        expect(quote.total_usdt).toBe(expectedTotal(amount, 0.03, 2.75));
        expect(Math.round(quote.total_usdt * 100)).toBeCloseTo(quote.total_usdt * 100, 9);
      }),
      { numRuns: 25 },
    );
  });

  it("refuses an amount outside the live limits or with more than 2 decimals", async () => {
    const { key } = await h.newKey();
    for (const amount of ["0.5", "400.01", "10.001", "abc"]) {
      const res = await h.call("GET", `/v1/store/pricing?amount_usd=${amount}`, { key });
      expect(res.status, amount).toBe(400);
      expect(res.body.error_code, amount).toBe("invalid_amount");
    }
  });
});

describe("POST /v1/store", () => {
  it("completes at once with 200 and charges the quote's total, not the nominal", async () => {
    const { key } = await h.newKey(50);
    const res = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 10, idempotency_key: "inv-1" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      order_id: expect.any(Number),
      idempotency_key: "inv-1",
      product_type: "store",
      store_login: "gabe",
      store_amount_usd: 10,
      store_markup_usdt: 0.309,
      amount: 10,
      usdt_charged: 10.61,
      status: "completed",
      transaction_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      error: null,
      balance_remaining_usdt: 39.39,
      pending: null,
      refunded: null,
      error_code: null,
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    const replay = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 10, idempotency_key: "inv-1" } });
    expect(replay.status).toBe(200);
    expect(replay.body.order_id).toBe(res.body.order_id);
    expect(await h.balance(key)).toBe(39.39);
  });

  it("answers 202 processing, then the status endpoint reports completed", async () => {
    const { key } = await h.newKey(50);
    const res = await h.call("POST", "/v1/store", { key, body: { login: "pending_gabe", amount_usd: 20 } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ success: false, status: "processing", pending: true, refunded: null, transaction_id: expect.any(String) });
    const done = await pollStore(key, res.body.order_id);
    expect(done.body).toMatchObject({ success: true, status: "completed", pending: null, transaction_id: res.body.transaction_id });
  });

  it("refunds a provider rejection: 502, failed, refunded, error_code provider_error", async () => {
    const { key } = await h.newKey(50);
    const res = await h.call("POST", "/v1/store", { key, body: { login: "fail_gabe", amount_usd: 10 } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, status: "failed", refunded: true, error_code: "provider_error", balance_remaining_usdt: 50 });
  });

  it("reports the provider's own shortage as provider_balance, refunded", async () => {
    const { key } = await h.newKey(50);
    const res = await h.call("POST", "/v1/store", { key, body: { login: "nofunds_gabe", amount_usd: 10 } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ status: "failed", refunded: true, error_code: "provider_balance" });
    expect(await h.balance(key)).toBe(50);
  });

  it("refunds a 202 order that fails or expires later, once the failure is seen", async () => {
    const { key } = await h.newKey(50);
    for (const [login, code] of [
      ["pendingfail_gabe", "provider_error"],
      ["expire_gabe", "expired"],
    ]) {
      const res = await h.call("POST", "/v1/store", { key, body: { login, amount_usd: 10 } });
      expect(res.status).toBe(202);
      expect(await h.balance(key)).toBe(39.39);
      const done = await pollStore(key, res.body.order_id);
      expect(done.body).toMatchObject({ success: false, status: "failed", refunded: true, error_code: code, pending: null });
      expect(await h.balance(key)).toBe(50);
    }
  });

  it("accepts a plain login or a custom-id profile link, refuses an e-mail or a numeric-id link", async () => {
    const { key } = await h.newKey(50);
    const link = await h.call("POST", "/v1/store", { key, body: { login: "https://steamcommunity.com/id/gabe_n/", amount_usd: 1 } });
    expect(link.status).toBe(200);
    expect(link.body.store_login).toBe("gabe_n");
    for (const login of ["gabe@example.com", "https://steamcommunity.com/profiles/76561197960287930", "has space", "x"]) {
      const res = await h.call("POST", "/v1/store", { key, body: { login, amount_usd: 5 } });
      expect(res.status, login).toBe(400);
      expect(res.body).toMatchObject({ success: false, error_code: "login_not_supported" });
    }
    expect((await h.call("POST", "/v1/store", { key, body: { amount_usd: 5 } })).body.error_code).toBe("login_not_supported");
    // The login is judged before the amount, whichever face converted the amount.
    const both = await h.call("POST", "/v1/store", { key, body: { login: "gabe@example.com", amount_usd: 5.001 } });
    expect(both.body.error_code).toBe("login_not_supported");
    expect(await h.balance(key)).toBe(50 - link.body.usdt_charged);
  });

  it("refuses amounts outside the limits, with 3 decimals, or not numbers: invalid_amount, nothing charged", async () => {
    const { key } = await h.newKey(500);
    for (const amount_usd of [0.99, 400.01, 10.005, 0, -5, "10"]) {
      const res = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd } });
      expect(res.status, String(amount_usd)).toBe(400);
      expect(res.body.error_code, String(amount_usd)).toBe("invalid_amount");
    }
    expect(await h.balance(key)).toBe(500);
  });

  it("answers 402 with the total it would charge", async () => {
    const { key } = await h.newKey(10);
    const res = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 10 } });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ success: false, error: expect.any(String), error_code: "insufficient_funds", required_usdt: 10.61, balance_usdt: 10 });
  });

  it("answers 503 provider_unavailable while the provider is down, yet replays an earlier order", async () => {
    const { key } = await h.newKey(50);
    const first = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 5, idempotency_key: "down-1" } });
    await h.fault("store", "down");
    try {
      const res = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 5 } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, error_code: "provider_unavailable" });
      expect((await h.call("GET", "/v1/store/pricing", { key })).status).toBe(503);
      const replay = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 5, idempotency_key: "down-1" } });
      expect(replay.status).toBe(200);
      expect(replay.body.order_id).toBe(first.body.order_id);
      // Health answers from its last round of probes (every 100 ms here).
      await eventually(async () => ((await h.call("GET", "/v1/health")).body.store_ready === false ? true : undefined));
    } finally {
      await h.fault("store", "ok");
    }
  });

  it("answers 503 disabled when store top-ups are turned off", async () => {
    const off = await startHarness({ STORE_ENABLED: "false" });
    try {
      const { key } = await off.newKey(50);
      const res = await off.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 5 } });
      expect(res.status).toBe(503);
      expect(res.body.error_code).toBe("disabled");
      expect((await off.call("GET", "/v1/store/pricing", { key })).body.error_code).toBe("disabled");
      // Pricing on a turned-off store says so before judging the amount asked about; an order's body is checked first.
      for (const amount of ["5.001", "0.0000001"]) {
        expect((await off.call("GET", `/v1/store/pricing?amount_usd=${amount}`, { key })).body.error_code).toBe("disabled");
        const order = await off.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: Number(amount) } });
        expect(order.body.error_code).toBe("invalid_amount");
      }
      expect((await off.call("GET", "/v1/health")).body.store_ready).toBe(false);
      expect(await off.balance(key)).toBe(50);
    } finally {
      await off.close();
    }
  });

  it("GET /v1/store/{order_id}: 404 order_not_found for another key's order or another product, 400 for a bad id", async () => {
    const mine = await h.newKey(50);
    const theirs = await h.newKey(50);
    const order = await h.call("POST", "/v1/store", { key: theirs.key, body: { login: "gabe", amount_usd: 5 } });
    const stars = await h.call("POST", "/v1/stars", { key: mine.key, body: { username: "alice", stars: 50 } });
    for (const id of [order.body.order_id, stars.body.order_id, 999999]) {
      const res = await h.call("GET", `/v1/store/${id}`, { key: mine.key });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error_code: "order_not_found" });
    }
    expect((await h.call("GET", "/v1/store/0", { key: mine.key })).status).toBe(400);
  });
});

describe("POST /test/v1/store", () => {
  it("validates like the real one and answers completed at once, nothing charged or stored", async () => {
    const { key } = await h.newKey(1);
    const res = await h.call("POST", "/test/v1/store", { key, body: { login: "pending_gabe", amount_usd: 100 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "completed",
      usdt_charged: 106.09,
      transaction_id: expect.stringMatching(/^test_/),
      balance_remaining_usdt: 1,
      product_type: "store",
    });
    expect((await h.call("POST", "/test/v1/store", { key, body: { login: "a@b.c", amount_usd: 10 } })).body.error_code).toBe("login_not_supported");
    expect((await h.call("GET", "/v1/orders", { key })).body.count).toBe(0);
  });
});
