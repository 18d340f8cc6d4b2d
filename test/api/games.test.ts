import { describe, expect, it } from "vitest";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

const poll = (key: string, id: number) =>
  eventually(async () => {
    const res = await h.call("GET", `/v1/games/orders/${id}`, { key });
    return res.body.status === "processing" ? undefined : res;
  });

describe("GET /v1/games and catalogues", () => {
  it("lists the provider's games with required fields, needs_server and servers", async () => {
    const { key } = await h.newKey();
    const res = await h.call("GET", "/v1/games", { key });
    expect(res.status).toBe(200);
    expect(res.body.markup_percent).toBe(5);
    const genshin = res.body.games.find((g: { code: string }) => g.code === "genshin");
    expect(genshin).toEqual({
      code: "genshin",
      name: "Genshin Impact",
      image_url: expect.any(String),
      required_fields: ["userid", "serverid"],
      needs_server: true,
      notes: null,
      servers: { America: "os_usa", Europe: "os_euro", Asia: "os_asia", "TW, HK, MO": "os_cht" },
    });
    const pubgm = res.body.games.find((g: { code: string }) => g.code === "pubgm");
    expect(pubgm.needs_server).toBe(false);
    expect(pubgm).not.toHaveProperty("servers");
  });

  it("prices each denomination as provider cost plus the key's markup, to 4 decimals, with eta on request", async () => {
    const { key, telegramId } = await h.newKey();
    await h.service.core.admin.setMarkup(telegramId, "games", 1234, "test");
    const res = await h.call("GET", "/v1/games/pubgm/catalogue?eta=1", { key });
    expect(res.status).toBe(200);
    expect(res.body.markup_percent).toBe(12.34);
    expect(res.body.game).toEqual({ code: "pubgm", required_fields: ["userid"], needs_server: false, notes: expect.any(String) });
    // 0.99 x 1.1234 = 1.112166 -> 1.1122; 10.49 x 1.1234 = 11.784466 -> 11.7845
    expect(res.body.denominations[0]).toEqual({
      name: "60",
      price_usdt: 1.1122,
      eta: { label: "fast", display: expect.any(String), median_seconds: expect.any(Number) },
    });
    expect(res.body.denominations[1]).toMatchObject({ name: "60 + Royale Pass", price_usdt: 11.7845 });
    const plain = await h.call("GET", "/v1/games/pubgm/catalogue", { key });
    expect(plain.body.denominations[0]).toEqual({ name: "60", price_usdt: 1.1122 });
    expect((await h.call("GET", "/v1/games/pubgm/catalogue?eta=2", { key })).status).toBe(400);
    expect((await h.call("GET", "/v1/games/tetris/catalogue", { key })).status).toBe(400);
  });

  it("answers 503 while the provider is down", async () => {
    const { key } = await h.newKey();
    await h.fault("games", "down");
    try {
      expect((await h.call("GET", "/v1/games", { key })).status).toBe(503);
      expect((await h.call("GET", "/v1/games/pubgm/catalogue", { key })).status).toBe(503);
      expect((await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "12345678" } })).status).toBe(503);
    } finally {
      await h.fault("games", "ok");
    }
  });
});

describe("POST /v1/games/{code}/check-player", () => {
  it("shows the nickname for a valid player, 400 for an invalid ID or a missing or wrong server", async () => {
    const { key } = await h.newKey();
    const ok = await h.call("POST", "/v1/games/genshin/check-player", { key, body: { player_id: "700123456", server_id: "os_euro" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      success: true,
      valid: true,
      game_code: "genshin",
      player_id: "700123456",
      server_id: "os_euro",
      player_name: "Player3456",
    });
    expect((await h.call("POST", "/v1/games/pubgm/check-player", { key, body: { player_id: "000000" } })).status).toBe(400);
    expect((await h.call("POST", "/v1/games/genshin/check-player", { key, body: { player_id: "700123456" } })).body.error).toContain(
      "server_id is required",
    );
    expect((await h.call("POST", "/v1/games/genshin/check-player", { key, body: { player_id: "700123456", server_id: "OS_EURO" } })).status).toBe(
      400,
    );
  });
});

describe("POST /v1/games/{code}/order", () => {
  it("charges the catalogue price, answers 202 with poll, and the status endpoint reports the credit", async () => {
    const { key } = await h.newKey(20);
    const res = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "512345678", idempotency_key: "g-1" } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      order_id: expect.any(Number),
      idempotency_key: "g-1",
      product_type: "game",
      game_code: "pubgm",
      game_name: "PUBG Mobile",
      denomination: "60",
      player_id: "512345678",
      server_id: null,
      player_name: "Player5678",
      usdt_charged: 1.0395,
      balance_after: 18.9605,
      status: "processing",
      provider_order_id: expect.any(Number),
      provider_status: "in_queue",
      error: null,
      poll: true,
      created_at: expect.any(String),
      completed_at: null,
    });
    const done = await poll(key, res.body.order_id);
    expect(done.body).toMatchObject({ status: "completed", provider_status: "delivered", success: true });
    expect(done.body).not.toHaveProperty("poll");
    expect(done.body).not.toHaveProperty("refunded");
    const replay = await h.call("POST", "/v1/games/pubgm/order", {
      key,
      body: { denomination: "60", player_id: "512345678", idempotency_key: "g-1" },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.order_id).toBe(res.body.order_id);
    expect(await h.balance(key)).toBe(18.9605);
  });

  it("matches the denomination exactly: prefixes, case and spacing variants are refused before any charge", async () => {
    const { key } = await h.newKey(100);
    const before = await h.orderCount();
    for (const denomination of ["6", "60 ", " 60", "60 + royale pass", "60 +", "325 ", "3250x", "60 Genesis Crystals"]) {
      const res = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination, player_id: "512345678" } });
      expect(res.status, denomination).toBe(400);
      expect(res.body.error).toContain("denomination");
    }
    const pass = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60 + Royale Pass", player_id: "512345678" } });
    expect(pass.status).toBe(202);
    expect(pass.body.usdt_charged).toBe(11.0145);
    expect(await h.orderCount()).toBe(before + 1);
  });

  it("requires server_id where the game lists serverid, exactly as listed and case-sensitive", async () => {
    const { key } = await h.newKey(100);
    const before = await h.orderCount();
    const cases: Array<[string, string | null | undefined, string]> = [
      ["genshin", undefined, "server_id is required"],
      ["genshin", "", "server_id is required"],
      ["genshin", "OS_EURO", "case-sensitive"],
      ["genshin", "Europe", "case-sensitive"],
      ["eafc", "Android", "case-sensitive"],
      ["eafc", "IOS", "case-sensitive"],
      ["pubgm", "os_euro", "takes no server_id"],
    ];
    for (const [code, server_id, message] of cases) {
      const denomination = code === "genshin" ? "60 Genesis Crystals" : code === "eafc" ? "100 FC Points" : "60";
      const res = await h.call("POST", `/v1/games/${code}/order`, { key, body: { denomination, player_id: "512345678", server_id } });
      expect(res.status, `${code} ${server_id}`).toBe(400);
      expect(res.body.error, `${code} ${server_id}`).toContain(message);
    }
    expect(await h.orderCount()).toBe(before);
    expect(await h.balance(key)).toBe(100);
    const ios = await h.call("POST", "/v1/games/eafc/order", {
      key,
      body: { denomination: "100 FC Points", player_id: "512345678", server_id: "ios" },
    });
    expect(ios.status).toBe(202);
    expect(ios.body.server_id).toBe("ios");
  });

  it("refuses an invalid player ID and an unknown game before any charge", async () => {
    const { key } = await h.newKey(100);
    expect((await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "000000" } })).status).toBe(400);
    expect((await h.call("POST", "/v1/games/tetris/order", { key, body: { denomination: "60", player_id: "512345678" } })).status).toBe(400);
    expect(await h.balance(key)).toBe(100);
  });

  it("accepts a restricted-region player, then the order fails and is refunded", async () => {
    const { key } = await h.newKey(20);
    const res = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "325", player_id: "999123456" } });
    expect(res.status).toBe(202);
    expect(await h.balance(key)).toBe(14.7605);
    const done = await poll(key, res.body.order_id);
    expect(done.body).toMatchObject({ success: false, status: "failed", refunded: true, error: expect.stringContaining("restricted") });
    expect(await h.balance(key)).toBe(20);
  });

  it("answers 402 with the catalogue price", async () => {
    const { key } = await h.newKey(1);
    const res = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "325", player_id: "512345678" } });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ success: false, error: expect.any(String), error_code: "insufficient_funds", required_usdt: 5.2395, balance_usdt: 1 });
  });

  it("GET /v1/games/orders/{id}: 404 for another key's or another product's order, 400 for a bad id", async () => {
    const mine = await h.newKey(10);
    const theirs = await h.newKey(10);
    const order = await h.call("POST", "/v1/games/pubgm/order", { key: theirs.key, body: { denomination: "60", player_id: "512345678" } });
    expect((await h.call("GET", `/v1/games/orders/${order.body.order_id}`, { key: mine.key })).status).toBe(404);
    expect((await h.call("GET", "/v1/games/orders/abc", { key: mine.key })).status).toBe(400);
  });
});
