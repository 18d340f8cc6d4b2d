import { gunzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import { Api, GrammyError } from "grammy";
import type { Gift } from "grammy/types";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";

// The Bot API's gifts, Premium and Stars as the emulator plays them, called as the bot calls Telegram (grammY's Api
// at the emulator's root). Every field list and refusal below is the one docs/providers/telegram-bot-api.md gives.

const TOKEN = "7000000001:emulated-token";
let url: string;
let app: FastifyInstance;
let api: Api;
let stars: EmulatedStars;

beforeAll(async () => {
  ({ url, app } = await startEmulator());
  api = new Api(TOKEN, { apiRoot: url });
  stars = new EmulatedStars(url);
});
afterAll(async () => app.close());

let nextUser = 810_000_001;
/** A user the bot knows: they have sent it a message. */
async function knownUser(): Promise<EmulatedChat> {
  const id = nextUser++;
  const chat = new EmulatedChat(url, { id, first_name: `User ${id}`, username: `user${id}` });
  await chat.say("/start");
  return chat;
}

/** The refusal a call gets, as Telegram's body: error_code and description. */
async function refusal(call: Promise<unknown>): Promise<{ error_code: number; description: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof GrammyError)) throw new Error(`expected a Bot API refusal, got ${String(error)}`);
  return { error_code: error.error_code, description: error.description };
}
const badRequest = (description: string) => ({ error_code: 400, description: `Bad Request: ${description}` });

const balance = async () => (await api.getMyStarBalance()).amount;
const gifts = async () => (await api.getAvailableGifts()).gifts;
async function limitedGift(): Promise<Gift> {
  const gift = (await gifts()).find((g) => g.total_count !== undefined && g.star_count === 100);
  if (!gift) throw new Error("the catalogue has no limited gift for 100 stars");
  return gift;
}
const unlimitedGift = async () => (await gifts()).find((g) => g.total_count === undefined)!;

// The published fields (T1, with T6's types): nothing else may appear, the required ones must.
const GIFT_FIELDS = [
  "id",
  "sticker",
  "star_count",
  "upgrade_star_count",
  "is_premium",
  "has_colors",
  "total_count",
  "remaining_count",
  "personal_total_count",
  "personal_remaining_count",
  "background",
  "unique_gift_variant_count",
  "publisher_chat",
];
const STICKER_FIELDS = [
  "file_id",
  "file_unique_id",
  "type",
  "width",
  "height",
  "is_animated",
  "is_video",
  "thumbnail",
  "emoji",
  "set_name",
  "premium_animation",
  "mask_position",
  "custom_emoji_id",
  "needs_repainting",
  "file_size",
];
const FILE_FIELDS = ["file_id", "file_unique_id", "file_size", "file_path"];
const TRANSACTION_FIELDS = ["id", "amount", "nanostar_amount", "date", "source", "receiver"];
const PARTNER_USER_FIELDS = [
  "type",
  "transaction_type",
  "user",
  "affiliate",
  "invoice_payload",
  "subscription_period",
  "paid_media",
  "paid_media_payload",
  "gift",
  "premium_subscription_duration",
];

function expectFields(object: object, published: string[], required: string[]) {
  expect(Object.keys(object).filter((key) => !published.includes(key))).toEqual([]);
  for (const key of required) expect(object).toHaveProperty(key);
}

describe("the bot's Star balance", () => {
  it("is a StarAmount: {amount} for a bot with none, nanostar_amount only when not 0", async () => {
    await stars.setBalance(0);
    expect(await api.getMyStarBalance()).toEqual({ amount: 0 });
    await stars.setBalance(5000, 250);
    expect(await api.getMyStarBalance()).toEqual({ amount: 5000, nanostar_amount: 250 });
  });
});

describe("the gift catalogue", () => {
  it("lists Gift objects with the published fields: string ids, a sticker, prices, counts only on limited gifts", async () => {
    const list = await gifts();
    expect(list.length).toBeGreaterThan(3);
    for (const gift of list) {
      expectFields(gift, GIFT_FIELDS, ["id", "sticker", "star_count"]);
      expect(gift.id).toMatch(/^\d{1,20}$/);
      expect(Number.isInteger(gift.star_count) && gift.star_count > 0).toBe(true);
      if (gift.upgrade_star_count !== undefined) expect(gift.upgrade_star_count).toBeGreaterThan(0);
      // Limited ⇔ total_count present, and then remaining_count too (T3).
      expect(gift.remaining_count === undefined).toBe(gift.total_count === undefined);
      if (gift.total_count !== undefined) expect(gift.remaining_count!).toBeLessThanOrEqual(gift.total_count);
      expectFields(gift.sticker, STICKER_FIELDS, ["file_id", "file_unique_id", "type", "width", "height", "is_animated", "is_video"]);
      expect(gift.sticker).toMatchObject({ is_animated: true, is_video: false });
    }
    expect(list.some((g) => g.total_count !== undefined)).toBe(true);
    expect(list.some((g) => g.total_count === undefined)).toBe(true);
    expect(new Set(list.map((g) => g.id)).size).toBe(list.length);
  });

  it("serves each gift's sticker through getFile and the file path: a gzip Lottie (TGS)", async () => {
    for (const gift of await gifts()) {
      const file = await api.getFile(gift.sticker.file_id);
      expectFields(file, FILE_FIELDS, ["file_id", "file_unique_id", "file_path"]);
      expect(file.file_id).toBe(gift.sticker.file_id);
      const response = await request(`${url}/file/bot${TOKEN}/${file.file_path}`);
      expect(response.statusCode).toBe(200);
      const bytes = Buffer.from(await response.body.arrayBuffer());
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      expect(bytes.length).toBe(file.file_size);
      const lottie = JSON.parse(gunzipSync(bytes).toString("utf8"));
      expect(lottie).toHaveProperty("v");
      expect(lottie.fr).toBeGreaterThan(0);
      expect(Array.isArray(lottie.layers) && lottie.layers.length > 0).toBe(true);
    }
    expect(await refusal(api.getFile("no-such-file"))).toEqual(badRequest("invalid file_id"));
    expect((await request(`${url}/file/bot${TOKEN}/stickers/none.tgs`)).statusCode).toBe(404);
  });
});

describe("sendGift", () => {
  it("debits the bot's Stars, records the gift as the user's with its text, and answers true", async () => {
    const user = await knownUser();
    const gift = await unlimitedGift();
    await stars.setBalance(1000);
    const entities = [
      { type: "bold" as const, offset: 0, length: 5 },
      { type: "url" as const, offset: 6, length: 3 },
    ];
    expect(await api.sendGift(user.user.id, gift.id, { text: "Happy day", text_entities: entities })).toBe(true);
    expect(await balance()).toBe(1000 - gift.star_count);
    // Only bold, italic, underline, strikethrough, spoiler, custom_emoji and date_time entities are kept (T1).
    expect(await user.giftsReceived()).toEqual([
      {
        type: "gift",
        gift_id: gift.id,
        pay_for_upgrade: false,
        star_count: gift.star_count,
        date: expect.any(Number),
        text: "Happy day",
        text_entities: [entities[0]],
      },
    ]);
  });

  it("takes a known user's id as chat_id too, and with pay_for_upgrade debits the upgrade as well", async () => {
    const user = await knownUser();
    const gift = await limitedGift();
    await stars.setGiftStock(gift.id, 10);
    await stars.setBalance(1000);
    expect(await api.raw.sendGift({ chat_id: user.user.id, gift_id: gift.id, pay_for_upgrade: true })).toBe(true);
    expect(gift.upgrade_star_count).toBeGreaterThan(0);
    expect(await balance()).toBe(1000 - gift.star_count - gift.upgrade_star_count!);
    expect((await user.giftsReceived()).map((g) => g.star_count)).toEqual([gift.star_count + gift.upgrade_star_count!]);
  });

  it("decrements a limited gift's remaining count; once sold out it is refused and leaves the catalogue", async () => {
    const user = await knownUser();
    const gift = await limitedGift();
    await stars.setGiftStock(gift.id, 2, 500);
    await stars.setBalance(10_000);
    await api.sendGift(user.user.id, gift.id);
    expect((await gifts()).find((g) => g.id === gift.id)).toMatchObject({ total_count: 500, remaining_count: 1 });
    await api.sendGift(user.user.id, gift.id);
    // T4: a bot is not shown a sold-out gift.
    expect((await gifts()).some((g) => g.id === gift.id)).toBe(false);
    expect(await refusal(api.sendGift(user.user.id, gift.id))).toEqual(badRequest("STARGIFT_USAGE_LIMITED"));
    expect(await balance()).toBe(10_000 - 2 * gift.star_count);
    expect(await user.giftsReceived()).toHaveLength(2);
    await stars.setGiftStock(gift.id, 5);
  });

  it("refuses when the Stars are short, and then takes nothing: no debit, no stock, no gift, no transaction", async () => {
    const user = await knownUser();
    const gift = await limitedGift();
    await stars.setGiftStock(gift.id, 4);
    await stars.setBalance(gift.star_count - 1);
    const before = (await api.getStarTransactions()).transactions.length;
    expect(await refusal(api.sendGift(user.user.id, gift.id))).toEqual(badRequest("BALANCE_TOO_LOW"));
    expect(await balance()).toBe(gift.star_count - 1);
    expect((await gifts()).find((g) => g.id === gift.id)!.remaining_count).toBe(4);
    expect(await user.giftsReceived()).toEqual([]);
    expect((await api.getStarTransactions()).transactions).toHaveLength(before);
    // Exactly enough is enough.
    await stars.setBalance(gift.star_count);
    expect(await api.sendGift(user.user.id, gift.id)).toBe(true);
    expect(await balance()).toBe(0);
  });

  it("answers a refusal as Telegram does: HTTP 400 and {ok: false, error_code, description}", async () => {
    const user = await knownUser();
    await stars.setBalance(0);
    const response = await request(`${url}/bot${TOKEN}/sendGift`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: user.user.id, gift_id: (await unlimitedGift()).id }),
    });
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toEqual({ ok: false, error_code: 400, description: "Bad Request: BALANCE_TOO_LOW" });
  });

  it("knows only users who have sent the bot an update, and refuses the others as the Bot API server does", async () => {
    await stars.setBalance(1000);
    const gift = await unlimitedGift();
    const stranger = 899_000_001;
    expect(await refusal(api.sendGift(stranger, gift.id))).toEqual(badRequest("user not found"));
    expect(await refusal(api.raw.sendGift({ chat_id: stranger, gift_id: gift.id }))).toEqual(badRequest("chat not found"));
    expect(await refusal(api.raw.sendGift({ chat_id: "@user810000001", gift_id: gift.id }))).toEqual(badRequest("chat not found"));
    expect(await refusal(api.sendGift(0, gift.id))).toEqual(badRequest("invalid user_id specified"));
    expect(await refusal(api.raw.sendGift({ gift_id: gift.id } as never))).toEqual(badRequest("invalid user_id specified"));
    // The stranger writes to the bot: now known.
    await new EmulatedChat(url, { id: stranger, first_name: "Stranger" }).say("hello");
    expect(await api.sendGift(stranger, gift.id)).toBe(true);
    expect(await balance()).toBe(1000 - gift.star_count);
  });

  it("refuses what the recipient's privacy does not accept, the class of gift it is", async () => {
    const user = await knownUser();
    const limited = await limitedGift();
    const unlimited = await unlimitedGift();
    await stars.setGiftStock(limited.id, 5);
    await stars.setBalance(1000);
    await user.setAcceptedGifts({ limited_gifts: false });
    expect(await refusal(api.sendGift(user.user.id, limited.id))).toEqual(badRequest("USER_DISALLOWED_STARGIFTS"));
    expect(await api.sendGift(user.user.id, unlimited.id)).toBe(true);
    await user.setAcceptedGifts({ unlimited_gifts: false });
    expect(await refusal(api.sendGift(user.user.id, unlimited.id))).toEqual(badRequest("USER_DISALLOWED_STARGIFTS"));
    expect(await balance()).toBe(1000 - unlimited.star_count);
    expect((await user.giftsReceived()).map((g) => (g.type === "gift" ? g.gift_id : ""))).toEqual([unlimited.id]);
  });

  it("refuses an unknown gift, a text over 128 characters and an unknown parse mode", async () => {
    const user = await knownUser();
    const gift = await unlimitedGift();
    await stars.setBalance(1000);
    expect(await refusal(api.sendGift(user.user.id, "1234567890"))).toEqual(badRequest("STARGIFT_INVALID"));
    expect(await refusal(api.sendGift(user.user.id, gift.id, { text: "x".repeat(129) }))).toEqual(badRequest("text is too long"));
    expect(await refusal(api.sendGift(user.user.id, gift.id, { text: "hi", text_parse_mode: "BBCode" as never }))).toEqual(
      badRequest("unsupported parse_mode"),
    );
    expect(await balance()).toBe(1000);
    expect(await api.sendGift(user.user.id, gift.id, { text: "y".repeat(128), text_parse_mode: "HTML" })).toBe(true);
    expect(await user.giftsReceived()).toMatchObject([{ text: "y".repeat(128), text_parse_mode: "HTML" }]);
  });
});

describe("getChat, the recipient check before paying", () => {
  it("shows a known user with the gift classes they accept; any other chat is not found", async () => {
    const user = await knownUser();
    const chat = await api.getChat(user.user.id);
    expect(chat).toMatchObject({ id: user.user.id, type: "private", first_name: user.user.first_name, username: user.user.username });
    expect(chat.accepted_gift_types).toEqual({
      unlimited_gifts: true,
      limited_gifts: true,
      unique_gifts: true,
      premium_subscription: true,
      gifts_from_channels: true,
    });
    await user.setAcceptedGifts({ limited_gifts: false, premium_subscription: false });
    expect((await api.getChat(user.user.id)).accepted_gift_types).toMatchObject({
      unlimited_gifts: true,
      limited_gifts: false,
      premium_subscription: false,
    });
    expect(await refusal(api.getChat(899_700_001))).toEqual(badRequest("chat not found"));
    expect(await refusal(api.getChat(`@${user.user.username}`))).toEqual(badRequest("chat not found"));
  });
});

describe("giftPremiumSubscription", () => {
  it("gifts 3, 6 or 12 months for exactly 1000, 1500 or 2500 Stars, each debited", async () => {
    const user = await knownUser();
    await stars.setBalance(5000);
    expect(await api.giftPremiumSubscription(user.user.id, 3, 1000, { text: "For you" })).toBe(true);
    expect(await api.giftPremiumSubscription(user.user.id, 6, 1500)).toBe(true);
    expect(await api.giftPremiumSubscription(user.user.id, 12, 2500)).toBe(true);
    expect(await balance()).toBe(0);
    expect(await user.giftsReceived()).toEqual([
      { type: "premium", month_count: 3, star_count: 1000, date: expect.any(Number), text: "For you" },
      { type: "premium", month_count: 6, star_count: 1500, date: expect.any(Number) },
      { type: "premium", month_count: 12, star_count: 2500, date: expect.any(Number) },
    ]);
  });

  it("refuses a wrong month/star pair, short Stars, an unknown user, a refusing user and a long text, taking nothing", async () => {
    const user = await knownUser();
    await stars.setBalance(999);
    expect(await refusal(api.giftPremiumSubscription(user.user.id, 3, 1500))).toEqual(badRequest("GIFT_STARS_INVALID"));
    expect(await refusal(api.giftPremiumSubscription(user.user.id, 4 as 3, 1000))).toEqual(badRequest("GIFT_MONTHS_INVALID"));
    expect(await refusal(api.giftPremiumSubscription(user.user.id, 3, 1000))).toEqual(badRequest("BALANCE_TOO_LOW"));
    expect(await refusal(api.giftPremiumSubscription(899_500_001, 3, 1000))).toEqual(badRequest("user not found"));
    expect(await refusal(api.giftPremiumSubscription(-5, 3, 1000))).toEqual(badRequest("invalid user_id specified"));
    expect(await refusal(api.giftPremiumSubscription(user.user.id, 3, 1000, { text: "z".repeat(129) }))).toEqual(badRequest("text is too long"));
    await stars.setBalance(1000);
    await user.setAcceptedGifts({ premium_subscription: false });
    expect(await refusal(api.giftPremiumSubscription(user.user.id, 3, 1000))).toEqual(badRequest("USER_DISALLOWED_STARGIFTS"));
    expect(await balance()).toBe(1000);
    expect(await user.giftsReceived()).toEqual([]);
  });
});

describe("getStarTransactions", () => {
  it("lists the debits in chronological order with the published fields, paged by offset and limit", async () => {
    const user = await knownUser();
    const gift = await unlimitedGift();
    await stars.setBalance(2000);
    const before = (await api.getStarTransactions()).transactions.length;
    await api.sendGift(user.user.id, gift.id);
    await api.giftPremiumSubscription(user.user.id, 6, 1500);
    const all = (await api.getStarTransactions()).transactions;
    expect(all).toHaveLength(before + 2);
    for (const transaction of all) {
      expectFields(transaction, TRANSACTION_FIELDS, ["id", "amount", "date", "receiver"]);
      expect(typeof transaction.id).toBe("string");
      // Outgoing: a positive amount and a receiver, never a source (T3).
      expect(transaction.amount).toBeGreaterThan(0);
      expect(transaction).not.toHaveProperty("source");
      expectFields(transaction.receiver!, PARTNER_USER_FIELDS, ["type", "transaction_type", "user"]);
    }
    expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
    const [sent, premium] = all.slice(before);
    expect(sent).toMatchObject({
      amount: gift.star_count,
      receiver: { type: "user", transaction_type: "gift_purchase", user: { id: user.user.id } },
    });
    expect((sent.receiver as { gift: Gift }).gift).toMatchObject({ id: gift.id, star_count: gift.star_count });
    expect(premium).toMatchObject({
      amount: 1500,
      receiver: { type: "user", transaction_type: "premium_purchase", user: { id: user.user.id }, premium_subscription_duration: 6 },
    });
    expect(sent.date).toBeLessThanOrEqual(premium.date);
    expect((await api.getStarTransactions({ offset: before, limit: 1 })).transactions).toEqual([sent]);
    expect((await api.getStarTransactions({ offset: before + 1, limit: 100 })).transactions).toEqual([premium]);
    expect((await api.getStarTransactions({ offset: all.length })).transactions).toEqual([]);
  });

  it("shows a gift whose answer was lost, so it can be reconciled without sending it again", async () => {
    const user = await knownUser();
    const gift = await unlimitedGift();
    await stars.setBalance(100);
    await request(`${url}/emulator/slow`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "sendGift", ms: 1500, takes_effect: "at-once" }),
    });
    try {
      // A caller that hangs up after 200 ms: the gift is sent at once, only the answer is late.
      const impatient = new Api(TOKEN, { apiRoot: url, timeoutSeconds: 0.2 });
      await expect(impatient.sendGift(user.user.id, gift.id)).rejects.toThrow();
    } finally {
      await request(`${url}/emulator/slow`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ method: "sendGift", ms: 0 }),
      });
    }
    const transactions = (await api.getStarTransactions()).transactions;
    const lost = transactions.filter((t) => (t.receiver as { user?: { id: number } } | undefined)?.user?.id === user.user.id);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ amount: gift.star_count, receiver: { transaction_type: "gift_purchase", gift: { id: gift.id } } });
    expect(await balance()).toBe(100 - gift.star_count);
    expect(await user.giftsReceived()).toHaveLength(1);
  });
});
