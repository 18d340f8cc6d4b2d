import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_MICRO, MAX_USDT, micro } from "../../src/core/model/money.js";
import { type Harness, startHarness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

describe("bounds on money", () => {
  it("keeps every balance within the bound: credits near it succeed or are refused whole, and the books stay exact", async () => {
    const { key, telegramId } = await h.newKey();
    const { admin } = h.service.core;
    // Two credits of 9,000,000,000 USDT once passed 2^53 micro; now the first is refused and nothing moves.
    await expect(admin.credit(telegramId, micro(9_000_000_000 * 1e6), "test")).rejects.toThrow(`at most ${MAX_USDT} USDT`);
    await admin.credit(telegramId, micro(MAX_MICRO - 1), "test", { confirmed: true });
    await expect(admin.credit(telegramId, micro(2), "test")).rejects.toThrow("past that");
    expect(await admin.credit(telegramId, micro(1), "test")).toBe(MAX_MICRO);
    const balance = await h.call("GET", "/v1/balance", { key });
    expect(balance).toMatchObject({ status: 200, body: { balance_usdt: MAX_USDT } });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -3, max: 3 }), async (delta) => {
        const before = (await h.call("GET", "/v1/balance", { key })).body.balance_usdt * 1e6;
        const moved = delta >= 0 ? admin.credit(telegramId, micro(delta), "test") : admin.debit(telegramId, micro(-delta), "test");
        const after = await moved.then(
          (value) => value,
          () => before,
        );
        expect(after).toBeGreaterThanOrEqual(0);
        expect(after).toBeLessThanOrEqual(MAX_MICRO);
      }),
      { numRuns: 30 },
    );
    // A purchase at the bound answers normally, with an exact balance after it.
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
    expect(bought.status).toBe(200);
    expect(Number.isInteger(Math.round(bought.body.balance_remaining_usdt * 1e6))).toBe(true);
  });

  it("refuses max_usdt and store amounts past the bound with a message that names it", async () => {
    const { key } = await h.newKey(10);
    const stars = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, max_usdt: MAX_USDT + 1 } });
    expect(stars.status).toBe(400);
    expect(stars.body.error).toContain(String(MAX_USDT));
    const store = await h.call("POST", "/test/v1/store", { key, body: { login: "gabe", amount_usd: 1e12 } });
    expect(store.status).toBe(400);
    expect(store.body.error_code).toBe("invalid_amount");
    const pricing = await h.call("GET", "/v1/store/pricing?amount_usd=1234567", { key });
    expect(pricing.status).toBe(400);
    expect(pricing.body.error).not.toContain("must be a number");
    expect(await h.balance(key)).toBe(10);
  });
});

describe("owner keys", () => {
  it("refuses a credit or debit of an owner key, pointing at the wallet, and changes nothing", async () => {
    const { telegramId } = await h.newKey();
    await h.service.core.admin.makeOwner(telegramId, {}, "test");
    for (const move of [
      () => h.service.core.admin.credit(telegramId, micro(1_000_000), "test"),
      () => h.service.core.admin.debit(telegramId, micro(1), "test"),
    ]) {
      await expect(move()).rejects.toThrow(/owner key.*wallet/);
    }
    expect((await h.service.core.accounts.byTelegramId(telegramId))!.balanceMicro).toBe(0);
  });
});

describe("a provider that did not take the order", () => {
  it("fails and refunds a stars order at once when the gateway answers 503, instead of holding the money", async () => {
    const { key } = await h.newKey(15);
    await h.fault("gateway", "down");
    try {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ success: false, status: "failed", balance_remaining_usdt: 15 });
      const premium = await h.call("POST", "/v1/premium", { key, body: { username: "alice", months: 3 } });
      expect(premium.status).toBe(502);
      expect(premium.body.error).toContain("refunded");
    } finally {
      await h.fault("gateway", "ok");
    }
    expect(await h.balance(key)).toBe(15);
  });

  it("still leaves an order processing when the answer is lost (a timeout): the outcome is unknown", async () => {
    const { key } = await h.newKey(5);
    await h.fault("gateway", "timeout");
    try {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
      expect(res.body.status).toBe("processing");
    } finally {
      await h.fault("gateway", "ok");
    }
  });
});

describe("the contract's edges", () => {
  it("refuses an idempotency key with control characters with 400, charging nothing", async () => {
    const { key } = await h.newKey(5);
    for (const idempotency_key of ["a\u0000b", "line\nbreak", "tab\there", "\u007f", "next\u0085line", "\u009f"]) {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key } });
      expect(res.status, JSON.stringify(idempotency_key)).toBe(400);
      expect(res.body.error).toContain("control characters");
    }
    expect(await h.balance(key)).toBe(5);
  });

  it("refuses an idempotency key holding bidi, zero-width or unpaired surrogate characters with 400, charging nothing", async () => {
    const { key } = await h.newKey(5);
    const orders = await h.orderCount();
    for (const idempotency_key of ["\u202einvoice", "in\u200bvoice", "in\u2066voice", "\ufeffkey", "lone\ud800", "\udfffend", "soft\u00adhyphen"]) {
      const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key } });
      expect(res.status, JSON.stringify(idempotency_key)).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: expect.stringContaining("idempotency_key") });
    }
    expect(await h.balance(key)).toBe(5);
    expect(await h.orderCount()).toBe(orders);
  });

  it("takes a composed and a decomposed idempotency key as one key (NFC): one order, one charge", async () => {
    const { key } = await h.newKey(5);
    const body = (idempotency_key: string) => ({ username: "alice", stars: 100, idempotency_key });
    const composed = await h.call("POST", "/v1/stars", { key, body: body("caf\u00e9-1") });
    const decomposed = await h.call("POST", "/v1/stars", { key, body: body("cafe\u0301-1") });
    expect(composed.status).toBe(200);
    expect(decomposed.status).toBe(200);
    expect(decomposed.body.order_id).toBe(composed.body.order_id);
    expect(decomposed.body.idempotency_key).toBe("caf\u00e9-1");
    expect(await h.balance(key)).toBe(5 - composed.body.usdt_charged);
  });

  it("refuses webhooks to this machine unless the deployment asks for them, the embedded simulator's default included", async () => {
    const defaults = await startHarness({ UPSTREAM: "simulator" });
    try {
      const { key } = await defaults.newKey();
      for (const url of ["http://127.0.0.1:9900/hook", "http://localhost.:9900/hook", "https://[::1]/hook"]) {
        const refused = await defaults.call("POST", "/v1/webhook", { key, body: { url } });
        expect(refused.status, url).toBe(400);
      }
      expect((await defaults.call("GET", "/v1/webhook", { key })).body.webhook).toBeNull();
    } finally {
      await defaults.close();
    }
  });

  it("answers health and the OpenAPI document even to an address that exhausted its failed-auth limit", async () => {
    const strict = await startHarness({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      const from = { remoteAddress: "10.9.8.7" };
      for (let i = 0; i < 5; i++) await strict.call("GET", "/v1/balance", { key: "sj_wrong", ...from });
      expect((await strict.call("GET", "/v1/balance", { key: "sj_wrong", ...from })).status).toBe(429);
      for (let i = 0; i < 5; i++) {
        expect((await strict.call("GET", "/v1/health", from)).status).toBe(200);
        expect((await strict.call("GET", "/openapi.json", from)).status).toBe(200);
      }
    } finally {
      await strict.close();
    }
  });

  it("dates /v1/rates by when the rate was read, not by when the answer was made", async () => {
    const cached = await startHarness({ TON_RATE_CACHE_SECONDS: "60" });
    try {
      const { key } = await cached.newKey();
      const first = await cached.call("GET", "/v1/rates", { key });
      // Kept on purpose: real time passes (30 ms) between the two answers, so one dated by when it was made would differ.
      await new Promise((resolve) => setTimeout(resolve, 30));
      const second = await cached.call("GET", "/v1/rates", { key });
      expect(second.body.updated_at).toBe(first.body.updated_at);
      expect(Date.parse(second.body.updated_at)).toBeLessThan(Date.now() - 20);
    } finally {
      await cached.close();
    }
  });

  it("searches only for what a purchase would take: a bare @, a link, Cyrillic or two letters are 400", async () => {
    const { key } = await h.newKey();
    for (const query of ["@", " @ ", "https://t.me/alice", "алиса", "ab", "a b c"]) {
      const res = await h.call("POST", "/v1/search", { key, body: { product_type: "stars", query } });
      expect(res.status, query).toBe(400);
      expect(res.body.error, query).toContain("query");
    }
    const found = await h.call("POST", "/v1/search", { key, body: { product_type: "stars", query: " @alice " } });
    expect(found.status).toBe(200);
    const bought = await h.call("POST", "/test/v1/stars", { key, body: { username: found.body.found.recipient, stars: 50 } });
    expect(bought.status).toBe(200);
  });

  it("says what is wrong: a gzip body is 415, a bad mlbb server is not blamed on the player", async () => {
    const { key } = await h.newKey(5);
    const gzipped = await h.api.inject({
      method: "POST",
      url: "/v1/stars",
      headers: { "x-api-key": key, "content-type": "application/json", "content-encoding": "gzip" },
      payload: gzipSync(JSON.stringify({ username: "alice", stars: 100 })),
    });
    expect(gzipped.statusCode).toBe(415);
    expect(gzipped.json().error).toContain("Content-Encoding");
    // The key is checked first: without one, the same body is a 401.
    const keyless = await h.api.inject({
      method: "POST",
      url: "/v1/stars",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      payload: gzipSync(JSON.stringify({ username: "alice", stars: 100 })),
    });
    expect(keyless.statusCode).toBe(401);
    const server = await h.call("POST", "/v1/games/mlbb/check-player", { key, body: { player_id: "12345678", server_id: "abc" } });
    expect(server.status).toBe(400);
    expect(server.body.error).toContain("server_id abc");
    expect(server.body.error).not.toMatch(/player_id \d+ is not valid/);
    expect(await h.balance(key)).toBe(5);
  });
});
