import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// Several instances count requests in the database. When that count cannot be made, a keyed request is refused
// with a retryable 503 and nothing is charged: the limit fails closed, never open and never as a 500.

let h: Harness;
useHarness({}, (started) => (h = started));

describe("the shared request counter out of reach", () => {
  it("answers 503 to keyed requests, charges nothing, and counts again once it is back", async () => {
    const { key } = await h.newKey(10);
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);
    await sql`alter table rate_limits rename to rate_limits_away`.execute(h.service.db);
    try {
      for (const [method, url, body] of [
        ["GET", "/v1/balance", undefined],
        ["POST", "/v1/stars", { username: "alice", stars: 100, idempotency_key: "outage-1" }],
      ] as const) {
        const refused = await h.call(method, url, { key, body });
        expect(refused.status, url).toBe(503);
        expect(refused.body).toEqual({ success: false, error: "The request counter cannot be reached: retry later", error_code: "unavailable" });
      }
      expect(await h.orderCount()).toBe(0);
    } finally {
      await sql`alter table rate_limits_away rename to rate_limits`.execute(h.service.db);
    }
    expect(await h.balance(key)).toBe(10);
  });
});
