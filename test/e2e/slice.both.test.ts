import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, eventually, startBotHarness } from "../support/harness.js";

// The representative end-to-end slice, on both engines: one purchase of each product over HTTP, a refund, a
// replay, the ledger statement and a bot purchase through the Bot API emulator, with the books checked after.
// Everything else about these paths runs on SQLite (test/api, test/bot); what depends on the engine is in test/db.

let b: BotHarness;
beforeAll(async () => {
  b = await startBotHarness(8_800_000);
});
afterAll(async () => b.close());

/** The order's final answer from its own status endpoint, once it has left processing. */
const settled = (key: string, path: string) =>
  eventually(async () => {
    const res = await b.h.call("GET", path, { key });
    return res.body.status === "processing" ? undefined : res.body;
  });

describe(`one of everything on ${process.env.TEST_ENGINE ?? "sqlite"}`, () => {
  it("buys each product over HTTP, refunds a failure, replays a purchase, states the ledger, and buys in the bot; the books hold", async () => {
    const { h } = b;
    const { key } = await h.newKey(200);

    const stars = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key: "slice-stars" } });
    expect(stars.status).toBe(200);
    expect(stars.body).toMatchObject({ status: "completed", usdt_charged: 1.5, balance_remaining_usdt: 198.5 });
    const premium = await h.call("POST", "/v1/premium", { key, body: { username: "bob", months: 3 } });
    expect(premium.status).toBe(200);
    expect(premium.body.status).toBe("completed");
    const store = await h.call("POST", "/v1/store", { key, body: { login: "gabe_m", amount_usd: 10 } });
    expect([200, 202]).toContain(store.status);
    expect((await settled(key, `/v1/store/${store.body.order_id}`)).status).toBe("completed");
    const game = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "700123456" } });
    expect(game.status).toBe(202);
    expect((await settled(key, `/v1/games/orders/${game.body.order_id}`)).status).toBe("completed");
    const cards = await h.call("POST", "/v1/giftcards/psn-us/order", { key, body: { card_id: "psn-us-10", quantity: 2 } });
    expect(cards.status).toBe(202);
    const codes = await settled(key, `/v1/giftcards/orders/${cards.body.order_id}`);
    expect(codes).toMatchObject({ status: "completed", codes_count: 2 });
    expect(codes.codes).toHaveLength(2);
    const gift = await h.call("POST", "/v1/gifts", { key, body: { recipient: "@alice", gift_id: "5170145012310081615", message: "hi" } });
    expect(gift.status).toBe(201);

    // A refund: the delivery fails after the charge, and the charge comes back.
    const before = await h.balance(key);
    const failed = await h.call("POST", "/v1/stars", { key, body: { username: "fail_carol", stars: 200 } });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ status: "failed", usdt_charged: 3, balance_remaining_usdt: before });
    // A replay: the same key and fields answer the same order, charged once.
    const replay = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key: "slice-stars" } });
    expect(replay.status).toBe(200);
    expect(replay.body.order_id).toBe(stars.body.order_id);
    expect(await h.balance(key)).toBe(before);

    // The statement: every order's charge, the refund, and the balance after each, newest first.
    const ledger = await h.call("GET", "/v1/ledger?limit=100", { key });
    expect(ledger.status).toBe(200);
    const entries = ledger.body.entries as Array<{ kind: string; order_id: number | null; balance_after_usdt: number }>;
    expect(entries.filter((e) => e.kind === "charge")).toHaveLength(7);
    expect(entries.filter((e) => e.kind === "refund").map((e) => e.order_id)).toEqual([failed.body.order_id]);
    expect(entries.filter((e) => e.kind === "credit")).toHaveLength(1);
    expect(entries[0].balance_after_usdt).toBe(before);

    // A bot purchase through the emulator: menu, recipient, amount, Confirm, done.
    const { chat, key: botKey } = await b.registered(10);
    await chat.reply("/stars", (t) => t.includes("Who"));
    await chat.reply("@alice", (t) => t.includes("How many stars"));
    const confirm = await chat.reply("200", (t) => t.includes("Confirm?"));
    expect(confirm.text).toContain("Charge: 3.00 USDT");
    await chat.tap("Confirm");
    expect((await chat.next((t) => t.includes("Done!"))).text).toContain("Balance: 7.00 USDT");
    expect(await h.balance(botKey)).toBe(7);

    await h.assertLedgerInvariant();
  });
});
