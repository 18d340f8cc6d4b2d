import { gunzipSync } from "node:zlib";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { simulatedReloadly } from "../../src/simulator/settings.js";
import { unknownRecipient } from "../../src/core/model/contact.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// Every product through the real backends it supports, on this engine: gifts and Premium sent by the bot through
// the Bot API (the emulator) from its Star balance, gift cards through Reloadly (the simulated Reloadly), each
// bought over the API and through the bot. The emulator's gift catalogue: 💝 and 🧸 15 stars, 🌹 25, 🍾 50, 💎 100,
// 🎄 100 (limited), 🎃 350 (limited); gifts are priced at the stars tariff (0.015 USDT a star).

let bots: BotHarness;
let h: Harness;
let stars: EmulatedStars;

// API keys may write a gift's text here (GIFT_TEXTS_FROM_KEYS); test/bot/contacts.both.test.ts runs the defaults.
const BACKENDS = {
  GIFTS_BACKEND: "telegram",
  PREMIUM_BACKEND: "telegram",
  GIFTCARDS_BACKEND: "reloadly",
  ALERT_STARS_BELOW: "100",
  GIFT_TEXTS_FROM_KEYS: "true",
  STAR_COST_USDT: "0.01",
};
const ADMIN = 720_900_001;
const ROSE = "5168103777563050263";
const TREE = "5782984811920491178";

useBotHarness(720_000_001, { reloadly: true, admins: [ADMIN], env: BACKENDS, books: true }, async (started) => {
  bots = started;
  h = started.h;
  stars = new EmulatedStars(bots.emulatorUrl);
  await stars.setBalance(10_000);
});

let nextRecipient = 730_000_001;
/** A Telegram user who has written to the bot once: one it can send to. */
async function knownRecipient(): Promise<{ chat: EmulatedChat; username: string }> {
  const id = nextRecipient++;
  const username = `friend${id}`;
  const chat = new EmulatedChat(bots.emulatorUrl, { id, first_name: `Friend ${id}`, username, language_code: "en" });
  await chat.reply("/start", (t) => t.includes("sj_"));
  // The update is done once the menu follows: a block before it would hold the chat's later updates behind it.
  await chat.next((t) => t.includes("What would you like"));
  return { chat, username };
}

async function starBalance(): Promise<number> {
  const response = await request(`${bots.emulatorUrl}/bot123456:test-token-for-the-emulator/getMyStarBalance`, { method: "POST" });
  return ((await response.body.json()) as { result: { amount: number } }).result.amount;
}

describe("health says what each product runs on, to a key only", () => {
  it("names the backends to a key and is ready", async () => {
    const { key } = await h.newKey();
    const health = await eventually(async () => {
      const res = await h.call("GET", "/v1/health", { key });
      return res.body.gift_ready && res.body.giftcard_ready && res.body.delivery_ready ? res.body : undefined;
    });
    expect(health).toMatchObject({
      delivery_provider: "gateway+telegram",
      backends: { stars: "protocol", premium: "telegram", store: "protocol", games: "protocol", giftcards: "reloadly", gifts: "telegram" },
    });
  });

  it("tells an anonymous caller neither the suppliers nor that the Stars ran out", async () => {
    const anonymous = async () => (await h.call("GET", "/v1/health")).body;
    const before = await anonymous();
    expect(before).toMatchObject({ delivery_provider: "gateway", delivery_ready: true, giftcard_ready: true });
    expect(before).not.toHaveProperty("backends");
    expect(before).not.toHaveProperty("gift_ready");
    expect(JSON.stringify(before)).not.toMatch(/telegram|reloadly/i);
    await stars.setBalance(0);
    try {
      // Past several whole rounds, readiness still says only that the Bot API answers.
      await h.service.jobs.healthProbe.afterPasses(3);
      expect(await anonymous()).toEqual(before);
    } finally {
      await stars.setBalance(10_000);
    }
  });
});

describe("each product's backend is reported apart", () => {
  it("tells the bot's Bot API failing as Premium and gifts down, never the stars gateway", async () => {
    const { key } = await h.newKey();
    const admin = new EmulatedChat(bots.emulatorUrl, { id: ADMIN, first_name: "Boss", username: "shop_boss", language_code: "en" });
    const toAdmin = async (part: string) => (await admin.messages()).filter((m) => m.from_bot && m.text.includes(part));
    // The Bot API refuses the bot's balance: its readiness check (getMyStarBalance) fails; the gateway still answers.
    await control("/emulator/refuse", { method: "getMyStarBalance", refuse: true });
    try {
      const health = await eventually(async () => {
        const body = (await h.call("GET", "/v1/health", { key })).body;
        return body.gift_ready === false && body.delivery_ready === false ? body : undefined;
      });
      expect(health).toMatchObject({ gateway_ready: true, delivery_ready: false, gift_ready: false, store_ready: true });
      // A backend is down once two checks in a row see it: two checks, run now.
      for (let i = 0; i < 2; i++) await h.service.jobs.monitor.runOnce();
      await eventually(async () => ((await toAdmin("Provider premium (telegram) is down")).length ? true : undefined));
      await eventually(async () => ((await toAdmin("Provider gifts (telegram) is down")).length ? true : undefined));
      // Stars still sell through the gateway, and no alert blamed it.
      const { key: buyer } = await h.newKey(10);
      expect((await h.call("POST", "/v1/stars", { key: buyer, body: { username: "alice", stars: 50 } })).status).toBe(200);
      expect(await toAdmin("Provider stars")).toEqual([]);
    } finally {
      await control("/emulator/refuse", { method: "getMyStarBalance", refuse: false });
    }
    await eventually(async () => ((await h.call("GET", "/v1/health", { key })).body.delivery_ready ? true : undefined));
    for (let i = 0; i < 2; i++) await h.service.jobs.monitor.runOnce();
    await eventually(async () => ((await toAdmin("Provider premium (telegram) is back")).length ? true : undefined));
  });
});

describe("gifts sent by the bot from its Stars", () => {
  it("lists Telegram's catalogue at the stars tariff, and sends a gift with its message after the buyer's label", async () => {
    const { key, telegramId } = await h.newKey(5);
    const accountId = await accountIdOf(telegramId);
    const catalogue = await h.call("GET", "/v1/gifts", { key });
    expect(catalogue.status).toBe(200);
    expect(catalogue.body.gifts.find((g: { gift_id: string }) => g.gift_id === ROSE)).toMatchObject({ stars: 25, price_usdt: 0.375, limited: false });
    const { chat, username } = await knownRecipient();
    const before = await starBalance();
    const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: `@${username}`, gift_id: ROSE, hide_name: true, message: "For you" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "completed", usdt_charged: 0.375 });
    expect(await h.balance(key)).toBe(4.625);
    expect(res.body.message).toBe(`From customer #${accountId}: For you`);
    expect(await chat.giftsReceived()).toMatchObject([{ type: "gift", gift_id: ROSE, star_count: 25, text: `From customer #${accountId}: For you` }]);
    expect(await starBalance()).toBe(before - 25);
  });

  it("serves a gift's own sticker as the contract's gzip Lottie", async () => {
    const { key } = await h.newKey(1);
    const res = await h.api.inject({ method: "GET", url: `/v1/gifts/${ROSE}/sticker`, headers: { "x-api-key": key, "accept-encoding": "gzip" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    const lottie = JSON.parse(gunzipSync(res.rawPayload).toString());
    expect(lottie).toMatchObject({ v: expect.any(String), layers: expect.any(Array) });
  });

  it("refuses, before any charge, a recipient the bot has never seen, a message Telegram cannot carry, and a refusing recipient", async () => {
    const { key, telegramId } = await h.newKey(5);
    const orders = await h.orderCount();
    const unknown = await h.call("POST", "/v1/gifts", { key, body: { recipient: "@never_wrote_to_us", gift_id: ROSE } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe(`${unknownRecipient("never_wrote_to_us")}; nothing was charged`);
    const { chat, username } = await knownRecipient();
    // Telegram carries 128 characters, the label included: what is left is said.
    const label = `From customer #${await accountIdOf(telegramId)}: `;
    const room = 128 - label.length;
    const long = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE, message: "x".repeat(room + 1) } });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain(`message must be at most ${room} characters here: the text starts with "${label.trim()}"`);
    await chat.setAcceptedGifts({ unlimited_gifts: false });
    const refused = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE } });
    expect(refused.status).toBe(400);
    expect(refused.body.error_code).toBe("recipient_refuses");
    // A limited gift is another class: this recipient still takes those.
    const limited = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: TREE } });
    expect(limited.status).toBe(201);
    expect(await h.orderCount()).toBe(orders + 1);
    expect(await h.balance(key)).toBe(3.5);
  });

  it("answers 503 before the charge when the bot's Stars cannot pay for the gift", async () => {
    const { key } = await h.newKey(5);
    const { username } = await knownRecipient();
    const orders = await h.orderCount();
    await stars.setBalance(20);
    try {
      const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE } });
      expect(res.status).toBe(503);
      expect(res.body.error_code).toBe("provider_balance");
      expect(await h.orderCount()).toBe(orders);
      expect(await h.balance(key)).toBe(5);
    } finally {
      await stars.setBalance(10_000);
    }
  });

  it("refunds a send Telegram refuses after the charge", async () => {
    const { key } = await h.newKey(5);
    const { chat, username } = await knownRecipient();
    await control("/emulator/refuse", { method: "sendGift", refuse: true });
    try {
      const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE } });
      expect(res.status).toBe(502);
      expect(await h.balance(key)).toBe(5);
      expect(await chat.giftsReceived()).toEqual([]);
    } finally {
      await control("/emulator/refuse", { method: "sendGift", refuse: false });
    }
  });

  it("settles a send whose answer was lost from the bot's transactions, without sending twice", async () => {
    const { key } = await h.newKey(5);
    const { chat, username } = await knownRecipient();
    // Telegram sends the gift at once but answers after the call's bound (UPSTREAM_TIMEOUT_MS, 1 s here).
    await control("/emulator/slow", { method: "sendGift", ms: 2_500, takes_effect: "at-once" });
    let placed;
    try {
      placed = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE } });
    } finally {
      await control("/emulator/slow", { method: "sendGift", ms: 0 });
    }
    expect(placed.body.status).toBe("processing");
    expect(await h.balance(key)).toBe(4.625);
    // The reconciler asks once the order is older than any call in flight could be.
    h.clock.advance(5_000);
    try {
      const order = await eventually(async () => {
        const listed = (await h.call("GET", "/v1/orders", { key })).body.orders[0];
        return listed.status === "processing" ? undefined : listed;
      });
      expect(order).toMatchObject({ status: "completed" });
    } finally {
      h.clock.reset();
    }
    expect(await chat.giftsReceived()).toHaveLength(1);
    expect(await h.balance(key)).toBe(4.625);
  });
});

describe("Premium sent by the bot from its Stars", () => {
  it("finds users the bot knows without their name or Premium status, and gifts 3 months for 1000 stars", async () => {
    const { key } = await h.newKey(20);
    const search = (query: string) => h.call("POST", "/v1/search", { key, body: { product_type: "premium", query, months: "3" } });
    const stranger = await search("never_wrote_to_us");
    expect(stranger.status).toBe(404);
    expect(stranger.body.error).toBe(unknownRecipient("never_wrote_to_us"));
    const { chat, username } = await knownRecipient();
    const found = await search(username);
    expect(found.status).toBe(200);
    // The contact's first name ("Friend …") and Premium status are theirs: the username and null, as the contract allows.
    expect(found.body.found).toEqual({ recipient: username, name: username, photo: expect.any(String), premium: null, myself: false });
    const unknown = await h.call("POST", "/v1/premium", { key, body: { username: "never_wrote_to_us", months: 3 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe(`${unknownRecipient("never_wrote_to_us")}; nothing was charged`);
    const before = await starBalance();
    const res = await h.call("POST", "/v1/premium", { key, body: { username, months: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("completed");
    expect(await chat.giftsReceived()).toMatchObject([{ type: "premium", month_count: 3, star_count: 1000 }]);
    expect(await starBalance()).toBe(before - 1000);
    expect(await h.balance(key)).toBe(20 - 11.99);
  });

  it("answers 503 before the charge when the bot's Stars cannot pay for the months", async () => {
    const { key } = await h.newKey(20);
    const { username } = await knownRecipient();
    await stars.setBalance(1_400);
    try {
      const res = await h.call("POST", "/v1/premium", { key, body: { username, months: 6 } });
      expect(res.status).toBe(503);
      expect(res.body.error_code).toBe("provider_balance");
      expect(await h.balance(key)).toBe(20);
    } finally {
      await stars.setBalance(10_000);
    }
  });
});

describe("who uses the bot is nobody's business", () => {
  /** Every refusal a key holder can meet for `username`, with the username taken out: one answer whatever the reason. */
  async function answersFor(key: string, username: string) {
    const strip = (text: string) => text.split(username).join("<name>");
    const search = await h.call("POST", "/v1/search", { key, body: { product_type: "premium", query: username, months: "3" } });
    const gift = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE } });
    const premium = await h.call("POST", "/v1/premium", { key, body: { username, months: 3 } });
    return [search, gift, premium].map((r) => ({ status: r.status, body: { ...r.body, error: strip(r.body.error), request_id: undefined } }));
  }

  it("answers alike a stranger, an administrator, a user who blocked the bot and one who sent /forget, charging nothing", async () => {
    const { key } = await h.newKey(20);
    const orders = await h.orderCount();
    const stranger = await answersFor(key, "never_wrote_to_us");
    expect(stranger.map((a) => a.status)).toEqual([404, 400, 400]);

    const admin = new EmulatedChat(bots.emulatorUrl, { id: ADMIN, first_name: "Boss", username: "shop_boss", language_code: "en" });
    // Its help answered: the bot has noted the administrator as a contact (alerts may sit in this chat already).
    await admin.reply("/help", (t) => t.includes("/stats"));
    expect(await answersFor(key, "shop_boss")).toEqual(stranger);

    const blocker = await knownRecipient();
    expect((await h.call("POST", "/v1/search", { key, body: { product_type: "premium", query: blocker.username } })).status).toBe(200);
    await blocker.chat.setBlocked(true);
    await eventually(async () => ((await h.service.core.contacts.find(blocker.username)) === null ? true : undefined));
    expect(await answersFor(key, blocker.username)).toEqual(stranger);

    const leaver = await knownRecipient();
    const said = await leaver.chat.reply("/forget", (t) => t.includes("Removed"));
    expect(said.text).toContain(`@${leaver.username}`);
    expect(await answersFor(key, leaver.username)).toEqual(stranger);

    expect(await h.orderCount()).toBe(orders);
    expect(await h.balance(key)).toBe(20);
  });

  it("sends to a user who unblocked the bot and wrote again", async () => {
    const { key } = await h.newKey(5);
    const { chat, username } = await knownRecipient();
    await chat.setBlocked(true);
    await eventually(async () => ((await h.service.core.contacts.find(username)) === null ? true : undefined));
    await chat.setBlocked(false);
    await chat.reply("/help");
    const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE } });
    expect(res.status).toBe(201);
    expect(await chat.giftsReceived()).toHaveLength(1);
  });

  it("refuses a gift's text with a link or look-alike letters before any charge", async () => {
    const { key } = await h.newKey(5);
    const { username } = await knownRecipient();
    const orders = await h.orderCount();
    for (const message of [
      "verify at t.me/shop_help",
      "see www.example.com",
      "write to @shop_help",
      "hi\u200bthere",
      "Pаypal",
      "Your account is frozen",
    ]) {
      const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: ROSE, message } });
      expect(res.status, message).toBe(400);
      expect(res.body.error, message).toMatch(/^message refused: .*nothing was charged$/);
    }
    expect(await h.orderCount()).toBe(orders);
    expect(await h.balance(key)).toBe(5);
  });
});

describe("catalogues are read from the backend at most once a cache period", () => {
  const emulatorCalls = async (method: string) => {
    const response = await request(`${bots.emulatorUrl}/emulator/calls`);
    const { calls } = (await response.body.json()) as { calls: Array<{ method: string }> };
    return calls.filter((call) => call.method === method).length;
  };
  const reloadlyListings = async () => {
    const response = await request(`${h.simulatorUrl}/control/requests`);
    const { requests } = (await response.body.json()) as { requests: Record<string, number> };
    return Object.entries(requests)
      .filter(([route]) => /^GET \/reloadly\/[^/]+\/products$/.test(route))
      .reduce((sum, [, count]) => sum + count, 0);
  };

  it("answers 30 gift listings, 20 of them at once, with one getAvailableGifts; a failed read is not kept", async () => {
    const { key } = await h.newKey();
    // Past any listing an earlier test left, so this one starts with none kept.
    h.clock.advance(120_000);
    try {
      const before = await emulatorCalls("getAvailableGifts");
      const listings = await Promise.all(Array.from({ length: 20 }, () => h.call("GET", "/v1/gifts", { key })));
      for (let i = 0; i < 10; i++) listings.push(await h.call("GET", "/v1/gifts", { key }));
      expect(listings.map((res) => res.status)).toEqual(Array(30).fill(200));
      expect(await emulatorCalls("getAvailableGifts")).toBe(before + 1);
      // A failed read answers 503 and is not kept: the next listing asks again.
      h.clock.advance(60_000);
      await control("/emulator/refuse", { method: "getAvailableGifts", refuse: true });
      try {
        expect((await h.call("GET", "/v1/gifts", { key })).status).toBe(503);
      } finally {
        await control("/emulator/refuse", { method: "getAvailableGifts", refuse: false });
      }
      expect((await h.call("GET", "/v1/gifts", { key })).status).toBe(200);
      expect(await emulatorCalls("getAvailableGifts")).toBe(before + 3);
    } finally {
      h.clock.reset();
    }
  });

  it("answers 30 gift card brand listings with one read of Reloadly's product list, then reads it again once the period ends", async () => {
    const { key } = await h.newKey();
    h.clock.advance(120_000);
    try {
      const before = await reloadlyListings();
      const listings = await Promise.all(Array.from({ length: 30 }, () => h.call("GET", "/v1/giftcards", { key })));
      expect(listings.map((res) => res.status)).toEqual(Array(30).fill(200));
      // One listing is one read of every page (the simulated catalogue is a page or a few).
      const one = (await reloadlyListings()) - before;
      expect(one).toBeGreaterThan(0);
      expect(one).toBeLessThanOrEqual(3);
      h.clock.advance(60_000);
      expect((await h.call("GET", "/v1/giftcards", { key })).status).toBe(200);
      expect((await reloadlyListings()) - before).toBe(2 * one);
    } finally {
      h.clock.reset();
    }
  });

  it("still refuses a gift sold out since the listing, before the charge", async () => {
    const { key } = await h.newKey(20);
    const { username } = await knownRecipient();
    const listed = await h.call("GET", "/v1/gifts", { key });
    const pumpkin = listed.body.gifts.find((g: { emoji: string }) => g.emoji === "🎃");
    expect(pumpkin).toBeDefined();
    // Sold out after the listing was kept: the listing still shows it, the purchase reads the stock live.
    await control("/emulator/gift-stock", { gift_id: pumpkin.gift_id, remaining_count: 0 });
    try {
      expect((await h.call("GET", "/v1/gifts", { key })).body.gifts.map((g: { gift_id: string }) => g.gift_id)).toContain(pumpkin.gift_id);
      const orders = await h.orderCount();
      const res = await h.call("POST", "/v1/gifts", { key, body: { recipient: username, gift_id: pumpkin.gift_id } });
      // Telegram's getAvailableGifts leaves a sold-out gift out: the live read no longer has it.
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("is not in the catalogue");
      expect(await h.orderCount()).toBe(orders);
      expect(await h.balance(key)).toBe(20);
    } finally {
      await control("/emulator/gift-stock", { gift_id: pumpkin.gift_id, remaining_count: 1000 });
    }
  });
});

describe("gift cards from Reloadly", () => {
  it("lists Reloadly's products as brands, and delivers a card's code from its order", async () => {
    const { key } = await h.newKey(100);
    const brands = await h.call("GET", "/v1/giftcards", { key });
    expect(brands.status).toBe(200);
    expect(brands.body.giftcards.length).toBeGreaterThan(0);
    const brand = brands.body.giftcards[0].category_id as string;
    const catalogue = await h.call("GET", `/v1/giftcards/${brand}/catalogue`, { key });
    expect(catalogue.status).toBe(200);
    const card = catalogue.body.denominations[0];
    const res = await h.call("POST", `/v1/giftcards/${brand}/order`, { key, body: { card_id: card.card_id } });
    expect([200, 202]).toContain(res.status);
    expect(res.body.codes).toBeUndefined();
    const done = await eventually(async () => {
      const order = await h.call("GET", `/v1/giftcards/orders/${res.body.order_id}`, { key });
      return order.body.status === "completed" ? order.body : undefined;
    }, 20_000);
    expect(done.codes).toHaveLength(1);
    expect(done.codes[0].length).toBeGreaterThan(4);
  });

  it("finds an order whose answer was lost by its customIdentifier, without ordering twice", async () => {
    const { key } = await h.newKey(100);
    const brand = (await h.call("GET", "/v1/giftcards", { key })).body.giftcards[0].category_id as string;
    const card = (await h.call("GET", `/v1/giftcards/${brand}/catalogue`, { key })).body.denominations[0];
    await h.fault("reloadly", "hang_after_accept");
    let placed;
    try {
      placed = await h.call("POST", `/v1/giftcards/${brand}/order`, { key, body: { card_id: card.card_id } });
    } finally {
      await h.fault("reloadly", "ok");
    }
    expect(placed.body.status).toBe("processing");
    const charged = await h.balance(key);
    h.clock.advance(5_000);
    try {
      const done = await eventually(async () => {
        const order = await h.call("GET", `/v1/giftcards/orders/${placed.body.order_id}`, { key });
        return order.body.status === "completed" ? order.body : undefined;
      }, 20_000);
      expect(done.codes).toHaveLength(1);
    } finally {
      h.clock.reset();
    }
    expect(await h.balance(key)).toBe(charged);
    // Reloadly holds one transaction for the order's reference: it was never ordered twice.
    expect(await reloadlyTransactions(placed.body.order_id)).toHaveLength(1);
  });

  it("refunds an order Reloadly fails for its balance", async () => {
    const { key } = await h.newKey(100);
    const brand = (await h.call("GET", "/v1/giftcards", { key })).body.giftcards[0].category_id as string;
    const card = (await h.call("GET", `/v1/giftcards/${brand}/catalogue`, { key })).body.denominations[0];
    await control("/reloadly/control/balance", { environment: "sandbox", balance: 0 }, h.simulatorUrl);
    try {
      const res = await h.call("POST", `/v1/giftcards/${brand}/order`, { key, body: { card_id: card.card_id } });
      expect(res.status).toBe(502);
      expect(await h.balance(key)).toBe(100);
    } finally {
      await control("/reloadly/control/balance", { environment: "sandbox", balance: 10_000 }, h.simulatorUrl);
    }
  });
});

describe("the same backends through the bot", () => {
  it("sends a gift chosen in the chat to a user the bot knows", async () => {
    const { chat, key, telegramId } = await bots.registered(2);
    const friend = await knownRecipient();
    await chat.tap("Gifts");
    await chat.next((t) => t.includes("Which gift?"));
    await chat.tap("🌹");
    // Telegram's limit, not the contract's 255, and no question of showing a name the bot never shows.
    // The rules are told before the text is asked for; the room is what the label leaves of Telegram's 128.
    const asked = (await chat.reply(`@${friend.username}`, (t) => t.includes("message"))).text;
    expect(asked).toContain("From customer #");
    expect(asked).toContain("Not allowed: links");
    await chat.reply("see https://evil.example", (t) => t.includes("cannot go with the gift"));
    await chat.reply("Your bаlance is frozen", (t) => t.includes("cannot go with the gift"));
    await chat.reply("Cheers", (t) => t.includes("Confirm?"));
    expect((await chat.messages()).some((m) => m.text?.includes("Show your name"))).toBe(false);
    await chat.tap("Confirm");
    await chat.next((t) => t.includes("Done!"));
    // The buyer's label first: the text cannot pass as the shop speaking.
    expect(await friend.chat.giftsReceived()).toMatchObject([{ gift_id: ROSE, text: `From customer #${await accountIdOf(telegramId)}: Cheers` }]);
    expect(await h.balance(key)).toBe(1.625);
  });
});

async function accountIdOf(telegramId: string): Promise<number> {
  return (await h.service.core.accounts.byTelegramId(telegramId))!.id;
}

/** Reloadly's own report of the transactions made for an order (its customIdentifier is the order's reference). */
async function reloadlyTransactions(orderId: number): Promise<unknown[]> {
  const order = await h.service.db.selectFrom("orders").select("upstream_ref").where("id", "=", orderId).executeTakeFirstOrThrow();
  const credentials = simulatedReloadly(h.simulatorUrl, "sandbox");
  const token = await request(`${credentials.RELOADLY_AUTH_URL}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_id: credentials.RELOADLY_CLIENT_ID,
      client_secret: credentials.RELOADLY_CLIENT_SECRET,
      grant_type: "client_credentials",
      audience: "https://giftcards-sandbox.reloadly.com",
    }),
  });
  const { access_token } = (await token.body.json()) as { access_token: string };
  const report = await request(`${credentials.RELOADLY_GIFTCARDS_URL}/reports/transactions?customIdentifier=${order.upstream_ref}&size=50`, {
    headers: { authorization: `Bearer ${access_token}`, accept: "application/com.reloadly.giftcards-v1+json" },
  });
  const page = (await report.body.json()) as { content: Array<{ customIdentifier: string }> };
  return page.content.filter((t) => t.customIdentifier === order.upstream_ref);
}

async function control(path: string, body: unknown, base = bots.emulatorUrl) {
  const response = await request(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`${path}: HTTP ${response.statusCode}`);
}
