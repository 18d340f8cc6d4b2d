import { beforeEach, describe, expect, it } from "vitest";
import { clearOfMinuteEdge, type Harness, startHarness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ env: { RATE_LIMIT_PER_MINUTE: "5" } }, (started) => (h = started));
beforeEach(async () => clearOfMinuteEdge(h.engine));

describe("rate limit", () => {
  it("answers 429 with retry_after and Retry-After past the limit, counting each key apart", async () => {
    const first = await h.newKey(1);
    const second = await h.newKey(1);
    for (let i = 0; i < 5; i++) expect((await h.call("GET", "/v1/balance", { key: first.key })).status).toBe(200);
    const limited = await h.call("GET", "/v1/balance", { key: first.key });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      success: false,
      error: expect.stringContaining("Rate limit"),
      retry_after: expect.any(Number),
      error_code: "rate_limited",
    });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(60);
    expect(Number(limited.headers["retry-after"])).toBe(limited.body.retry_after);
    // A purchase past the limit is refused before anything is charged.
    const purchase = await h.call("POST", "/v1/stars", { key: first.key, body: { username: "alice", stars: 50 } });
    expect(purchase.status).toBe(429);
    expect((await h.service.db.selectFrom("orders").selectAll().execute()).length).toBe(0);
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

  it("counts failed authentication per IPv6 /64, so rotating addresses within one does not buy more tries", async () => {
    const wrong = (remoteAddress: string) => h.call("GET", "/v1/balance", { key: "sj_wrong", remoteAddress });
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++) statuses.push((await wrong(`2001:db8:aa:bb::${i.toString(16)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await wrong("2001:db8:aa:bb:ffff:ffff:ffff:ffff")).status).toBe(429);
    // The next /64 over, and an IPv4 client, have their own allowance.
    expect((await wrong("2001:db8:aa:bc::1")).status).toBe(401);
    expect((await wrong("198.51.100.20")).status).toBe(401);
  });
});

describe("behind a proxy", () => {
  const client = (forwardedFor: string) => ({ key: "sj_wrong", headers: { "x-forwarded-for": forwardedFor }, remoteAddress: "10.0.0.2" });
  const tries = async (proxied: Harness, forwardedFor: string, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await proxied.call("GET", "/v1/balance", client(forwardedFor))).status);
    return statuses;
  };

  it("believes X-Forwarded-For only from a proxy named in TRUST_PROXY: each client then counts apart", async () => {
    const proxied = await startHarness({ RATE_LIMIT_PER_MINUTE: "3", TRUST_PROXY: "10.0.0.0/8" });
    try {
      expect(await tries(proxied, "203.0.113.1", 4)).toEqual([401, 401, 401, 429]);
      expect(await tries(proxied, "203.0.113.2", 1)).toEqual([401]);
    } finally {
      await proxied.close();
    }
  });

  /** The warnings about an untrusted proxy in `on`'s log, read as JSON. */
  const proxyWarnings = (on: Harness) =>
    on.logs.filter((line) => line.includes("which TRUST_PROXY does not name")).map((line) => JSON.parse(line) as Record<string, unknown>);
  const probe = (on: Harness, remoteAddress: string, headers: Record<string, string>) => on.call("GET", "/livez", { headers, remoteAddress });

  it("warns once for each proxy TRUST_PROXY does not name, naming it and the variable, never per request", async () => {
    const direct = await startHarness({});
    try {
      for (let i = 0; i < 3; i++) expect((await probe(direct, "10.0.0.2", { "x-forwarded-for": `203.0.113.${i}` })).status).toBe(200);
      await probe(direct, "10.0.0.2", { forwarded: "for=203.0.113.9" });
      await probe(direct, "10.0.0.3", {});
      expect(proxyWarnings(direct)).toEqual([
        expect.objectContaining({ level: 40, proxy: "10.0.0.2", header: "x-forwarded-for", variable: "TRUST_PROXY" }),
      ]);
      expect(String(proxyWarnings(direct)[0].msg)).toContain("set TRUST_PROXY=10.0.0.2");
      // A proxy on this machine: the setting to name is loopback. Forwarded alone is a forwarding header too.
      await probe(direct, "127.0.0.1", { forwarded: "for=203.0.113.9" });
      await probe(direct, "127.0.0.1", { "x-forwarded-for": "203.0.113.9" });
      expect(proxyWarnings(direct)).toHaveLength(2);
      expect(proxyWarnings(direct)[1]).toMatchObject({ proxy: "127.0.0.1", header: "forwarded" });
      expect(String(proxyWarnings(direct)[1].msg)).toContain("set TRUST_PROXY=loopback");
    } finally {
      await direct.close();
    }
  });

  it("does not warn about a proxy TRUST_PROXY names, by address, CIDR or preset", async () => {
    for (const setting of ["10.0.0.2", "10.0.0.0/8", "uniquelocal", "::ffff:10.0.0.2"]) {
      const proxied = await startHarness({ TRUST_PROXY: setting });
      try {
        expect((await probe(proxied, "10.0.0.2", { "x-forwarded-for": "203.0.113.1" })).status).toBe(200);
        await probe(proxied, "::ffff:10.0.0.2", { "x-forwarded-for": "203.0.113.1" });
        expect(proxyWarnings(proxied), setting).toEqual([]);
        // Another address than the one named still warns.
        await probe(proxied, "192.0.2.7", { "x-forwarded-for": "203.0.113.1" });
        expect(
          proxyWarnings(proxied).map((line) => line.proxy),
          setting,
        ).toEqual(["192.0.2.7"]);
      } finally {
        await proxied.close();
      }
    }
  });

  it("ignores X-Forwarded-For without TRUST_PROXY: a client cannot claim another address", async () => {
    const direct = await startHarness({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      expect(await tries(direct, "203.0.113.1", 4)).toEqual([401, 401, 401, 429]);
      expect(await tries(direct, "203.0.113.2", 1)).toEqual([429]);
    } finally {
      await direct.close();
    }
  });
});

/** Every keyed endpoint with a request that would otherwise succeed. */
const KEYED: Array<{ method: "GET" | "POST"; url: string; body?: unknown }> = [
  { method: "GET", url: "/v1/balance" },
  { method: "GET", url: "/v1/pricing" },
  { method: "GET", url: "/v1/rates" },
  { method: "POST", url: "/v1/search", body: { product_type: "stars", query: "alice" } },
  { method: "POST", url: "/v1/stars", body: { username: "alice", stars: 50 } },
  { method: "POST", url: "/v1/premium", body: { username: "alice", months: 3 } },
  { method: "GET", url: "/v1/orders" },
  { method: "GET", url: "/v1/orders/1" },
  { method: "POST", url: "/test/v1/stars", body: { username: "alice", stars: 50 } },
  { method: "POST", url: "/test/v1/premium", body: { username: "alice", months: 3 } },
  { method: "GET", url: "/v1/store/pricing" },
  { method: "POST", url: "/v1/store", body: { login: "gabe", amount_usd: 1 } },
  { method: "GET", url: "/v1/store/1" },
  { method: "POST", url: "/test/v1/store", body: { login: "gabe", amount_usd: 1 } },
  { method: "GET", url: "/v1/games" },
  { method: "GET", url: "/v1/games/pubgm/catalogue" },
  { method: "POST", url: "/v1/games/pubgm/check-player", body: { player_id: "512345678" } },
  { method: "POST", url: "/v1/games/pubgm/order", body: { denomination: "60", player_id: "512345678" } },
  { method: "GET", url: "/v1/games/orders/1" },
  { method: "GET", url: "/v1/giftcards" },
  { method: "GET", url: "/v1/giftcards/psn-us/catalogue" },
  { method: "POST", url: "/v1/giftcards/psn-us/order", body: { card_id: "psn-us-10" } },
  { method: "GET", url: "/v1/giftcards/orders/1" },
  { method: "GET", url: "/v1/gifts" },
  { method: "POST", url: "/v1/gifts", body: { recipient: "alice", gift_id: "5170145012310081615" } },
  { method: "GET", url: "/v1/gifts/5170145012310081615/sticker" },
];

describe("every keyed endpoint", () => {
  it("answers 401 without a key or with a wrong one, 403 when blocked, 429 past the limit, and charges nothing", async () => {
    const matrix = await startHarness({ RATE_LIMIT_PER_MINUTE: "3" });
    try {
      for (const [index, endpoint] of KEYED.entries()) {
        const { key, telegramId } = await matrix.newKey(100);
        const label = `${endpoint.method} ${endpoint.url}`;
        // Refused keys count per client address: give each endpoint its own.
        const remoteAddress = `127.0.${Math.floor(index / 200) + 1}.${(index % 200) + 1}`;
        const missing = await matrix.call(endpoint.method, endpoint.url, { body: endpoint.body, remoteAddress });
        expect(missing.status, label).toBe(401);
        expect(missing.body.success, label).toBe(false);
        const wrong = await matrix.call(endpoint.method, endpoint.url, { key: `sj_${"x".repeat(43)}`, body: endpoint.body, remoteAddress });
        expect(wrong.status, label).toBe(401);

        await matrix.service.core.admin.setBlocked(telegramId, true, "test");
        const blocked = await matrix.call(endpoint.method, endpoint.url, { key, body: endpoint.body, remoteAddress });
        expect(blocked.status, label).toBe(403);
        await matrix.service.core.admin.setBlocked(telegramId, false, "test");

        const statuses: number[] = [];
        await clearOfMinuteEdge(matrix.engine, 1500);
        for (let i = 0; i < 4; i++) statuses.push((await matrix.call(endpoint.method, endpoint.url, { key, body: endpoint.body })).status);
        expect(
          statuses.slice(0, 3).every((s) => s !== 429),
          `${label}: ${statuses}`,
        ).toBe(true);
        expect(statuses[3], label).toBe(429);
      }
      // Each purchase endpoint placed at most its three allowed orders; nothing was charged for a refusal.
      await matrix.assertLedgerInvariant();
    } finally {
      await matrix.close();
    }
  });
});
