import { describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { REASONS } from "../../src/core/model/reasons.js";
import { GENERAL_ERROR_CODES } from "../../src/wire/common.js";
import { type Harness, startHarness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

/** Each product: its quote body, and the purchase it is for (the same fields). */
const PRODUCTS = [
  {
    name: "stars",
    quote: { product_type: "stars", username: "@Alice", stars: 100 },
    buy: { url: "/v1/stars", body: { username: "alice", stars: 100 } },
    fields: { username: "Alice", stars: 100 },
  },
  {
    name: "premium",
    quote: { product_type: "premium", username: "bob", months: 3 },
    buy: { url: "/v1/premium", body: { username: "bob", months: 3 } },
    fields: { username: "bob", months: 3 },
  },
  {
    name: "store",
    quote: { product_type: "store", login: "gabe_m", amount_usd: 10 },
    buy: { url: "/v1/store", body: { login: "gabe_m", amount_usd: 10 } },
    fields: { login: "gabe_m", amount_usd: 10 },
  },
  {
    name: "game",
    quote: { product_type: "game", game_code: "pubgm", denomination: "60", player_id: "700123456" },
    buy: { url: "/v1/games/pubgm/order", body: { denomination: "60", player_id: "700123456" } },
    fields: { game_code: "pubgm", denomination: "60", player_id: "700123456", server_id: null },
  },
  {
    name: "giftcard",
    quote: { product_type: "giftcard", category_id: "psn-us", card_id: "psn-us-10", quantity: 2 },
    buy: { url: "/v1/giftcards/psn-us/order", body: { card_id: "psn-us-10", quantity: 2 } },
    fields: { category_id: "psn-us", card_id: "psn-us-10", quantity: 2 },
  },
  {
    name: "gift",
    quote: { product_type: "gift", recipient: "alice", gift_id: "5170145012310081615", message: "hi" },
    buy: { url: "/v1/gifts", body: { recipient: "@alice", gift_id: "5170145012310081615", message: "hi" } },
    fields: { recipient: "alice", gift_id: "5170145012310081615", hide_name: false, message: "hi" },
  },
] as const;

async function quote(key: string, body: object) {
  const res = await h.call("POST", "/v1/quotes", { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { quote_id: string; charge_usdt: number; expires_at: string; created_at: string };
}

/** The ledger's charge of an order, in micro-USDT (negative). */
async function chargeEntry(orderId: number): Promise<number> {
  const entries = await h.service.db.selectFrom("ledger_entries").selectAll().where("order_id", "=", orderId).where("kind", "=", "charge").execute();
  expect(entries).toHaveLength(1);
  return Number(entries[0].amount_micro);
}

/** A purchase refused with 400 and `reason`, charging nothing and creating no order. */
async function expectRefused(key: string, url: string, body: object, reason: string | undefined) {
  const balance = await h.balance(key);
  const orders = await h.orderCount();
  const res = await h.call("POST", url, { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error_code).toBe(reason);
  expect(await h.balance(key)).toBe(balance);
  expect(await h.orderCount()).toBe(orders);
  return res.body;
}

describe("POST /v1/quotes", () => {
  it("quotes every product with its exact charge, an id, an expiry and what it is for", async () => {
    const { key } = await h.newKey(100);
    for (const product of PRODUCTS) {
      const res = await h.call("POST", "/v1/quotes", { key, body: product.quote });
      expect(res.status, `${product.name}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body).toMatchObject({ success: true, product_type: product.name, currency: "USDT", fields: product.fields, ttl_seconds: 60 });
      expect(res.body.quote_id).toMatch(/^q_[A-Za-z0-9_-]{24}$/);
      expect(res.body.charge_usdt).toBeGreaterThan(0);
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(60_000);
    }
    expect(await h.orderCount()).toBe(0);
    expect(await h.balance(key)).toBe(100);
  });

  it("runs the product's rules and live reads: a refusal is the purchase's refusal, and nothing is stored", async () => {
    const { key } = await h.newKey(10);
    const quotesBefore = (await h.service.db.selectFrom("quotes").selectAll().execute()).length;
    const email = await h.call("POST", "/v1/quotes", { key, body: { product_type: "store", login: "a@b.com", amount_usd: 10 } });
    expect(email.status).toBe(400);
    expect(email.body.error_code).toBe("login_not_supported");
    const range = await h.call("POST", "/v1/quotes", { key, body: { product_type: "store", login: "gabe", amount_usd: 1000 } });
    expect(range.status).toBe(400);
    expect(range.body.error_code).toBe("invalid_amount");
    const stock = await h.call("POST", "/v1/quotes", { key, body: { product_type: "giftcard", category_id: "psn-us", card_id: "psn-us-50" } });
    expect(stock.status).toBe(400);
    expect(stock.body.error).toContain("in stock");
    const refuses = await h.call("POST", "/v1/quotes", {
      key,
      body: { product_type: "gift", recipient: "refuse_x", gift_id: "5170145012310081615" },
    });
    expect(refuses.status).toBe(400);
    expect(refuses.body.error_code).toBe("recipient_refuses");
    const player = await h.call("POST", "/v1/quotes", {
      key,
      body: { product_type: "game", game_code: "pubgm", denomination: "60", player_id: "000000" },
    });
    expect(player.status).toBe(400);
    expect((await h.service.db.selectFrom("quotes").selectAll().execute()).length).toBe(quotesBefore);
  });

  it("answers bad bodies with 400 naming the field, never a 500", async () => {
    const { key } = await h.newKey(10);
    const cases: Array<[unknown, string]> = [
      [{}, "product_type"],
      [{ product_type: "ads", username: "alice" }, "product_type"],
      [{ product_type: "stars", username: "alice" }, "stars"],
      [{ product_type: "stars", username: "alice", stars: 10 }, "stars"],
      [{ product_type: "game", denomination: "60", player_id: "700123456" }, "game_code"],
      [{ product_type: "giftcard", card_id: "psn-us-10" }, "category_id"],
      [{ product_type: "store", login: "gabe", amount_usd: 10, max_usdt: -1 }, "max_usdt"],
      [[1, 2], "JSON object"],
    ];
    for (const [body, field] of cases) {
      const res = await h.call("POST", "/v1/quotes", { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toContain(field);
    }
  });
});

describe("a purchase naming a quote", () => {
  it("charges exactly the quote for every product (balance and ledger), and marks the quote used by that order", async () => {
    const { key } = await h.newKey(200);
    for (const product of PRODUCTS) {
      const quoted = await quote(key, product.quote);
      const before = await h.balance(key);
      const res = await h.call("POST", product.buy.url, { key, body: { ...product.buy.body, quote_id: quoted.quote_id } });
      expect([200, 201, 202], `${product.name}: ${JSON.stringify(res.body)}`).toContain(res.status);
      expect(res.body.usdt_charged, product.name).toBe(quoted.charge_usdt);
      expect(await chargeEntry(res.body.order_id)).toBe(-fromUsdt(quoted.charge_usdt));
      expect(await h.balance(key)).toBeCloseTo(before - quoted.charge_usdt, 6);
      const row = await h.service.db.selectFrom("quotes").selectAll().where("id", "=", quoted.quote_id).executeTakeFirstOrThrow();
      expect(Number(row.order_id)).toBe(res.body.order_id);
    }
  });

  it("charges the quoted amount when the price moved after the quote, up or down; without the quote the live price", async () => {
    const { key, telegramId } = await h.newKey(200);
    const store = await quote(key, { product_type: "store", login: "gabe_m", amount_usd: 10 });
    const game = await quote(key, { product_type: "game", game_code: "pubgm", denomination: "60", player_id: "700123456" });
    const cards = await quote(key, { product_type: "giftcard", category_id: "psn-us", card_id: "psn-us-10", quantity: 2 });
    expect(store.charge_usdt).toBe(10.61);
    // An administrator moves this key's markups after the quotes: store and games up, gift cards down.
    await h.service.core.admin.setMarkup(telegramId, "store", 1000, "test");
    await h.service.core.admin.setMarkup(telegramId, "games", 2000, "test");
    await h.service.core.admin.setMarkup(telegramId, "giftcards", 0, "test");

    const bought = [
      await h.call("POST", "/v1/store", { key, body: { login: "gabe_m", amount_usd: 10, quote_id: store.quote_id } }),
      await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "700123456", quote_id: game.quote_id } }),
      await h.call("POST", "/v1/giftcards/psn-us/order", { key, body: { card_id: "psn-us-10", quantity: 2, quote_id: cards.quote_id } }),
    ];
    expect(bought.map((b) => b.body.usdt_charged)).toEqual([store.charge_usdt, game.charge_usdt, cards.charge_usdt]);
    for (const b of bought) expect(await chargeEntry(b.body.order_id)).toBe(-fromUsdt(b.body.usdt_charged));
    // The order's own breakdown is the quoted one, so it adds up to the charge.
    expect(bought[0].body.store_markup_usdt).toBe(0.309);

    const live = await h.call("POST", "/v1/store", { key, body: { login: "gabe_m", amount_usd: 10 } });
    expect(live.body.usdt_charged).toBe(11.33);
    const liveCards = await h.call("POST", "/v1/giftcards/psn-us/order", { key, body: { card_id: "psn-us-10", quantity: 2 } });
    expect(liveCards.body.usdt_charged).toBeLessThan(cards.charge_usdt);
  });

  it("refuses an expired quote with quote_expired, charging nothing", async () => {
    // The service's clock is moved past the quote's lifetime: nothing sleeps.
    const { key } = await h.newKey(10);
    const orders = await h.orderCount();
    const res = await h.call("POST", "/v1/quotes", { key, body: { product_type: "stars", username: "alice", stars: 100 } });
    expect(res.body.ttl_seconds).toBe(60);
    try {
      // Its last moment it is still good (the sandbox checks it without spending it); past it, expired.
      h.clock.advance(Date.parse(res.body.expires_at) - h.clock.now().getTime() - 50);
      const good = await h.call("POST", "/test/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: res.body.quote_id } });
      expect(good.status, JSON.stringify(good.body)).toBe(200);
      h.clock.advance(100);
      const refused = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: res.body.quote_id } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ success: false, error: expect.stringContaining("expired"), error_code: "quote_expired" });
      expect(await h.balance(key)).toBe(10);
      expect(await h.orderCount()).toBe(orders);
      const sandbox = await h.call("POST", "/test/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: res.body.quote_id } });
      expect(sandbox.body.error_code).toBe("quote_expired");
    } finally {
      h.clock.reset();
    }
  });

  it("holds a quote for QUOTE_TTL_SECONDS as configured", async () => {
    const short = await startHarness({ QUOTE_TTL_SECONDS: "1" });
    try {
      const { key } = await short.newKey(10);
      const res = await short.call("POST", "/v1/quotes", { key, body: { product_type: "stars", username: "alice", stars: 100 } });
      expect(res.body.ttl_seconds).toBe(1);
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(1_000);
      short.clock.advance(1_001);
      const refused = await short.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: res.body.quote_id } });
      expect(refused.body.error_code).toBe("quote_expired");
      expect(await short.balance(key)).toBe(10);
    } finally {
      await short.close();
    }
  });

  it("refuses a used quote, another key's, an unknown one, other fields or another product, each with its reason", async () => {
    const { key } = await h.newKey(20);
    const other = await h.newKey(20);
    const q = await quote(key, { product_type: "stars", username: "alice", stars: 100 });
    const stars = (extra: object) => ({ username: "alice", stars: 100, quote_id: q.quote_id, ...extra });

    await expectRefused(other.key, "/v1/stars", stars({}), "quote_not_found");
    await expectRefused(key, "/v1/stars", stars({ quote_id: "q_AAAAAAAAAAAAAAAAAAAAAAAA" }), "quote_not_found");
    await expectRefused(key, "/v1/stars", stars({ stars: 200 }), "quote_mismatch");
    await expectRefused(key, "/v1/stars", stars({ username: "bob" }), "quote_mismatch");
    await expectRefused(key, "/v1/premium", { username: "alice", months: 3, quote_id: q.quote_id }, "quote_mismatch");
    await expectRefused(key, "/v1/store", { login: "alice", amount_usd: 10, quote_id: q.quote_id }, "quote_mismatch");

    // The same recipient however it is written (@, case) is the same purchase.
    const bought = await h.call("POST", "/v1/stars", { key, body: stars({ username: "@ALICE" }) });
    expect(bought.status).toBe(200);
    expect(bought.body.usdt_charged).toBe(q.charge_usdt);
    const used = await expectRefused(key, "/v1/stars", stars({}), "quote_used");
    expect(used.error).toContain(`order ${bought.body.order_id}`);
    await expectRefused(key, "/v1/stars", stars({ idempotency_key: "another-invoice" }), "quote_used");
  });

  it("refuses a malformed quote_id as a validation error naming it, charging nothing", async () => {
    const { key } = await h.newKey(10);
    for (const quote_id of ["", "q_short", "x".repeat(26), `q_${"A".repeat(23)}!`, 42, `q_${"A".repeat(24)}\u0000`]) {
      const body = await expectRefused(key, "/v1/stars", { username: "alice", stars: 100, quote_id }, "invalid_input");
      expect(body.field).toBe("quote_id");
      expect(body.error, JSON.stringify(quote_id)).toContain("quote_id");
    }
  });

  it("charges once when two purchases name one quote at the same time", async () => {
    const { key } = await h.newKey(10);
    const q = await quote(key, { product_type: "stars", username: "alice", stars: 100 });
    const both = await Promise.all(
      [1, 2].map((n) =>
        h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: q.quote_id, idempotency_key: `race-${n}` } }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(both.find((r) => r.status === 400)!.body.error_code).toBe("quote_used");
    expect(await h.balance(key)).toBe(10 - q.charge_usdt);
    expect(await h.orderCount()).toBeGreaterThan(0);
  });

  it("answers an idempotent replay of the purchase that used the quote with the same order, after use and after expiry", async () => {
    const { key } = await h.newKey(20);
    const q = await quote(key, { product_type: "premium", username: "bob", months: 3 });
    const body = { username: "bob", months: 3, quote_id: q.quote_id, idempotency_key: "inv-q-1" };
    const first = await h.call("POST", "/v1/premium", { key, body });
    expect(first.status).toBe(200);
    const again = await Promise.all([h.call("POST", "/v1/premium", { key, body }), h.call("POST", "/v1/premium", { key, body })]);
    for (const replay of again) {
      expect(replay.status).toBe(200);
      expect(replay.body.order_id).toBe(first.body.order_id);
    }
    expect(await h.balance(key)).toBe(8.01);
  });

  it("still applies the live rules: short funds are 402 and a down provider 503, and the quote stays usable", async () => {
    const { key, telegramId } = await h.newKey(1);
    const stars = await quote(key, { product_type: "stars", username: "alice", stars: 100 });
    const short = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: stars.quote_id } });
    expect(short.status).toBe(402);
    expect(short.body).toMatchObject({ required_usdt: 1.5, balance_usdt: 1 });
    await h.service.core.admin.credit(telegramId, fromUsdt(20), "test");

    const store = await quote(key, { product_type: "store", login: "gabe_m", amount_usd: 5 });
    await h.fault("store", "down");
    try {
      const down = await h.call("POST", "/v1/store", { key, body: { login: "gabe_m", amount_usd: 5, quote_id: store.quote_id } });
      expect(down.status).toBe(503);
    } finally {
      await h.fault("store", "ok");
    }
    expect(await h.balance(key)).toBe(21);
    const ok = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: stars.quote_id } });
    expect(ok.body).toMatchObject({ status: "completed", usdt_charged: 1.5 });
    const topUp = await h.call("POST", "/v1/store", { key, body: { login: "gabe_m", amount_usd: 5, quote_id: store.quote_id } });
    expect(topUp.body.usdt_charged).toBe(store.charge_usdt);
  });

  it("holds max_usdt too: both must hold, and a refusal leaves the quote unused", async () => {
    const { key } = await h.newKey(10);
    const q = await quote(key, { product_type: "stars", username: "alice", stars: 100 });
    await expectRefused(key, "/v1/stars", { username: "alice", stars: 100, quote_id: q.quote_id, max_usdt: 1.49 }, "price_changed");
    const ok = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: q.quote_id, max_usdt: 1.5 } });
    expect(ok.status).toBe(200);
    // A quote refused under max_usdt is not stored at all.
    const refused = await h.call("POST", "/v1/quotes", { key, body: { product_type: "stars", username: "alice", stars: 100, max_usdt: 1 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe("price_changed");
  });
});

describe("the sandbox with a quote", () => {
  it("checks the quote and answers its charge without spending it", async () => {
    const { key, telegramId } = await h.newKey(10);
    const orders = await h.orderCount();
    const q = await quote(key, { product_type: "store", login: "gabe_m", amount_usd: 10 });
    await h.service.core.admin.setMarkup(telegramId, "store", 1000, "test");
    const body = { login: "gabe_m", amount_usd: 10, quote_id: q.quote_id };
    for (let i = 0; i < 2; i++) {
      const sandbox = await h.call("POST", "/test/v1/store", { key, body });
      expect(sandbox.status).toBe(200);
      expect(sandbox.body.usdt_charged).toBe(10.61);
    }
    const mismatch = await h.call("POST", "/test/v1/store", { key, body: { ...body, amount_usd: 11 } });
    expect(mismatch.body.error_code).toBe("quote_mismatch");

    const stars = await quote(key, { product_type: "stars", username: "alice", stars: 100 });
    const test = await h.call("POST", "/test/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: stars.quote_id } });
    expect(test.body).toMatchObject({ test: true, usdt_charged: 1.5, balance_remaining_usdt: 10 });
    const wrong = await h.call("POST", "/test/v1/premium", { key, body: { username: "alice", months: 3, quote_id: stars.quote_id } });
    expect(wrong.body.error_code).toBe("quote_mismatch");
    expect(await h.orderCount()).toBe(orders);
    expect(await h.balance(key)).toBe(10);
    const real = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: stars.quote_id } });
    expect(real.status).toBe(200);
    const after = await h.call("POST", "/test/v1/stars", { key, body: { username: "alice", stars: 100, quote_id: stars.quote_id } });
    expect(after.body.error_code).toBe("quote_used");
  });
});

describe("the OpenAPI document", () => {
  it("documents POST /v1/quotes, quote_id on every purchase, and the quote reasons", async () => {
    const doc = (await h.call("GET", "/openapi.json")).body;
    const create = doc.paths["/v1/quotes"].post;
    expect(create.operationId).toBe("createQuote");
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "429", "503"]));
    for (const [path, method] of [
      ["/v1/stars", "post"],
      ["/v1/premium", "post"],
      ["/v1/store", "post"],
      ["/v1/games/{code}/order", "post"],
      ["/v1/giftcards/{category_id}/order", "post"],
      ["/v1/gifts", "post"],
      ["/test/v1/stars", "post"],
      ["/test/v1/premium", "post"],
    ]) {
      const schema = doc.paths[path][method].requestBody.content["application/json"].schema;
      expect(schema.properties.quote_id, path).toBeDefined();
    }
    expect(REASONS).toEqual(expect.arrayContaining(["quote_not_found", "quote_expired", "quote_used", "quote_mismatch"]));
    expect(doc.components.schemas.ErrorBody.properties.error_code.enum).toEqual([...REASONS, ...GENERAL_ERROR_CODES]);
  });
});
