import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// Issue 46: answers a partner's program can act on. A replay says it is one (Idempotent-Replayed), a typo in a
// purchase body never switches a guard off (400 naming the field, nothing charged), and every error answer carries
// a stable error_code (and, for bad input, the field).

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

/** One purchase of each product: its path and a body that buys. */
const PURCHASES: Array<{ path: string; body: Record<string, unknown> }> = [
  { path: "/v1/stars", body: { username: "alice", stars: 100 } },
  { path: "/v1/premium", body: { username: "bob", months: 3 } },
  { path: "/v1/store", body: { login: "gabe", amount_usd: 10 } },
  { path: "/v1/games/pubgm/order", body: { denomination: "60", player_id: "512345678" } },
  { path: "/v1/giftcards/psn-us/order", body: { card_id: "psn-us-10" } },
  { path: "/v1/gifts", body: { recipient: "alice", gift_id: "5170145012310081615" } },
];

describe("Idempotent-Replayed", () => {
  for (const { path, body } of PURCHASES) {
    it(`${path}: false on the order's first answer, true on its replay, which charges nothing`, async () => {
      const { key } = await h.newKey(100);
      const first = await h.call("POST", path, { key, body: { ...body, idempotency_key: "replayed-1" } });
      expect([200, 201, 202]).toContain(first.status);
      expect(first.headers["idempotent-replayed"]).toBe("false");
      const balance = await h.balance(key);

      const again = await h.call("POST", path, { key, body: { ...body, idempotency_key: "replayed-1" } });
      expect(again.status).toBe(200);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(again.body.order_id).toBe(first.body.order_id);
      expect(await h.balance(key)).toBe(balance);
    });
  }

  it("marks a new order, not a replay, when the same key comes with other identifying fields (rule 3)", async () => {
    const { key } = await h.newKey(10);
    const first = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key: "k-1" } });
    const other = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 200, idempotency_key: "k-1" } });
    expect(other.status).toBe(200);
    expect(other.headers["idempotent-replayed"]).toBe("false");
    expect(other.body.order_id).not.toBe(first.body.order_id);
    expect(await h.balance(key)).toBe(10 - 1.5 - 3);
  });

  it("marks a failed order's first answer (502) false and its replay (200) true", async () => {
    const { key } = await h.newKey(20);
    const failed = await h.call("POST", "/v1/premium", { key, body: { username: "fail_bob", months: 3, idempotency_key: "p-1" } });
    expect(failed.status).toBe(502);
    expect(failed.headers["idempotent-replayed"]).toBe("false");
    const again = await h.call("POST", "/v1/premium", { key, body: { username: "fail_bob", months: 3, idempotency_key: "p-1" } });
    expect(again.status).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
  });

  it("is not sent on a refusal that placed no order", async () => {
    const { key } = await h.newKey(0);
    const refused = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key: "k-2" } });
    expect(refused.status).toBe(402);
    expect(refused.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("is documented in the OpenAPI document on every purchase's order answers", async () => {
    const doc = JSON.parse((await h.api.inject({ url: "/openapi.json" })).body);
    for (const { path } of PURCHASES) {
      const route = path.replace("pubgm", "{code}").replace("psn-us", "{category_id}");
      const responses = doc.paths[route].post.responses as Record<string, { headers?: Record<string, { required?: boolean }> }>;
      const orderAnswers = Object.keys(responses).filter((status) => status.startsWith("2") || status === "502");
      expect(orderAnswers.length, route).toBeGreaterThan(1);
      for (const status of orderAnswers) {
        expect(responses[status].headers?.["idempotent-replayed"], `${route} ${status}`).toMatchObject({
          required: true,
          schema: { enum: ["true", "false"] },
        });
      }
      expect(responses["402"].headers?.["idempotent-replayed"], route).toBeUndefined();
    }
  });
});

describe("unknown fields on a purchase body", () => {
  it("refuses idempotencyKey (for idempotency_key) with 400 naming it: no order, no charge, however often it is sent", async () => {
    const { key } = await h.newKey(10);
    const before = await h.orderCount();
    for (let i = 0; i < 2; i++) {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotencyKey: "inv-7" } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: expect.stringMatching(/idempotencyKey.*idempotency_key/),
        error_code: "invalid_input",
        field: "idempotencyKey",
      });
    }
    expect(await h.orderCount()).toBe(before);
    expect(await h.balance(key)).toBe(10);
  });

  it("refuses max_usd (for max_usdt) with 400 naming it: nothing charged above the price the buyer saw", async () => {
    const { key } = await h.newKey(10);
    const before = await h.orderCount();
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, max_usd: 0.5 } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.stringMatching(/max_usd.*max_usdt/), error_code: "invalid_input", field: "max_usd" });
    expect(await h.orderCount()).toBe(before);
    expect(await h.balance(key)).toBe(10);
  });

  for (const { path, body } of [
    ...PURCHASES,
    { path: "/test/v1/stars", body: { username: "alice", stars: 100 } },
    { path: "/test/v1/premium", body: { username: "bob", months: 3 } },
    { path: "/test/v1/store", body: { login: "gabe", amount_usd: 10 } },
    { path: "/v1/quotes", body: { product_type: "stars", username: "alice", stars: 100 } },
  ]) {
    it(`${path}: an unknown field is 400 naming it, and nothing is charged`, async () => {
      const { key } = await h.newKey(100);
      const before = await h.orderCount();
      const res = await h.call("POST", path, { key, body: { ...body, max_usd: 0.5 } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error_code: "invalid_input", field: "max_usd" });
      expect(await h.orderCount()).toBe(before);
      expect(await h.balance(key)).toBe(100);
    });
  }

  it("a quote's body is a purchase's without its idempotency key: the key is refused there, suggesting nothing", async () => {
    const { key } = await h.newKey(10);
    const res = await h.call("POST", "/v1/quotes", { key, body: { product_type: "stars", username: "alice", stars: 100, idempotency_key: "q-1" } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: "idempotency_key is not a field of this request",
      error_code: "invalid_input",
      field: "idempotency_key",
    });
  });

  it("the OpenAPI document says purchase bodies take no other fields", async () => {
    const doc = JSON.parse((await h.api.inject({ url: "/openapi.json" })).body);
    for (const { path } of PURCHASES) {
      const route = path.replace("pubgm", "{code}").replace("psn-us", "{category_id}");
      expect(doc.paths[route].post.requestBody.content["application/json"].schema.additionalProperties, route).toBe(false);
    }
  });
});

describe("error_code on every error answer", () => {
  it("a validation 400 names the field and says invalid_input", async () => {
    const { key } = await h.newKey(10);
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 10 } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: "stars must be at least 50", error_code: "invalid_input", field: "stars" });
    const missing = await h.call("POST", "/v1/premium", { key, body: { username: "alice" } });
    expect(missing.body).toMatchObject({ error: "months is required", error_code: "invalid_input", field: "months" });
  });

  it("a bad query or path parameter is named too", async () => {
    const { key } = await h.newKey(10);
    const limit = await h.call("GET", "/v1/orders?limit=500", { key });
    expect(limit.status).toBe(400);
    expect(limit.body).toMatchObject({ error_code: "invalid_input", field: "limit" });
    const id = await h.call("GET", "/v1/orders/abc", { key });
    expect(id.status).toBe(400);
    expect(id.body).toMatchObject({ error_code: "invalid_input", field: "order_id" });
  });

  it("keeps the contract's own codes where it has them (the store's fields)", async () => {
    const { key } = await h.newKey(10);
    const amount = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: "10" } });
    expect(amount.status).toBe(400);
    expect(amount.body).toEqual({ success: false, error: "amount_usd must be a number", error_code: "invalid_amount", field: "amount_usd" });
    const login = await h.call("POST", "/v1/store", { key, body: { login: "a@b.c", amount_usd: 10 } });
    expect(login.status).toBe(400);
    expect(login.body).toMatchObject({ error_code: "login_not_supported" });
    expect(await h.balance(key)).toBe(10);
  });

  it("a body that is not JSON, or not an object, is invalid_input with no field", async () => {
    const { key } = await h.newKey(10);
    const bad = await h.call("POST", "/v1/stars", { key, body: "{nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: expect.any(String), error_code: "invalid_input" });
    const array = await h.call("POST", "/v1/stars", { key, body: [1, 2] });
    expect(array.status).toBe(400);
    expect(array.body).toEqual({ success: false, error: expect.any(String), error_code: "invalid_input" });
  });

  it("401 says unauthorized, with no key or a wrong one", async () => {
    const none = await h.call("POST", "/v1/stars", { body: { username: "alice", stars: 100 } });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ success: false, error: expect.any(String), error_code: "unauthorized" });
    const wrong = await h.call("GET", "/v1/balance", { key: "sj_wrong" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error_code).toBe("unauthorized");
  });

  it("402 says insufficient_funds beside the amounts", async () => {
    const { key } = await h.newKey(1);
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ success: false, error: expect.any(String), error_code: "insufficient_funds", required_usdt: 1.5, balance_usdt: 1 });
  });

  it("a failed delivery's 502 says provider_error: stars (an order) and premium (an Error body)", async () => {
    const { key } = await h.newKey(20);
    const stars = await h.call("POST", "/v1/stars", { key, body: { username: "fail_carol", stars: 100 } });
    expect(stars.status).toBe(502);
    expect(stars.body).toMatchObject({ status: "failed", error_code: "provider_error" });
    const premium = await h.call("POST", "/v1/premium", { key, body: { username: "fail_carol", months: 3 } });
    expect(premium.status).toBe(502);
    expect(premium.body).toEqual({ success: false, error: expect.any(String), error_code: "provider_error" });
    expect(await h.balance(key)).toBe(20);
  });

  it("a completed stars order carries error_code null", async () => {
    const { key } = await h.newKey(10);
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    expect(res.body).toMatchObject({ status: "completed", error_code: null });
  });

  it("an unknown route, a wrong content type and a body too large each have their code", async () => {
    const { key } = await h.newKey(10);
    const route = await h.call("GET", "/v1/nothing", { key });
    expect(route.status).toBe(404);
    expect(route.body.error_code).toBe("not_found");
    const type = await h.call("POST", "/v1/stars", { key, body: "username=alice", headers: { "content-type": "text/plain" } });
    expect(type.status).toBe(415);
    expect(type.body.error_code).toBe("unsupported_media_type");
    const large = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, pad: "x".repeat(70_000) } });
    expect(large.status).toBe(413);
    expect(large.body.error_code).toBe("body_too_large");
  });

  it("the OpenAPI error schema requires error_code and lists every value", async () => {
    const doc = JSON.parse((await h.api.inject({ url: "/openapi.json" })).body);
    const schema = doc.components.schemas.ErrorBody;
    expect(schema.required).toContain("error_code");
    expect(schema.properties.error_code.enum).toEqual(
      expect.arrayContaining(["invalid_input", "unauthorized", "key_blocked", "not_found", "rate_limited", "provider_error", "login_not_supported"]),
    );
    expect(schema.properties.field).toBeDefined();
    expect(doc.components.schemas.InsufficientFunds.properties.error_code.const).toBe("insufficient_funds");
    expect(doc.components.schemas.InsufficientFunds.required).toContain("error_code");
  });
});
