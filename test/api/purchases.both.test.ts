import { describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

describe("POST /v1/stars", () => {
  it("charges the balance, delivers, and answers the completed order", async () => {
    const { key } = await h.newKey(10);
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "@alice", stars: 100, idempotency_key: "inv-1" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      order_id: expect.any(Number),
      idempotency_key: "inv-1",
      product_type: "stars",
      username: "alice",
      amount: 100,
      stars: 100,
      months: null,
      usdt_charged: 1.5,
      status: "completed",
      transaction_id: expect.stringMatching(/^sim_/),
      error: null,
      error_code: null,
      balance_remaining_usdt: 8.5,
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect(await h.balance(key)).toBe(8.5);
  });

  it("answers 402 with the insufficient-funds body and charges nothing", async () => {
    const { key } = await h.newKey(1);
    const before = await h.orderCount();
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ success: false, error: expect.any(String), error_code: "insufficient_funds", required_usdt: 1.5, balance_usdt: 1 });
    expect(await h.balance(key)).toBe(1);
    expect(await h.orderCount()).toBe(before);
  });

  it("refunds a delivery that fails after the charge: 502 with the failed order", async () => {
    const { key } = await h.newKey(5);
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "fail_carol", stars: 200 } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({
      success: false,
      status: "failed",
      usdt_charged: 3,
      error: expect.stringContaining("failed"),
      balance_remaining_usdt: 5,
    });
    expect(await h.balance(key)).toBe(5);
    const order = await h.call("GET", `/v1/orders/${res.body.order_id}`, { key });
    expect(order.body.status).toBe("failed");
  });

  it("waits for a slow delivery and answers it completed", async () => {
    const { key } = await h.newKey(5);
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "slow_dave", stars: 50 } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("completed");
    expect(await h.balance(key)).toBe(4.25);
  });

  it("replays the same key and fields without a second charge; other fields make a new order", async () => {
    const { key } = await h.newKey(10);
    const body = { username: "erin", stars: 100, idempotency_key: "same" };
    const first = await h.call("POST", "/v1/stars", { key, body });
    const again = await h.call("POST", "/v1/stars", { key, body: { ...body, username: "@Erin" } });
    expect(again.status).toBe(200);
    expect(again.body.order_id).toBe(first.body.order_id);
    expect(again.body.idempotency_key).toBe("same");
    expect(again.body.balance_remaining_usdt).toBe(8.5);
    expect(await h.balance(key)).toBe(8.5);

    const other = await h.call("POST", "/v1/stars", { key, body: { ...body, stars: 50 } });
    expect(other.status).toBe(200);
    expect(other.body.order_id).not.toBe(first.body.order_id);
    expect(other.body.idempotency_key).toBe("same");
    expect(await h.balance(key)).toBe(7.75);
  });

  it("replays a failed order as it is, without charging or refunding again", async () => {
    const { key } = await h.newKey(5);
    const body = { username: "fail_frank", stars: 100, idempotency_key: "f-1" };
    const first = await h.call("POST", "/v1/stars", { key, body });
    expect(first.status).toBe(502);
    const again = await h.call("POST", "/v1/stars", { key, body });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ order_id: first.body.order_id, status: "failed", balance_remaining_usdt: 5 });
  });

  it("replays an order whose purchase would now be refused: the balance it spent is gone", async () => {
    const { key } = await h.newKey(1.5);
    const body = { username: "ivan", stars: 100, idempotency_key: "all-in" };
    const first = await h.call("POST", "/v1/stars", { key, body });
    expect(first.body).toMatchObject({ status: "completed", balance_remaining_usdt: 0 });
    const again = await h.call("POST", "/v1/stars", { key, body });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const fresh = await h.call("POST", "/v1/stars", { key, body: { ...body, idempotency_key: "all-in-2" } });
    expect(fresh.status).toBe(402);
    expect(await h.balance(key)).toBe(0);
    await h.assertLedgerInvariant();
  });

  it("turns simultaneous identical requests into one order and one charge", async () => {
    const { key } = await h.newKey(10);
    const body = { username: "grace", stars: 100, idempotency_key: "burst" };
    const results = await Promise.all(Array.from({ length: 12 }, () => h.call("POST", "/v1/stars", { key, body })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(results.map((r) => r.body.order_id)).size).toBe(1);
    expect(await h.balance(key)).toBe(8.5);
  });

  it("keeps idempotency keys apart between accounts", async () => {
    const a = await h.newKey(5);
    const b = await h.newKey(5);
    const body = { username: "heidi", stars: 50, idempotency_key: "shared" };
    const first = await h.call("POST", "/v1/stars", { key: a.key, body });
    const second = await h.call("POST", "/v1/stars", { key: b.key, body });
    expect(second.body.order_id).not.toBe(first.body.order_id);
    expect(await h.balance(b.key)).toBe(4.25);
  });
});

describe("an outcome the provider has not told", () => {
  it("leaves a timed-out delivery processing; once due, a status check refunds it as the provider never got it", async () => {
    const { key } = await h.newKey(5);
    await h.fault("gateway", "timeout");
    let orderId: number;
    try {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "ivan", stars: 100 } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: false, status: "processing", usdt_charged: 1.5, balance_remaining_usdt: 3.5 });
      orderId = res.body.order_id;
    } finally {
      await h.fault("gateway", "ok");
    }
    // The timed-out call never recorded a delivery at the simulator, so the order is refunded once it is due.
    const settled = await eventually(async () => {
      const order = await h.call("GET", `/v1/orders/${orderId}`, { key });
      return order.body.status === "processing" ? undefined : order.body;
    });
    expect(settled).toMatchObject({ status: "failed", balance_remaining_usdt: 5 });
  });

  it("settles a processing order in the background when nobody polls", async () => {
    const { key } = await h.newKey(5);
    await h.fault("gateway", "timeout");
    let orderId: number;
    try {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "ivy", stars: 100 } });
      expect(res.body.status).toBe("processing");
      orderId = res.body.order_id;
    } finally {
      await h.fault("gateway", "ok");
    }
    const db = h.service.db;
    const settled = await eventually(async () => {
      const row = await db.selectFrom("orders").select(["status", "refunded"]).where("id", "=", orderId).executeTakeFirstOrThrow();
      return row.status === "processing" ? undefined : row;
    });
    expect(settled).toEqual({ status: "failed", refunded: true });
    expect(await h.balance(key)).toBe(5);
  });

  it("completes a processing order that the provider did deliver, when the status is asked", async () => {
    const { key } = await h.newKey(5);
    // The provider takes the order but its answer never comes: the outcome is unknown; its own record decides later.
    await h.fault("gateway", "hang_after_accept");
    const placed = await h.call("POST", "/v1/stars", { key, body: { username: "judy", stars: 50 } });
    expect(placed.body.status).toBe("processing");
    const res = await h.call("GET", `/v1/orders/${placed.body.order_id}`, { key });
    expect(res.body).toMatchObject({ status: "completed", success: true, transaction_id: expect.stringMatching(/^sim_/) });
    expect(await h.balance(key)).toBe(4.25);
  });

  it("refunds an unreachable provider at once: the request was never sent", async () => {
    const gone = await startHarness({ GATEWAY_URL: "http://127.0.0.1:9" });
    try {
      const { key } = await gone.newKey(5);
      const res = await gone.call("POST", "/v1/stars", { key, body: { username: "kim", stars: 100 } });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ status: "failed", balance_remaining_usdt: 5 });
      await gone.assertLedgerInvariant();
    } finally {
      await gone.close();
    }
  });
});

describe("POST /v1/premium", () => {
  it("charges the month tariff and answers the completed order", async () => {
    const { key } = await h.newKey(20);
    const res = await h.call("POST", "/v1/premium", { key, body: { username: "liam", months: 6 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      product_type: "premium",
      amount: 6,
      months: 6,
      stars: null,
      usdt_charged: 15.99,
      status: "completed",
      balance_remaining_usdt: 4.01,
    });
  });

  it("answers 502 with an error body naming the refunded order when delivery fails", async () => {
    const { key } = await h.newKey(20);
    const res = await h.call("POST", "/v1/premium", { key, body: { username: "fail_mia", months: 3 } });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/refunded 11\.99 USDT/), error_code: "provider_error" });
    expect(await h.balance(key)).toBe(20);
  });

  it("answers 402 when the balance is short", async () => {
    const { key } = await h.newKey(10);
    const res = await h.call("POST", "/v1/premium", { key, body: { username: "noah", months: 12 } });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ success: false, error: expect.any(String), error_code: "insufficient_funds", required_usdt: 28.99, balance_usdt: 10 });
  });
});

describe("the sandbox", () => {
  it("validates like the real endpoint and answers completed with test true, charging nothing", async () => {
    const { key } = await h.newKey(1);
    const before = await h.orderCount();
    const stars = await h.call("POST", "/test/v1/stars", { key, body: { username: "olivia", stars: 1000, idempotency_key: "t" } });
    expect(stars.status).toBe(200);
    expect(stars.body).toMatchObject({
      test: true,
      status: "completed",
      usdt_charged: 15,
      balance_remaining_usdt: 1,
      idempotency_key: "t",
      transaction_id: expect.stringMatching(/^test_/),
    });
    const premium = await h.call("POST", "/test/v1/premium", { key, body: { username: "olivia", months: 12 } });
    expect(premium.body).toMatchObject({ test: true, months: 12, usdt_charged: 28.99 });
    expect((await h.call("POST", "/test/v1/stars", { key, body: { username: "olivia", stars: 49 } })).status).toBe(400);
    expect((await h.call("POST", "/test/v1/premium", { key, body: { username: "olivia", months: 4 } })).status).toBe(400);
    expect(await h.balance(key)).toBe(1);
    expect(await h.orderCount()).toBe(before);
  });
});

describe("POST /v1/search", () => {
  it("finds a recipient, says whether it is the caller, and never charges", async () => {
    const { key, telegramId } = await h.newKey(1);
    await h.service.core.accounts.issueKey(telegramId, "paul");
    const { key: fresh } = await h.service.core.accounts.issueKey(telegramId, "paul");
    const other = await h.call("POST", "/v1/search", { key: fresh, body: { product_type: "stars", query: "@quinn", quantity: "100" } });
    expect(other.status).toBe(200);
    expect(other.body).toEqual({
      success: true,
      found: { myself: false, name: "Quinn", photo: expect.stringMatching(/^https:\/\//), recipient: "quinn", premium: null },
    });
    const self = await h.call("POST", "/v1/search", { key: fresh, body: { product_type: "stars", query: "Paul" } });
    expect(self.body.found.myself).toBe(true);
    expect(await h.balance(fresh)).toBe(1);
    expect((await h.call("POST", "/v1/search", { key, body: { product_type: "stars", query: "x" } })).status).toBe(401);
  });

  it("reports premium for premium searches", async () => {
    const { key } = await h.newKey();
    const res = await h.call("POST", "/v1/search", { key, body: { product_type: "premium", query: "premium_rose", months: "3" } });
    expect(res.body.found.premium).toBe(true);
    const plain = await h.call("POST", "/v1/search", { key, body: { product_type: "premium", query: "sam" } });
    expect(plain.body.found.premium).toBe(false);
  });

  it("answers 404 for an unknown recipient and 502 when the search upstream fails", async () => {
    const { key } = await h.newKey();
    const missing = await h.call("POST", "/v1/search", { key, body: { product_type: "stars", query: "missing_tom" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ success: false, error: expect.stringContaining("not found"), error_code: "not_found" });
    await h.fault("gateway", "down");
    try {
      const down = await h.call("POST", "/v1/search", { key, body: { product_type: "stars", query: "uma" } });
      expect(down.status).toBe(502);
      expect(down.body).toMatchObject({ success: false, error_code: "provider_error" });
    } finally {
      await h.fault("gateway", "ok");
    }
  });
});

describe("GET /v1/orders", () => {
  it("lists only the caller's orders, newest first, within the limit", async () => {
    const { key } = await h.newKey(10);
    const other = await h.newKey(10);
    for (const stars of [50, 60, 70]) await h.call("POST", "/v1/stars", { key, body: { username: "vic", stars } });
    const theirs = await h.call("POST", "/v1/stars", { key: other.key, body: { username: "vic", stars: 80 } });

    const all = await h.call("GET", "/v1/orders", { key });
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(3);
    expect(all.body.orders.map((o: { amount: number }) => o.amount)).toEqual([70, 60, 50]);
    expect(all.body.orders[0]).toEqual({
      order_id: expect.any(Number),
      product_type: "stars",
      username: "vic",
      amount: 70,
      store_login: null,
      store_amount_usd: null,
      brand: null,
      item: null,
      usdt_charged: 1.05,
      status: "completed",
      transaction_id: expect.any(String),
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect((await h.call("GET", "/v1/orders?limit=2", { key })).body.count).toBe(2);
    for (const bad of ["0", "101", "abc", "1.5", "-1"]) {
      const res = await h.call("GET", `/v1/orders?limit=${bad}`, { key });
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toContain("limit");
    }
    const foreign = await h.call("GET", `/v1/orders/${theirs.body.order_id}`, { key });
    expect(foreign.status).toBe(404);
    expect((await h.call("GET", "/v1/orders/999999", { key })).status).toBe(404);
    for (const bad of ["0", "abc", "-5", "1.5"]) expect((await h.call("GET", `/v1/orders/${bad}`, { key })).status, bad).toBe(400);
  });
});

describe("without a delivery backend", () => {
  it("answers 503 for stars, premium and search, and charges nothing", async () => {
    const bare = await startHarness({}, { gateway: false });
    try {
      const { key } = await bare.newKey(50);
      expect((await bare.call("POST", "/v1/stars", { key, body: { username: "wendy", stars: 100 } })).status).toBe(503);
      expect((await bare.call("POST", "/v1/premium", { key, body: { username: "wendy", months: 3 } })).status).toBe(503);
      expect((await bare.call("POST", "/v1/search", { key, body: { product_type: "stars", query: "wendy" } })).status).toBe(503);
      const health = await bare.call("GET", "/v1/health");
      expect(health.body).toMatchObject({ api_configured: false, gateway_ready: false });
      expect(await bare.balance(key)).toBe(50);
    } finally {
      await bare.close();
    }
  });
});
