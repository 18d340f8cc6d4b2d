import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, PartnerApiError, PartnerConnectionError, PurchaseFailedError } from "../../client/src/index.js";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";

let s: ListeningHarness;
beforeAll(async () => {
  s = await startListeningHarness();
});
afterAll(() => s.close());

/** A fetch that lets the first POST reach the service, then drops its answer, as a connection reset after sending would. */
function droppingFirstAnswer() {
  const bodies: string[] = [];
  let dropped = 0;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (init?.method === "POST") bodies.push(String(init.body));
    const response = await globalThis.fetch(input, init);
    if (init?.method === "POST" && dropped === 0) {
      dropped++;
      await response.text();
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });
    }
    return response;
  };
  return { fetch, bodies };
}

describe("the client's retries", () => {
  it("retries a purchase whose answer was lost with the same idempotency key: one order, charged once", async () => {
    const dropping = droppingFirstAnswer();
    const { client } = await s.partner(10, { fetch: dropping.fetch });
    const before = await s.h.orderCount();
    const order = await client.buyStars({ username: "alice", stars: 100 });
    expect(dropping.bodies).toHaveLength(2);
    expect(dropping.bodies[1]).toBe(dropping.bodies[0]);
    expect(JSON.parse(dropping.bodies[0]!).idempotency_key).toBe(order.idempotency_key);
    expect(order).toMatchObject({ success: true, status: "completed", usdt_charged: 1.5 });
    expect(await s.h.orderCount()).toBe(before + 1);
    expect((await client.balance()).balance_usdt).toBe(8.5);
    const { orders } = await client.orders();
    expect(orders.map((o) => o.order_id)).toEqual([order.order_id]);
    await s.h.assertLedgerInvariant();
  });

  it("does not resend a top-up whose answer was lost (it would make a second invoice)", async () => {
    const dropping = droppingFirstAnswer();
    const { client } = await s.partner(0, { fetch: dropping.fetch });
    const error = await client.createTopup({ amount_usdt: 25 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerConnectionError);
    expect(error).toMatchObject({ code: "ECONNRESET", requestId: expect.any(String) });
    expect(dropping.bodies).toHaveLength(1);
  });

  it("gives up after `retries` network errors", async () => {
    let calls = 0;
    const { client } = await s.partner(10, {
      retries: 2,
      fetch: async () => {
        calls++;
        throw new TypeError("fetch failed");
      },
    });
    const error = await client.balance().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerConnectionError);
    expect((error as PartnerConnectionError).cause).toBeInstanceOf(TypeError);
    expect(calls).toBe(3);
  });

  it("retries a 5xx, but not a failed order's 502 (its outcome: a retry would replay it)", async () => {
    let calls = 0;
    const { client } = await s.partner(10, {
      fetch: async (input, init) => {
        calls++;
        return calls === 1
          ? new Response(JSON.stringify({ success: false, error: "Internal error" }), { status: 500 })
          : globalThis.fetch(input, init);
      },
    });
    expect((await client.balance()).balance_usdt).toBe(10);
    expect(calls).toBe(2);
    calls = 10;
    const failed = (await client.buyStars({ username: "fail_bob", stars: 100 }).catch((caught: unknown) => caught)) as PartnerApiError;
    expect(failed).toBeInstanceOf(PurchaseFailedError);
    expect(failed.status).toBe(502);
    expect(calls).toBe(11);
  });
});

// A 429 waited out over HTTP: test/client/rate-limit.pg.test.ts (the shared counter reads the test clock, so no test waits a minute).
describe("a 429", () => {
  let limited: ListeningHarness;
  beforeAll(async () => {
    limited = await startListeningHarness({ RATE_LIMIT_PER_MINUTE: "2" });
  });
  afterAll(() => limited.close());

  it("is thrown when Retry-After is longer than the client waits", async () => {
    const { client } = await limited.partner(10, { maxRetryAfterSeconds: 0 });
    await client.balance();
    await client.balance();
    const error = (await client.balance().catch((caught: unknown) => caught)) as PartnerApiError;
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBeGreaterThan(0);
  });
});

describe("a purchase's 502 over HTTP", () => {
  it("premium: failed and refunded is thrown once as a PurchaseFailedError with the order, never retried into a success", async () => {
    let posts = 0;
    const { client } = await s.partner(50, {
      fetch: async (input, init) => {
        if (init?.method === "POST") posts++;
        return globalThis.fetch(input, init);
      },
    });
    const error = (await client.buyPremium({ username: "fail_mia", months: 3 }).catch((caught: unknown) => caught)) as PurchaseFailedError;
    expect(error).toBeInstanceOf(PurchaseFailedError);
    expect(posts).toBe(1);
    expect(error.order).toMatchObject({ product_type: "premium", status: "failed", months: 3, idempotency_key: error.idempotencyKey });
    expect(error.orderId).toBe(error.order!.order_id);
    expect((await client.balance()).balance_usdt).toBe(50);
    await s.h.assertLedgerInvariant();
  });

  it("stars: the 502's order is on the error", async () => {
    const { client } = await s.partner(10);
    const error = (await client.buyStars({ username: "fail_bob", stars: 100 }).catch((caught: unknown) => caught)) as PurchaseFailedError;
    expect(error).toBeInstanceOf(PurchaseFailedError);
    expect(error.order).toMatchObject({ status: "failed", stars: 100, order_id: error.orderId });
    expect((await client.balance()).balance_usdt).toBe(10);
  });
});

describe("errors typed by cause, over HTTP", () => {
  it("retries run out on a closed port: a PartnerConnectionError with the key to retry with later, and nothing charged", async () => {
    const { client, key } = await s.partner(10, { retries: 1 });
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const { port } = free.address() as AddressInfo;
    await new Promise((resolve) => free.close(resolve));
    const closed = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key, retries: 1, backoffMs: 1 });
    const error = (await closed.buyStars({ username: "alice", stars: 100 }).catch((caught: unknown) => caught)) as PartnerConnectionError;
    expect(error).toBeInstanceOf(PartnerConnectionError);
    expect(error.code).toBe("ECONNREFUSED");
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    // The caller retries later with the key the client made: one order.
    const order = await client.buyStars({ username: "alice", stars: 100, idempotency_key: error.idempotencyKey! });
    const again = await client.buyStars({ username: "alice", stars: 100, idempotency_key: error.idempotencyKey! });
    expect(again.order_id).toBe(order.order_id);
    expect((await client.balance()).balance_usdt).toBe(8.5);
  });

  it("the API's refusal carries the request id the client sent, which the service logged", async () => {
    const { client } = await s.partner(1);
    const error = (await client.buyPremium({ username: "bob", months: 12 }).catch((caught: unknown) => caught)) as PartnerApiError;
    expect(error).toMatchObject({ status: 402, idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
