import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";

// On PostgreSQL the rate limit counts in the database, in minute windows of the service's clock (the test clock):
// the test sets it just before a window's end, so the 429's Retry-After is a few seconds, not a minute.
let s: ListeningHarness;
beforeAll(async () => {
  s = await startListeningHarness({ RATE_LIMIT_PER_MINUTE: "2" });
});
afterAll(() => s.close());

describe("a 429 through the client", () => {
  it("is waited out as Retry-After says, then the purchase goes through, charged once", async () => {
    const refusals: { at: number; retryAfter: number }[] = [];
    const posted: string[] = [];
    let answeredAt = 0;
    const { client } = await s.partner(10, {
      fetch: async (input, init) => {
        if (init?.method === "POST") posted.push(String(init.body));
        const response = await globalThis.fetch(input, init);
        if (response.status === 429) refusals.push({ at: Date.now(), retryAfter: Number(response.headers.get("retry-after")) });
        else answeredAt = Date.now();
        return response;
      },
    });
    const now = s.h.clock.now().getTime();
    s.h.clock.advance(60_000 - (now % 60_000) - 2_500);
    await client.balance();
    await client.balance();
    const order = await client.buyStars({ username: "alice", stars: 100 });
    expect(order.status).toBe("completed");
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    const first = refusals[0]!;
    expect(first.retryAfter).toBeGreaterThan(0);
    expect(first.retryAfter).toBeLessThanOrEqual(3);
    expect(answeredAt - first.at).toBeGreaterThanOrEqual(first.retryAfter * 1000 - 50);
    expect(new Set(posted).size).toBe(1);
    expect(posted.length).toBe(refusals.length + 1);
    expect((await client.balance()).balance_usdt).toBe(8.5);
    s.h.clock.reset();
    await s.h.assertLedgerInvariant();
  });
});
