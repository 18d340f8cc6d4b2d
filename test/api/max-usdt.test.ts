import { describe, expect, it } from "vitest";
import { REASONS } from "../../src/core/model/reasons.js";
import { GENERAL_ERROR_CODES } from "../../src/wire/common.js";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

describe("max_usdt: the charge the buyer saw", () => {
  it("refuses a stars order whose charge is above max_usdt with 400 price_changed, charging nothing", async () => {
    const { key } = await h.newKey(10);
    const before = await h.orderCount();
    const refused = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, max_usdt: 1.49 } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ success: false, error: expect.stringContaining("1.5 USDT"), error_code: "price_changed" });
    expect(await h.balance(key)).toBe(10);
    expect(await h.orderCount()).toBe(before);

    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, max_usdt: 1.5 } });
    expect(bought.status).toBe(200);
    expect(bought.body).toMatchObject({ status: "completed", usdt_charged: 1.5, balance_remaining_usdt: 8.5 });
  });

  it("applies the same guard in the sandbox, which quotes from the same core rules", async () => {
    const { key } = await h.newKey(10);
    const low = await h.call("POST", "/test/v1/premium", { key, body: { username: "bob", months: 3, max_usdt: 11 } });
    expect(low.status).toBe(400);
    expect(low.body.error_code).toBe("price_changed");
    const ok = await h.call("POST", "/test/v1/premium", { key, body: { username: "bob", months: 3, max_usdt: 11.99 } });
    expect(ok.body).toMatchObject({ test: true, usdt_charged: 11.99, balance_remaining_usdt: 10 });
  });

  it("charges nothing when a store price moves between the quote and the order", async () => {
    const { key, telegramId } = await h.newKey(50);
    const quoted = await h.call("GET", "/v1/store/pricing?amount_usd=10", { key });
    const seen = quoted.body.quote.total_usdt;
    expect(seen).toBe(10.61);
    // An administrator raises this key's markup after the client read the quote.
    await h.service.core.admin.setMarkup(telegramId, "store", 1000, "test");
    const before = await h.orderCount();
    const refused = await h.call("POST", "/v1/store", { key, body: { login: "gabe_m", amount_usd: 10, max_usdt: seen } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe("price_changed");
    expect(refused.body.error).toContain("11.33 USDT");
    expect(await h.balance(key)).toBe(50);
    expect(await h.orderCount()).toBe(before);
  });

  it("charges nothing when a game's catalogue price moves above what the client saw", async () => {
    const { key, telegramId } = await h.newKey(50);
    const catalogue = await h.call("GET", "/v1/games/pubgm/catalogue", { key });
    const seen = catalogue.body.denominations.find((d: { name: string }) => d.name === "60").price_usdt;
    await h.service.core.admin.setMarkup(telegramId, "games", 2000, "test");
    const body = { denomination: "60", player_id: "700123456", max_usdt: seen };
    const refused = await h.call("POST", "/v1/games/pubgm/order", { key, body });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe("price_changed");
    expect(await h.balance(key)).toBe(50);
  });

  it("validates max_usdt like any field: a bad one is 400 naming it, and nothing is charged", async () => {
    const { key } = await h.newKey(10);
    for (const max_usdt of [0, -1, "1.5", 1.0000001]) {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, max_usdt } });
      expect(res.status, String(max_usdt)).toBe(400);
      expect(res.body.error).toContain("max_usdt");
    }
    expect(await h.balance(key)).toBe(10);
  });

  it("documents max_usdt and the closed set of error_code values in the OpenAPI document", async () => {
    const doc = (await h.call("GET", "/openapi.json")).body;
    const stars = doc.paths["/v1/stars"].post.requestBody.content["application/json"].schema;
    expect(stars.properties.max_usdt).toMatchObject({ type: "number" });
    expect(doc.components.schemas.ErrorBody.properties.error_code.enum).toEqual([...REASONS, ...GENERAL_ERROR_CODES]);
    expect(doc.components.schemas.StoreOrderResponse.properties.error_code.anyOf[0].enum).toEqual([...REASONS]);
  });
});
