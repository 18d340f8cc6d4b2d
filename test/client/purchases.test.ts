import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, PartnerApiError, type PartnerClient } from "../../client/src/index.js";
import { eventually } from "../support/harness.js";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";

const HEART = "5170145012310081615";

let s: ListeningHarness;
let client: PartnerClient;
let key: string;

beforeAll(async () => {
  s = await startListeningHarness();
  ({ client, key } = await s.partner(500));
});
afterAll(() => s.close());

describe("the partner client over HTTP", () => {
  it("reads health, balance, pricing, rates and search", async () => {
    expect((await createClient({ baseUrl: s.baseUrl, apiKey: "" }).health()).version).toBe("1.0.0");
    expect(await client.balance()).toMatchObject({ success: true, balance_usdt: 500, currency: "USDT" });
    expect((await client.pricing()).success).toBe(true);
    expect((await client.rates()).success).toBe(true);
    expect(await client.search({ product_type: "stars", query: "@alice" })).toMatchObject({ success: true, found: { recipient: "alice" } });
  });

  it("buys stars and premium, with an idempotency key it made itself", async () => {
    const stars = await client.buyStars({ username: "@alice", stars: 100 });
    expect(stars).toMatchObject({ success: true, status: "completed", stars: 100, usdt_charged: 1.5 });
    expect(stars.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    const again = await client.buyStars({ username: "alice", stars: 100, idempotency_key: stars.idempotency_key! });
    expect(again.order_id).toBe(stars.order_id);
    const premium = await client.buyPremium({ username: "bob", months: 3 });
    expect(premium).toMatchObject({ success: true, status: "completed", months: 3 });
    expect((await client.order(premium.order_id)).order_id).toBe(premium.order_id);
  });

  it("tops up the store and polls its order", async () => {
    expect((await client.storePricing({ amount_usd: 10 })).success).toBe(true);
    const order = await client.buyStore({ login: "pending_gabe", amount_usd: 10 });
    expect(order.status).toBe("processing");
    const done = await eventually(async () => {
      const now = await client.storeOrder(order.order_id);
      return now.status === "completed" ? now : undefined;
    });
    expect(done.store_login).toBe("pending_gabe");
  });

  it("buys game credit after checking the player", async () => {
    expect((await client.games()).success).toBe(true);
    expect((await client.gameCatalogue("pubgm")).success).toBe(true);
    expect(await client.checkPlayer("genshin", { player_id: "700123456", server_id: "os_euro" })).toMatchObject({ valid: true });
    const order = await client.buyGame({ game_code: "pubgm", denomination: "60", player_id: "700123456" });
    const done = await eventually(async () => {
      const now = await client.gameOrder(order.order_id);
      return now.status === "completed" ? now : undefined;
    });
    expect(done.order_id).toBe(order.order_id);
  });

  it("orders gift cards and reads their codes", async () => {
    expect((await client.giftcardBrands()).success).toBe(true);
    expect((await client.giftcardCatalogue("psn-us")).success).toBe(true);
    const order = await client.buyGiftcards({ category_id: "psn-us", card_id: "psn-us-10", quantity: 2 });
    const done = await eventually(async () => {
      const now = await client.giftcardOrder(order.order_id);
      return now.status === "completed" ? now : undefined;
    });
    expect(done.codes).toHaveLength(2);
  });

  it("sends a gift and fetches its sticker", async () => {
    expect((await client.gifts()).gifts.map((gift) => gift.gift_id)).toContain(HEART);
    const gift = await client.sendGift({ recipient: "@alice", gift_id: HEART, message: "hi" });
    expect(gift).toMatchObject({ success: true, status: "completed" });
    expect(await client.giftSticker(HEART)).toBeTypeOf("object");
  });

  it("quotes, then buys the quote at its charge; a quote is spent once", async () => {
    const quote = await client.quote({ product_type: "game", game_code: "pubgm", denomination: "60", player_id: "700123456" });
    const order = await client.buy({ quoteId: quote.quote_id });
    expect(order.usdt_charged).toBe(quote.charge_usdt);
    const error = await client.buy({ quote }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 400, errorCode: "quote_used" });
    const cards = await client.quote({ product_type: "giftcard", category_id: "psn-us", card_id: "psn-us-10", quantity: 1 });
    expect((await client.buy({ quote: cards })).usdt_charged).toBe(cards.charge_usdt);
  });

  it("throws the spec's error body as a typed PartnerApiError", async () => {
    const poor = (await s.partner(1)).client;
    const error = (await poor.buyPremium({ username: "bob", months: 12 }).catch((caught: unknown) => caught)) as PartnerApiError;
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 402, requiredUsdt: expect.any(Number), balanceUsdt: 1 });
    expect(error.insufficientFunds()).toMatchObject({ success: false, balance_usdt: 1 });
    expect(error.requestId).toBeTruthy();
    const failed = (await client.buyStars({ username: "fail_bob", stars: 100 }).catch((caught: unknown) => caught)) as PartnerApiError;
    expect(failed).toMatchObject({ status: 502, orderId: expect.any(Number) });
    const unknown = (await createClient({ baseUrl: s.baseUrl, apiKey: `sj_${"x".repeat(43)}` })
      .balance()
      .catch((caught: unknown) => caught)) as PartnerApiError;
    expect(unknown.status).toBe(401);
    expect(key).toMatch(/^sj_/);
  });

  it("answers the sandbox without charging", async () => {
    const { client: sandbox } = await s.partner(0);
    expect((await sandbox.sandboxStars({ username: "alice", stars: 100 })).success).toBe(true);
    expect((await sandbox.sandboxPremium({ username: "alice", months: 3 })).success).toBe(true);
    expect((await sandbox.sandboxStore({ login: "gabe", amount_usd: 10 })).success).toBe(true);
    expect((await sandbox.balance()).balance_usdt).toBe(0);
  });

  it("tops up by invoice and by transfer, lists, reads and cancels", async () => {
    const { client: payer } = await s.partner(0);
    const invoice = await payer.createTopup({ amount_usdt: 25 });
    expect(invoice.topup).toMatchObject({ method: "invoice", status: "active", amount_usdt: 25 });
    const transfer = await payer.createTopup({ amount_usdt: 40, method: "transfer", reference: "bank tx 7781" });
    expect((await payer.topup(transfer.topup.topup_id)).topup.status).toBe("pending");
    expect((await payer.topups({ limit: 20 })).topups).toHaveLength(2);
    expect((await payer.cancelTopup(invoice.topup.topup_id)).topup.status).toBe("cancelled");
  });

  it("pages through orders with the async iterator", async () => {
    const { client: many } = await s.partner(100);
    for (let i = 0; i < 7; i++) await many.buyStars({ username: "alice", stars: 50 });
    const ids: number[] = [];
    for await (const order of many.allOrders({ limit: 3 })) ids.push(order.order_id);
    expect(ids).toHaveLength(7);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    const stars: number[] = [];
    for await (const order of client.allOrders({ product_type: "stars", status: "completed" })) stars.push(order.order_id);
    expect(stars.length).toBeGreaterThan(0);
  });
});
