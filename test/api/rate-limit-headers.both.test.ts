import { beforeEach, describe, expect, it } from "vitest";
import { clearOfMinuteEdge, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// On SQLite the plugin's in-memory store counts; on PostgreSQL the shared counter in the database
// (src/api/shared-rate-store.ts): this file runs on both, so both stores are checked.

const LIMIT = 4;
let h: Harness;
useHarness({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } }, (started) => (h = started));
beforeEach(async () => clearOfMinuteEdge(h.engine));

type Headers = Record<string, string | string[] | number | undefined>;
const int = (headers: Headers, name: string) => Number(headers[name]);

/** Both families of headers are there and say the same, with the policy of the limit and its window. */
function expectConsistent(headers: Headers, remaining: number) {
  for (const name of [
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
  ]) {
    expect(headers[name], name).toMatch(/^\d+$/);
  }
  expect(int(headers, "x-ratelimit-limit")).toBe(LIMIT);
  expect(int(headers, "ratelimit-limit")).toBe(LIMIT);
  expect(int(headers, "x-ratelimit-remaining")).toBe(remaining);
  expect(int(headers, "ratelimit-remaining")).toBe(remaining);
  expect(headers["ratelimit-reset"]).toBe(headers["x-ratelimit-reset"]);
  expect(int(headers, "ratelimit-reset")).toBeGreaterThan(0);
  expect(int(headers, "ratelimit-reset")).toBeLessThanOrEqual(60);
  expect(headers["ratelimit-policy"]).toBe(`${LIMIT};w=60`);
}

describe("rate-limit headers", () => {
  it("sends x-ratelimit-* and the draft's RateLimit-* with the same values on every keyed answer, and on the 429", async () => {
    const { key } = await h.newKey(10);
    const answers = [
      await h.call("GET", "/v1/balance", { key }),
      await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 10 } }), // 400: still counted, still told
      await h.call("POST", "/v1/quotes", { key, body: { product_type: "stars", username: "alice", stars: 100 } }),
      await h.call("GET", "/v1/orders/999", { key }), // 404
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200, 404]);
    answers.forEach((answer, i) => expectConsistent(answer.headers, LIMIT - 1 - i));

    const limited = await h.call("GET", "/v1/balance", { key });
    expect(limited.status).toBe(429);
    expectConsistent(limited.headers, 0);
    expect(limited.body).toEqual({
      success: false,
      error: expect.stringContaining("Rate limit"),
      retry_after: expect.any(Number),
      error_code: "rate_limited",
    });
    expect(Number(limited.headers["retry-after"])).toBe(limited.body.retry_after);
    expect(limited.headers["ratelimit-reset"]).toBe(limited.headers["retry-after"]);
  });

  it("counts refused keys per address with the same headers, and their 429 carries retry_after", async () => {
    const from = { remoteAddress: "10.20.30.40" };
    for (let i = 0; i < LIMIT; i++) {
      const refused = await h.call("GET", "/v1/balance", { key: `sj_${String(i).repeat(43)}`, ...from });
      expect(refused.status).toBe(401);
      expectConsistent(refused.headers, LIMIT - 1 - i);
    }
    const missing = await h.call("POST", "/v1/quotes", { body: { product_type: "stars", username: "alice", stars: 100 }, ...from });
    expect(missing.status).toBe(429);
    expect(missing.body.retry_after).toBeGreaterThan(0);
    expect(Number(missing.headers["retry-after"])).toBe(missing.body.retry_after);
    expectConsistent(missing.headers, 0);
  });

  it("sends none on the unlimited endpoints", async () => {
    for (const url of ["/v1/health", "/openapi.json"]) {
      const res = await h.call("GET", url);
      expect(res.status).toBe(200);
      expect(res.headers["ratelimit-limit"], url).toBeUndefined();
      expect(res.headers["ratelimit-policy"], url).toBeUndefined();
      expect(res.headers["x-ratelimit-limit"], url).toBeUndefined();
    }
  });

  it("documents both families on the keyed answers and Retry-After on 429 in the OpenAPI document", async () => {
    const doc = (await h.call("GET", "/openapi.json")).body;
    const names = [
      "x-ratelimit-limit",
      "x-ratelimit-remaining",
      "x-ratelimit-reset",
      "ratelimit-limit",
      "ratelimit-remaining",
      "ratelimit-reset",
      "ratelimit-policy",
    ];
    for (const [path, method, status] of [
      ["/v1/balance", "get", "200"],
      ["/v1/quotes", "post", "200"],
      ["/v1/store", "post", "202"],
    ]) {
      const responses = doc.paths[path][method].responses;
      expect(Object.keys(responses[status].headers), path).toEqual(expect.arrayContaining(names));
      expect(Object.keys(responses["429"].headers), path).toEqual(expect.arrayContaining([...names, "retry-after"]));
    }
    // Health is never limited: its answer documents only the request id.
    expect(Object.keys(doc.paths["/v1/health"].get.responses["200"].headers)).toEqual(["x-request-id"]);
  });
});
