import { describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

describe("health and the OpenAPI document", () => {
  const contract = {
    success: true,
    delivery_provider: "gateway",
    delivery_ready: true,
    gateway_ready: true,
    store_ready: true,
    game_ready: true,
    giftcard_ready: true,
    db_ready: true,
    api_configured: true,
    version: "1.0.0",
  };

  it("answers health without a key with the contract's fields alone, the suppliers only to a valid key", async () => {
    const res = await h.call("GET", "/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(contract);
    // A wrong key is no key: still 200, still nothing more.
    const wrong = await h.call("GET", "/v1/health", { key: "sj_" + "x".repeat(43) });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual(contract);
    const { key } = await h.newKey();
    const keyed = await h.call("GET", "/v1/health", { key });
    expect(keyed.body).toEqual({
      ...contract,
      gift_ready: true,
      backends: { stars: "protocol", premium: "protocol", store: "protocol", games: "protocol", giftcards: "protocol", gifts: "protocol" },
    });
  });

  it("reports each provider not ready while it is down", async () => {
    const flags = {
      gateway: ["gateway_ready", "delivery_ready"],
      store: ["store_ready"],
      games: ["game_ready"],
      giftcards: ["giftcard_ready"],
      gifts: ["gift_ready"],
    } as const;
    // gift_ready is shown to a key only.
    const { key } = await h.newKey();
    for (const [provider, names] of Object.entries(flags)) {
      await h.fault(provider as keyof typeof flags, "down");
      try {
        // Health answers from the last round of probes (a round every 100 ms here).
        const res = await eventually(async () => {
          const answer = await h.call("GET", "/v1/health", { key });
          return names.every((name) => answer.body[name] === false) ? answer : undefined;
        });
        for (const name of names) expect(res.body[name], `${provider}: ${name}`).toBe(false);
        const others = Object.values(flags)
          .flat()
          .filter((n) => !(names as readonly string[]).includes(n));
        for (const name of others) expect(res.body[name], `${provider} down: ${name}`).toBe(true);
      } finally {
        await h.fault(provider as keyof typeof flags, "ok");
        await eventually(async () =>
          (await h.call("GET", "/v1/health", { key })).body.success && (await h.call("GET", "/v1/health", { key })).body[names[0]] ? true : undefined,
        );
      }
    }
  });

  it("serves an OpenAPI 3.1 document generated from the route schemas", async () => {
    const res = await h.call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    for (const path of [
      "/v1/health",
      "/v1/balance",
      "/v1/pricing",
      "/v1/rates",
      "/v1/search",
      "/v1/stars",
      "/v1/premium",
      "/v1/orders",
      "/v1/orders/{order_id}",
      "/test/v1/stars",
      "/test/v1/premium",
      "/v1/topups",
      "/v1/topups/{topup_id}",
      "/v1/topups/{topup_id}/cancel",
      "/cryptopay/webhook",
    ]) {
      expect(res.body.paths, path).toHaveProperty([path]);
    }
    const stars = res.body.paths["/v1/stars"].post;
    expect(stars.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["username", "stars"]));
    expect(Object.keys(stars.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "402", "403", "429", "502", "503"]));
  });
});

describe("authentication", () => {
  it("rejects a missing key and a wrong key with 401 and an error body", async () => {
    const missing = await h.call("GET", "/v1/balance");
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ success: false, error: expect.stringContaining("missing"), error_code: "unauthorized" });
    const wrong = await h.call("GET", "/v1/balance", { key: `sj_${"A".repeat(43)}` });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ success: false, error: expect.any(String), error_code: "unauthorized" });
    const junk = await h.call("GET", "/v1/balance", { key: "not-a-key" });
    expect(junk.status).toBe(401);
  });

  it("accepts the key as X-API-Key or as Authorization: Bearer", async () => {
    const { key } = await h.newKey(3);
    expect((await h.call("GET", "/v1/balance", { key })).body.balance_usdt).toBe(3);
    const bearer = await h.call("GET", "/v1/balance", { headers: { authorization: `Bearer ${key}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.body).toEqual({ success: true, balance_usdt: 3, currency: "USDT" });
  });

  it("answers 403 for a blocked key, and works again once unblocked", async () => {
    const { key, telegramId } = await h.newKey(1);
    await h.service.core.admin.setBlocked(telegramId, true, "test");
    const blocked = await h.call("GET", "/v1/balance", { key });
    expect(blocked.status).toBe(403);
    expect(blocked.body).toEqual({ success: false, error: expect.stringContaining("blocked"), error_code: "key_blocked" });
    const purchase = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
    expect(purchase.status).toBe(403);
    await h.service.core.admin.setBlocked(telegramId, false, "test");
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);
  });

  it("rotating a key stops the old one at once and keeps the balance with the account", async () => {
    const { key: oldKey, telegramId } = await h.newKey(7.25);
    const { key: newKey } = await h.service.core.admin.issueKey(telegramId);
    expect(newKey).not.toBe(oldKey);
    expect(newKey).toMatch(/^sj_[A-Za-z0-9_-]{43}$/);
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(401);
    expect(await h.balance(newKey)).toBe(7.25);
  });

  it("stores only a hash and a display prefix of a key", async () => {
    const { key } = await h.newKey();
    const rows = await h.service.db.selectFrom("api_keys").selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(rows.some((r) => key.startsWith(r.display_prefix) && r.display_prefix.length < 16)).toBe(true);
  });
});

describe("balance of an owner key", () => {
  it("spends the service wallet within its daily limit, reports unlimited, and answers 402 past a limit", async () => {
    const { key, telegramId } = await h.newKey();
    await h.service.core.admin.setWallet(fromUsdt(100), "test");
    await h.service.core.admin.makeOwner(telegramId, { dailyLimitMicro: fromUsdt(10), orderLimitMicro: fromUsdt(2) }, "test");
    expect((await h.call("GET", "/v1/balance", { key })).body).toEqual({ success: true, balance_usdt: 10, currency: "USDT", unlimited: true });

    const ok = await h.call("POST", "/v1/stars", { key, body: { username: "bob_owner", stars: 100 } });
    expect(ok.status).toBe(200);
    expect(ok.body.usdt_charged).toBe(1.5);
    expect(ok.body.balance_remaining_usdt).toBe(8.5);

    const overOrderLimit = await h.call("POST", "/v1/stars", { key, body: { username: "bob_owner", stars: 200 } });
    expect(overOrderLimit.status).toBe(402);
    expect(overOrderLimit.body).toEqual({
      success: false,
      error: expect.stringContaining("per-order"),
      error_code: "insufficient_funds",
      required_usdt: 3,
      balance_usdt: 2,
    });

    await h.service.core.admin.setWallet(fromUsdt(1), "test");
    const walletShort = await h.call("POST", "/v1/stars", { key, body: { username: "bob_owner", stars: 100 } });
    expect(walletShort.status).toBe(402);
    expect(walletShort.body).toMatchObject({ required_usdt: 1.5, balance_usdt: 1 });
    expect((await h.call("GET", "/v1/balance", { key })).body.balance_usdt).toBe(1);
  });
});

describe("pricing and rates", () => {
  it("lists the stars and premium tariffs in USDT", async () => {
    const { key } = await h.newKey();
    const res = await h.call("GET", "/v1/pricing", { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      stars: { min: 50, max: 10000, usdt_per_star: 0.015 },
      premium: { months: [3, 6, 12], usdt: { "3": 11.99, "6": 15.99, "12": 28.99 } },
      payment_method: "balance",
    });
    expect((await h.call("GET", "/v1/pricing")).status).toBe(401);
  });

  it("adds live TON and UZS equivalents to the same tariffs", async () => {
    const { key } = await h.newKey();
    const res = await h.call("GET", "/v1/rates", { key });
    expect(res.status).toBe(200);
    expect(res.body.rates).toEqual({ ton_usd: 5.4, uzs_per_usd: 12800 });
    // 0.015 USDT at 5.4 USD per TON is 0.002777...: 6 decimals, half away from zero.
    expect(res.body.stars).toEqual({ min: 50, max: 10000, usdt_per_star: 0.015, ton_per_star: 0.002778, uzs_per_star: 192 });
    expect(res.body.premium.usdt).toEqual({ "3": 11.99, "6": 15.99, "12": 28.99 });
    expect(res.body.premium.ton["3"]).toBe(2.22037);
    expect(res.body.premium.uzs).toEqual({ "3": 153472, "6": 204672, "12": 371072 });
    expect(Date.parse(res.body.updated_at)).not.toBeNaN();
  });

  it("answers with null TON values and intact USDT and UZS values while the rate source is down", async () => {
    const { key } = await h.newKey();
    await h.fault("rates", "down");
    try {
      const res = await h.call("GET", "/v1/rates", { key });
      expect(res.status).toBe(200);
      expect(res.body.rates).toEqual({ ton_usd: null, uzs_per_usd: 12800 });
      expect(res.body.stars.ton_per_star).toBeNull();
      expect(res.body.stars.usdt_per_star).toBe(0.015);
      expect(res.body.premium.ton).toBeNull();
      expect(res.body.premium.uzs["12"]).toBe(371072);
    } finally {
      await h.fault("rates", "ok");
    }
  });
});
