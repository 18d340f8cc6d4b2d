import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PartnerApiError } from "../../client/src/index.js";
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
    await expect(client.createTopup({ amount_usdt: 25 })).rejects.toThrow("fetch failed");
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
    await expect(client.balance()).rejects.toThrow("fetch failed");
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
    expect(failed).toBeInstanceOf(PartnerApiError);
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
