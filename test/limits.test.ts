import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: "5" });
});
afterAll(async () => h.close());

describe("rate limit", () => {
  it("answers 429 with retry_after and Retry-After past the limit, counting each key apart", async () => {
    const first = await h.newKey(1);
    const second = await h.newKey(1);
    for (let i = 0; i < 5; i++) expect((await h.call("GET", "/v1/balance", { key: first.key })).status).toBe(200);
    const limited = await h.call("GET", "/v1/balance", { key: first.key });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: expect.stringContaining("Rate limit"), retry_after: expect.any(Number) });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(60);
    expect(Number(limited.headers["retry-after"])).toBe(limited.body.retry_after);
    // A purchase past the limit is refused before anything is charged.
    const purchase = await h.call("POST", "/v1/stars", { key: first.key, body: { username: "alice", stars: 50 } });
    expect(purchase.status).toBe(429);
    expect((await h.service.core.db.selectFrom("orders").selectAll().execute()).length).toBe(0);
    // Another key has its own allowance.
    expect((await h.call("GET", "/v1/balance", { key: second.key })).status).toBe(200);
  });

  it("counts failed authentication by address, so random keys cannot dodge the limit", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await h.call("GET", "/v1/balance", { key: `sj_${String(i).repeat(43)}` })).status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });
});
