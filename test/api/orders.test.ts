import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

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

describe("GET /v1/orders paging and filters", () => {
  type Summary = { order_id: number; product_type: string; status: string };

  /** Every page of the list, passing the last order_id of each page as before. */
  async function allPages(key: string, query: string, limit: number): Promise<Summary[]> {
    const seen: Summary[] = [];
    let before: number | null = null;
    for (let i = 0; i < 100; i++) {
      const response = await h.call("GET", `/v1/orders?limit=${limit}${query}${before ? `&before=${before}` : ""}`, { key });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      // Exactly the contract's body: no paging fields added.
      expect(Object.keys(response.body).sort()).toEqual(["count", "orders", "success"]);
      expect(response.body.count).toBe(response.body.orders.length);
      seen.push(...response.body.orders);
      if (response.body.orders.length < limit) return seen;
      before = response.body.orders.at(-1).order_id;
    }
    throw new Error("too many pages");
  }

  it("pages with before through every order with no gap or duplicate, and filters by product and status, also together", async () => {
    const { key } = await h.newKey(300);
    const other = await h.newKey(50);
    await h.call("POST", "/v1/stars", { key: other.key, body: { username: "alice", stars: 50 } });
    const placed: Summary[] = [];
    const place = async (url: string, body: object) => {
      const response = await h.call("POST", url, { key, body });
      placed.push({
        order_id: response.body.order_id,
        product_type: url === "/v1/stars" ? "stars" : url === "/v1/premium" ? "premium" : "gift",
        status: response.body.status,
      });
    };
    for (let i = 0; i < 8; i++) await place("/v1/stars", { username: "alice", stars: 50 + i });
    for (let i = 0; i < 3; i++) await place("/v1/stars", { username: "fail_bob", stars: 60 + i });
    for (let i = 0; i < 4; i++) await place("/v1/premium", { username: `alice${i}`, months: 3 });
    for (let i = 0; i < 3; i++) await place("/v1/gifts", { recipient: "bob", gift_id: "5168103777563050263", message: `m${i}` });
    expect(placed.filter((o) => o.status === "failed").length).toBe(3);
    const newestFirst = [...placed].sort((a, b) => b.order_id - a.order_id);

    const unpaged = await h.call("GET", "/v1/orders?limit=100", { key });
    expect(unpaged.body.orders.map((o: Summary) => o.order_id)).toEqual(newestFirst.map((o) => o.order_id));
    for (const limit of [1, 5, 18]) {
      expect((await allPages(key, "", limit)).map((o) => o.order_id)).toEqual(newestFirst.map((o) => o.order_id));
    }
    // The list's entries are the same objects whichever way they are reached.
    expect(await allPages(key, "", 4)).toEqual(unpaged.body.orders);

    for (const type of ["stars", "premium", "gift", "store"]) {
      const got = await allPages(key, `&product_type=${type}`, 3);
      expect(
        got.map((o) => o.order_id),
        type,
      ).toEqual(newestFirst.filter((o) => o.product_type === type).map((o) => o.order_id));
    }
    for (const status of ["completed", "failed", "processing"]) {
      const got = await allPages(key, `&status=${status}`, 2);
      expect(
        got.map((o) => o.order_id),
        status,
      ).toEqual(newestFirst.filter((o) => o.status === status).map((o) => o.order_id));
    }
    const failedStars = await allPages(key, "&product_type=stars&status=failed", 2);
    expect(failedStars.map((o) => o.order_id)).toEqual(
      newestFirst.filter((o) => o.product_type === "stars" && o.status === "failed").map((o) => o.order_id),
    );
    // An id above every order starts at the newest; another key's orders never appear.
    const fromTop = await h.call("GET", "/v1/orders?before=999999999999", { key });
    expect(fromTop.body.orders.map((o: Summary) => o.order_id)).toEqual(unpaged.body.orders.slice(0, 20).map((o: Summary) => o.order_id));
    const first = await h.call("GET", `/v1/orders?before=${newestFirst.at(-1)!.order_id}`, { key });
    expect(first.body).toEqual({ success: true, count: 0, orders: [] });
  });

  it("refuses bad paging and filter values with 400 naming them, and places or changes nothing", async () => {
    const { key } = await h.newKey(10);
    const orders = await h.orderCount();
    const cases: Array<[string, RegExp]> = [
      ["before=0", /before must be an order id/],
      ["before=-3", /before must be an order id/],
      ["before=1.5", /before must be an order id/],
      ["before=abc", /before must be an order id/],
      ["before=1234567890123456", /before must be an order id/],
      ["product_type=ads", /product_type must be one of stars, premium, store, game, giftcard, gift/],
      ["product_type=", /product_type must be one of/],
      ["status=done", /status must be one of processing, completed, failed/],
      ["status=FAILED", /status must be one of/],
      ["limit=0&status=failed", /limit must be a whole number from 1 to 100/],
    ];
    for (const [query, message] of cases) {
      const response = await h.call("GET", `/v1/orders?${query}`, { key });
      expect(response.status, query).toBe(400);
      expect(response.body.success, query).toBe(false);
      expect(response.body.error, query).toMatch(message);
    }
    expect(await h.orderCount()).toBe(orders);
    expect(await h.balance(key)).toBe(10);
  });
});
