import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => h.assertLedgerInvariant());
afterAll(async () => h.close());

describe("GET /v1/orders across every product", () => {
  it("lists each product's orders newest first in one summary shape, and shows each in its own shape by id", async () => {
    const { key } = await h.newKey(200);
    const placed = {
      stars: await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } }),
      premium: await h.call("POST", "/v1/premium", { key, body: { username: "alice", months: 3 } }),
      store: await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 25 } }),
      game: await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "512345678" } }),
      giftcard: await h.call("POST", "/v1/giftcards/apple-us/order", { key, body: { card_id: "apple-us-5", quantity: 2 } }),
      gift: await h.call("POST", "/v1/gifts", { key, body: { recipient: "bob", gift_id: "5168103777563050263" } }),
    };
    const list = await h.call("GET", "/v1/orders", { key });
    expect(list.body.count).toBe(6);
    const byType = Object.fromEntries(list.body.orders.map((o: { product_type: string }) => [o.product_type, o]));
    expect(list.body.orders.map((o: { product_type: string }) => o.product_type)).toEqual(["gift", "giftcard", "game", "store", "premium", "stars"]);
    expect(byType.stars).toMatchObject({ username: "alice", amount: 100, usdt_charged: 1.5, store_login: null });
    expect(byType.premium).toMatchObject({ amount: 3, usdt_charged: 11.99 });
    expect(byType.store).toMatchObject({ username: "gabe", amount: 25, store_login: "gabe", store_amount_usd: 25, usdt_charged: 26.52 });
    expect(byType.game).toMatchObject({ username: "512345678", amount: 1, usdt_charged: 1.0395 });
    expect(byType.giftcard).toMatchObject({ username: "apple-us", amount: 2, usdt_charged: 10.5 });
    expect(byType.gift).toMatchObject({ username: "bob", amount: 25, usdt_charged: 0.375, status: "completed" });
    for (const order of list.body.orders) expect(Object.keys(order)).not.toContain("codes");

    const shapes: Record<string, string> = {
      stars: "stars",
      premium: "months",
      store: "store_login",
      game: "game_code",
      giftcard: "card_id",
      gift: "gift_id",
    };
    for (const [type, res] of Object.entries(placed)) {
      const one = await h.call("GET", `/v1/orders/${res.body.order_id}`, { key });
      expect(one.status, type).toBe(200);
      expect(one.body.order_id, type).toBe(res.body.order_id);
      expect(one.body, type).toHaveProperty(shapes[type]);
      expect(one.body, type).not.toHaveProperty("codes");
    }
  });
});
