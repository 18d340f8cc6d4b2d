import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

const HEART = "5170145012310081615"; // above 2^53: a number would lose its last digits
const TREE = "5782984811920491178"; // limited, 3 left
const PUMPKIN = "5999277561060787166"; // sold out

describe("GET /v1/gifts", () => {
  it("lists the gifts on sale with string ids, prices at the stars tariff and the stars range; sold-out items are left out", async () => {
    const { key } = await h.newKey();
    const res = await h.call("GET", "/v1/gifts", { key });
    expect(res.status).toBe(200);
    expect(res.body.gifts).toContainEqual({ gift_id: HEART, stars: 15, price_usdt: 0.225, emoji: "💝", limited: false });
    expect(res.body.gifts).toContainEqual(expect.objectContaining({ gift_id: TREE, limited: true }));
    expect(res.body.gifts.map((g: { gift_id: string }) => g.gift_id)).not.toContain(PUMPKIN);
    expect(res.body.count).toBe(res.body.gifts.length);
    expect(res.body.stars_range).toEqual({ min: 15, max: 100 });
    for (const gift of res.body.gifts) expect(typeof gift.gift_id).toBe("string");
  });
});

describe("POST /v1/gifts", () => {
  it("sends with 201, and a repeat with the same key and fields is a 200 replay charged once", async () => {
    const { key } = await h.newKey(1);
    const body = { recipient: "@alice", gift_id: HEART, hide_name: true, message: "Happy birthday", idempotency_key: "gift-1" };
    const sent = await h.call("POST", "/v1/gifts", { key, body });
    expect(sent.status).toBe(201);
    expect(sent.body).toEqual({
      success: true,
      order_id: expect.any(Number),
      status: "completed",
      recipient: "alice",
      gift_id: HEART,
      stars: 15,
      emoji: "💝",
      hide_name: true,
      message: "Happy birthday",
      usdt_charged: 0.225,
      error: null,
      error_code: null,
      refunded: false,
      created_at: expect.any(String),
    });
    const replay = await h.call("POST", "/v1/gifts", { key, body });
    expect(replay.status).toBe(200);
    expect(replay.body.order_id).toBe(sent.body.order_id);
    // Another message is another gift.
    const other = await h.call("POST", "/v1/gifts", { key, body: { ...body, message: "Again" } });
    expect(other.status).toBe(201);
    expect(await h.balance(key)).toBe(0.55);
  });

  it("answers 400 recipient_refuses with nothing charged and no order", async () => {
    const { key } = await h.newKey(1);
    const before = await h.orderCount();
    const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: "refuse_bob", gift_id: HEART } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: expect.stringContaining("recipient's choice"), error_code: "recipient_refuses" });
    expect(await h.balance(key)).toBe(1);
    expect(await h.orderCount()).toBe(before);
  });

  it("refunds a send that fails: 502 with the failed order", async () => {
    const { key } = await h.newKey(1);
    const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: "fail_carol", gift_id: HEART } });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, status: "failed", refunded: true, error: expect.any(String) });
    expect(await h.balance(key)).toBe(1);
  });

  it("answers 402 when the balance is short, 503 for a sold-out gift, 400 for an unknown or numeric gift_id", async () => {
    const { key } = await h.newKey(0.2);
    const poor = await h.call("POST", "/v1/gifts", { key, body: { recipient: "dave", gift_id: HEART } });
    expect(poor.status).toBe(402);
    expect(poor.body).toMatchObject({ required_usdt: 0.225, balance_usdt: 0.2 });
    expect((await h.call("POST", "/v1/gifts", { key, body: { recipient: "dave", gift_id: PUMPKIN } })).status).toBe(503);
    expect((await h.call("POST", "/v1/gifts", { key, body: { recipient: "dave", gift_id: "123" } })).status).toBe(400);
    const numeric = await h.api.inject({
      method: "POST",
      url: "/v1/gifts",
      headers: { "x-api-key": key, "content-type": "application/json" },
      payload: `{"recipient":"dave","gift_id":${HEART}}`,
    });
    expect(numeric.statusCode).toBe(400);
    expect(numeric.json().error).toContain("gift_id");
    expect(await h.balance(key)).toBe(0.2);
  });

  it("sells a limited gift until it runs out, then answers 503", async () => {
    const { key } = await h.newKey(10);
    for (let i = 0; i < 3; i++)
      expect((await h.call("POST", "/v1/gifts", { key, body: { recipient: `erin${i}x`, gift_id: TREE } })).status).toBe(201);
    const gone = await h.call("POST", "/v1/gifts", { key, body: { recipient: "erin9x", gift_id: TREE } });
    expect(gone.status).toBe(503);
    // The listing is kept for CATALOGUE_CACHE_SECONDS (60 s by default); the next one leaves the gift out.
    h.clock.advance(60_000);
    try {
      expect((await h.call("GET", "/v1/gifts", { key })).body.gifts.map((g: { gift_id: string }) => g.gift_id)).not.toContain(TREE);
    } finally {
      h.clock.reset();
    }
    expect(await h.balance(key)).toBe(5.5);
  });
});

describe("GET /v1/gifts/{gift_id}/sticker", () => {
  it("sends the Lottie JSON gzip-compressed with Content-Encoding: gzip", async () => {
    const { key } = await h.newKey();
    const res = await h.api.inject({ method: "GET", url: `/v1/gifts/${HEART}/sticker`, headers: { "x-api-key": key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.headers["content-type"]).toContain("application/json");
    const lottie = JSON.parse(gunzipSync(res.rawPayload).toString("utf8"));
    expect(lottie).toMatchObject({ v: expect.any(String), fr: 30, w: 512, h: 512, layers: expect.any(Array) });
    expect(lottie.nm).toContain(HEART);
  });

  it("answers 404 for an unknown gift and 503 while the service is down", async () => {
    const { key } = await h.newKey();
    expect((await h.call("GET", "/v1/gifts/42/sticker", { key })).status).toBe(404);
    await h.fault("gifts", "down");
    // Past the listing's cache period, so the listing is read again too.
    h.clock.advance(60_000);
    try {
      expect((await h.call("GET", `/v1/gifts/${HEART}/sticker`, { key })).status).toBe(503);
      expect((await h.call("GET", "/v1/gifts", { key })).status).toBe(503);
      expect((await h.call("POST", "/v1/gifts", { key, body: { recipient: "dave", gift_id: HEART } })).status).toBe(503);
    } finally {
      h.clock.reset();
      await h.fault("gifts", "ok");
    }
  });
});
