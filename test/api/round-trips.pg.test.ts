import { AsyncLocalStorage } from "node:async_hooks";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";
import { startReceiver } from "../support/receiver.js";

// How many round trips to PostgreSQL one request makes: every query a pg client sends on behalf of the request
// (its async context), whichever pool it goes through; the background jobs' queries are not the request's, nor
// the webhook delivery loop's.

let h: Harness;
const counting = new AsyncLocalStorage<string[]>();
const query = pg.Client.prototype.query;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_LOOPBACK: "true" });
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const sent = counting.getStore();
    const first = args[0] as string | { text: string };
    // The webhook delivery loop, which a committed event wakes from within the request, works for itself.
    if (sent && !new Error().stack?.includes("webhook-dispatch")) sent.push(typeof first === "string" ? first : first.text);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
afterAll(async () => {
  pg.Client.prototype.query = query;
  await h.close();
});

/** The answer to one request, and the statements it sent to the database. */
async function roundTrips(method: "GET" | "POST", url: string, key: string, body?: object) {
  const sent: string[] = [];
  const response = await counting.run(sent, () => h.call(method, url, { key, ...(body ? { body } : {}) }));
  return { response, sent };
}

describe("round trips to PostgreSQL per request", () => {
  it("a read: one", async () => {
    const { key } = await h.newKey(10);
    const { response, sent } = await roundTrips("GET", "/v1/balance", key);
    expect(response.status).toBe(200);
    expect(sent).toHaveLength(1);
  });

  it("a purchase: the key's read, the placement (which finds a replay) and the settlement, with or without an idempotency key", async () => {
    const { key } = await h.newKey(10);
    const body = { username: "alice", stars: 100, idempotency_key: "rt-1" };
    const bought = await roundTrips("POST", "/v1/stars", key, body);
    expect(bought.response.status).toBe(200);
    expect(bought.response.body).toMatchObject({ status: "completed", balance_remaining_usdt: 8.5 });
    expect(bought.sent, bought.sent.join("\n")).toHaveLength(3);

    const replayed = await roundTrips("POST", "/v1/stars", key, body);
    expect(replayed.response.body).toEqual(bought.response.body);
    expect(replayed.sent, replayed.sent.join("\n")).toHaveLength(2);

    const unkeyed = await roundTrips("POST", "/v1/stars", key, { username: "alice", stars: 50 });
    expect(unkeyed.response.body).toMatchObject({ status: "completed", balance_remaining_usdt: 7.75 });
    expect(unkeyed.sent, unkeyed.sent.join("\n")).toHaveLength(3);
    await h.assertLedgerInvariant();
  });

  it("an order's status: one, the order read with the key, its balance the one the key's read found", async () => {
    const { key } = await h.newKey(10);
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    const { response, sent } = await roundTrips("GET", `/v1/orders/${bought.body.order_id}`, key);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ order_id: bought.body.order_id, status: "completed", balance_remaining_usdt: 8.5 });
    expect(sent, sent.join("\n")).toHaveLength(1);

    // Someone else's order, a missing one, and one of another product on a product's route: unknown, in that one read.
    const other = await h.newKey(10);
    for (const url of [`/v1/orders/${bought.body.order_id}`, "/v1/orders/999999", `/v1/store/${bought.body.order_id}`]) {
      const refused = await roundTrips("GET", url, url.startsWith("/v1/store") ? key : other.key);
      expect(refused.response.status, url).toBe(404);
      expect(refused.response.body).toMatchObject({
        success: false,
        error: `Order ${url === "/v1/orders/999999" ? 999999 : bought.body.order_id} not found`,
      });
      expect(refused.sent, refused.sent.join("\n")).toHaveLength(1);
    }
  });

  it("the order list: the key's read and the page, for any filters; an invalid query is refused after the key's read alone", async () => {
    const { key } = await h.newKey(50);
    const first = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    const second = await h.call("POST", "/v1/premium", { key, body: { username: "alice", months: 3 } });
    const failed = await h.call("POST", "/v1/stars", { key, body: { username: "fail_bob", stars: 50 } });
    expect([first.status, second.status, failed.status]).toEqual([200, 200, 502]);
    const ids = (response: { body: { orders: Array<{ order_id: number }> } }) => response.body.orders.map((order) => order.order_id);
    for (const [query, expected] of [
      ["?limit=20", [failed, second, first]],
      ["?limit=2", [failed, second]],
      ["?product_type=stars", [failed, first]],
      ["?status=completed&limit=1", [second]],
      [`?before=${failed.body.order_id}&product_type=stars`, [first]],
      ["?status=processing", []],
    ] as const) {
      const { response, sent } = await roundTrips("GET", `/v1/orders${query}`, key);
      expect(response.status, query).toBe(200);
      expect(ids(response), query).toEqual(expected.map((order) => order.body.order_id));
      expect(sent, sent.join("\n")).toHaveLength(2);
    }
    const refused = await roundTrips("GET", "/v1/orders?limit=0", key);
    expect(refused.response.status).toBe(400);
    expect(refused.sent, refused.sent.join("\n")).toHaveLength(1);
  });

  it("a sandbox purchase: one, the key's read, which also tells whether the account has a webhook endpoint; nothing charged", async () => {
    const { key } = await h.newKey(10);
    for (const url of ["/test/v1/stars", "/test/v1/premium", "/test/v1/store"]) {
      const body = url.endsWith("stars")
        ? { username: "alice", stars: 100 }
        : url.endsWith("premium")
          ? { username: "alice", months: 3 }
          : { login: "gabe_m", amount_usd: 5 };
      const { response, sent } = await roundTrips("POST", url, key, body);
      expect(response.status, url).toBe(200);
      expect(response.body).toMatchObject({ success: true, status: "completed", balance_remaining_usdt: 10 });
      expect(sent, sent.join("\n")).toHaveLength(1);
    }
    expect(await h.balance(key)).toBe(10);

    // With an endpoint, the test event is written (and delivered) as before.
    const receiver = await startReceiver();
    try {
      expect((await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } })).status).toBe(200);
      const { response, sent } = await roundTrips("POST", "/test/v1/stars", key, { username: "alice", stars: 77 });
      expect(response.body).toMatchObject({ test: true, stars: 77, balance_remaining_usdt: 10 });
      expect(sent.length, sent.join("\n")).toBeGreaterThan(1);
      const event = await receiver.waitFor((r) => r.json.data?.order?.stars === 77);
      expect(event.json).toMatchObject({ type: "order.completed", test: true, data: { order: { test: true, stars: 77 } } });
    } finally {
      await receiver.close();
    }
  });

  it("a failed delivery: its refund in the settlement's one statement", async () => {
    const { key } = await h.newKey(5);
    const failed = await roundTrips("POST", "/v1/stars", key, { username: "fail_carol", stars: 200 });
    expect(failed.response.status).toBe(502);
    expect(failed.response.body).toMatchObject({ status: "failed", balance_remaining_usdt: 5 });
    expect(failed.sent, failed.sent.join("\n")).toHaveLength(3);
    expect(await h.balance(key)).toBe(5);
    await h.assertLedgerInvariant();
  });

  it("a purchase of an account with a webhook endpoint: its event is written in the transaction that finishes the order", async () => {
    const receiver = await startReceiver();
    try {
      const { key } = await h.newKey(10);
      expect((await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } })).status).toBe(200);
      const bought = await roundTrips("POST", "/v1/stars", key, { username: "alice", stars: 100, idempotency_key: "rt-hook" });
      expect(bought.response.body).toMatchObject({ status: "completed", balance_remaining_usdt: 8.5 });
      // The key's read and the placement, which also tells that the account has an endpoint; then begin, the
      // finish's statement, which also reads the account, its endpoint and the outbox's bound, the event, commit.
      expect(bought.sent, bought.sent.join("\n")).toHaveLength(6);
      const event = await receiver.waitFor((r) => r.json.data?.order?.order_id === bought.response.body.order_id);
      expect(event.json).toMatchObject({ type: "order.completed", data: { order: { status: "completed", balance_remaining_usdt: 8.5 } } });

      // A failure: its refund in the same statement, and the event carries the balance the refund left.
      const failed = await roundTrips("POST", "/v1/stars", key, { username: "fail_carol", stars: 200, idempotency_key: "rt-hook-fail" });
      expect(failed.response.status).toBe(502);
      expect(failed.response.body).toMatchObject({ status: "failed", balance_remaining_usdt: 8.5 });
      expect(failed.sent, failed.sent.join("\n")).toHaveLength(6);
      const failure = await receiver.waitFor((r) => r.json.data?.order?.order_id === failed.response.body.order_id);
      expect(failure.json).toMatchObject({
        type: "order.failed",
        data: { order: { status: "failed", usdt_charged: 3, balance_remaining_usdt: 8.5 } },
      });
      expect(await h.balance(key)).toBe(8.5);
      await h.assertLedgerInvariant();
    } finally {
      await receiver.close();
    }
  });
});
