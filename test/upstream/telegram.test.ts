import type { FastifyInstance } from "fastify";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TelegramContact } from "../../src/core/model/contact.js";
import type { UpstreamCall } from "../../src/upstream/http.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { giftLottie } from "../../src/simulator/gifts.js";
import { createTelegramBackend, type TelegramBackend } from "../../src/upstream/telegram.js";

// The Telegram backend (issue 37) over real HTTP against the Bot API emulator: gifts and Premium paid from the
// bot's Stars, recipients by the contacts the bot has seen, a lost answer reconciled from the Star transactions.

const TOKEN = "7000000001:emulated-token";
let url: string;
let app: FastifyInstance;
let stars: EmulatedStars;
let backend: TelegramBackend;
const calls: UpstreamCall[] = [];
/** The contacts as the backend finds them (the service's are in the database; core/contacts.ts). */
const contacts = new Map<string, TelegramContact>();
const find = async (username: string) => contacts.get(username.replace(/^@/, "").toLowerCase()) ?? null;
let claimedIds: string[] = [];

const backendWith = (timeoutMs: number) =>
  createTelegramBackend({
    token: TOKEN,
    apiRoot: url,
    timeoutMs,
    find,
    book: {
      claimed: async (ids) => ids.filter((id) => claimedIds.includes(id)),
      unlinked: async () => [],
      toLink: async () => [],
      link: async () => false,
    },
    onCall: (call) => calls.push(call),
  });

beforeAll(async () => {
  ({ url, app } = await startEmulator());
  stars = new EmulatedStars(url);
  backend = backendWith(2000);
});
afterAll(async () => {
  await backend.close();
  await app.close();
});

let nextUser = 820_000_001;
/** A user who has written to the bot: known to Telegram's side and in the contacts. */
async function knownUser(extra: Partial<TelegramContact> = {}): Promise<EmulatedChat> {
  const id = nextUser++;
  const chat = new EmulatedChat(url, { id, first_name: `User ${id}`, username: `user${id}` });
  await chat.say("/start");
  contacts.set(`user${id}`, {
    telegramId: String(id),
    username: `User${id}`,
    firstName: `User ${id}`,
    lastName: null,
    isPremium: false,
    seenAt: new Date().toISOString(),
    ...extra,
  });
  return chat;
}

const control = (path: string, body: unknown) =>
  request(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) =>
    r.body.json(),
  );

const catalogue = () => backend.gifts.catalogue();
const unlimited = async () => (await catalogue()).find((g) => !g.limited)!;
const limited = async () => (await catalogue()).find((g) => g.limited && g.stars === 100)!;
const order = (chat: EmulatedChat, giftId: string) => ({
  reference: `ref-${chat.user.id}`,
  recipient: chat.user.username!,
  recipientId: String(chat.user.id),
  giftId,
  hideName: true,
  message: "",
});

describe("the gift catalogue", () => {
  it("maps getAvailableGifts: string ids, stars, the sticker's emoji, limited with its remaining count", async () => {
    await stars.setGiftStock("5782984811920491178", 3, 500);
    const list = await catalogue();
    expect(list.length).toBeGreaterThan(3);
    expect(list[0]).toEqual({ giftId: "5170145012310081615", stars: 15, emoji: "💝", limited: false, remaining: null });
    expect(list.find((g) => g.giftId === "5782984811920491178")).toEqual({
      giftId: "5782984811920491178",
      stars: 100,
      emoji: "🎄",
      limited: true,
      remaining: 3,
    });
    expect(backend.gifts.messageMax).toBe(128);
    // The token never reaches the log.
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => !c.path.includes(TOKEN) && c.provider === "gifts")).toBe(true);
  });

  it("gives a gift's sticker as its Lottie object (TGS unzipped), and null for an unknown gift", async () => {
    const gift = await unlimited();
    const lottie = await backend.gifts.sticker(gift.giftId);
    expect(lottie).toEqual(giftLottie(gift.giftId));
    const before = calls.length;
    expect(await backend.gifts.sticker(gift.giftId)).toBe(lottie);
    expect(calls.length).toBe(before);
    expect(await backend.gifts.sticker("1234")).toBeNull();
    expect(calls.some((c) => c.path.startsWith("/file/bot<token>/"))).toBe(true);
  });
});

describe("the bot's Stars", () => {
  it("are its funds, never its readiness", async () => {
    await stars.setBalance(4321);
    expect(await backend.gifts.funds!()).toEqual({ amount: 4321, unit: "stars" });
    expect(await backend.premium.funds()).toEqual({ amount: 4321, unit: "stars" });
    expect(await backend.gifts.ready()).toBe(true);
    // No Stars: still ready (the Bot API answers), so the public health never tells that the Stars ran out.
    await stars.setBalance(0);
    expect(await backend.gifts.funds!()).toEqual({ amount: 0, unit: "stars" });
    expect(await backend.gifts.ready()).toBe(true);
    expect(await backend.premium.ready()).toBe(true);
    await stars.setBalance(4321);
    const nowhere = createTelegramBackend({ token: TOKEN, apiRoot: "http://127.0.0.1:19199", timeoutMs: 500, find });
    expect(await nowhere.gifts.ready()).toBe(false);
    await expect(nowhere.gifts.funds!()).rejects.toThrow();
    // Never sent: a failure, nothing to reconcile.
    const user = await knownUser();
    expect(await nowhere.gifts.send(order(user, "5170145012310081615"))).toMatchObject({ kind: "failed", reason: "provider_unavailable" });
    await nowhere.close();
  });
});

describe("sending a gift", () => {
  it("sends it to the contact's id with the message as text, paid from the Stars", async () => {
    const user = await knownUser();
    const gift = await unlimited();
    await stars.setBalance(1000);
    expect(await backend.gifts.checkRecipient(user.user.username!, { limited: false })).toEqual({
      exists: true,
      acceptsGifts: true,
      recipientId: String(user.user.id),
    });
    // Completed with its Star transaction's id, read back after Telegram's bare `true`.
    expect(await backend.gifts.send({ ...order(user, gift.giftId), message: "Happy birthday" })).toEqual({
      kind: "completed",
      transactionId: expect.any(String),
    });
    expect(await user.giftsReceived()).toMatchObject([{ type: "gift", gift_id: gift.giftId, text: "Happy birthday", star_count: gift.stars }]);
    expect(await backend.gifts.funds!()).toEqual({ amount: 1000 - gift.stars, unit: "stars" });
    // An empty message sends no text.
    await backend.gifts.send(order(user, gift.giftId));
    expect((await user.giftsReceived())[1]).not.toHaveProperty("text");
  });

  it("fails for a recipient the bot has never seen, and checks them as not existing", async () => {
    expect(await backend.gifts.checkRecipient("never_seen")).toEqual({
      exists: false,
      acceptsGifts: false,
      why: "@never_seen is not a recipient this shop's bot can send to: ask them to open the bot and send /start, then try again",
    });
    // No user fixed before the charge: nothing is sent.
    const outcome = await backend.gifts.send({
      reference: "r-unknown",
      recipient: "never_seen",
      recipientId: null,
      giftId: "5170145012310081615",
      hideName: false,
      message: "",
    });
    expect(outcome).toMatchObject({ kind: "failed", reason: "provider_error", error: expect.stringContaining("nothing was sent") });
    // A contact Telegram does not know (the emulator never saw them): "chat not found" is no recipient.
    contacts.set("ghost", {
      telegramId: "829999999",
      username: "ghost",
      firstName: "Ghost",
      lastName: null,
      isPremium: false,
      seenAt: new Date().toISOString(),
    });
    expect(await backend.gifts.checkRecipient("ghost")).toMatchObject({ exists: false, acceptsGifts: false });
    expect(await backend.gifts.send(order({ user: { id: 829999999, username: "ghost" } } as EmulatedChat, "5170145012310081615"))).toMatchObject({
      kind: "failed",
      reason: "provider_error",
      error: expect.stringContaining("no longer belongs to the user this order was placed for"),
    });
  });

  it("checks again before the send that the id still holds the name bought for, and sends nothing when not", async () => {
    const user = await knownUser();
    const gift = await unlimited();
    await stars.setBalance(1000);
    const bought = order(user, gift.giftId);
    // Renamed between the charge and the send: the id fixed at the charge no longer holds the name.
    await user.rename(`moved${user.user.id}`);
    expect(await backend.gifts.send(bought)).toMatchObject({
      kind: "failed",
      error: expect.stringContaining("no longer belongs to the user this order was placed for: nothing was sent"),
    });
    expect(
      await backend.premium.deliver({ reference: "p-moved", username: bought.recipient, amount: 3, recipientId: bought.recipientId }),
    ).toMatchObject({
      kind: "failed",
    });
    expect(await user.giftsReceived()).toEqual([]);
    expect(await backend.gifts.funds!()).toEqual({ amount: 1000, unit: "stars" });
  });

  it("sees the recipient's privacy before paying, and maps Telegram's refusal", async () => {
    const user = await knownUser();
    await user.setAcceptedGifts({ limited_gifts: false });
    const gift = await limited();
    await stars.setGiftStock(gift.giftId, 10);
    await stars.setBalance(1000);
    const recipientId = String(user.user.id);
    expect(await backend.gifts.checkRecipient(user.user.username!, { limited: true })).toEqual({ exists: true, acceptsGifts: false, recipientId });
    expect(await backend.gifts.checkRecipient(user.user.username!, { limited: false })).toEqual({ exists: true, acceptsGifts: true, recipientId });
    expect(await backend.gifts.send(order(user, gift.giftId))).toMatchObject({ kind: "failed", reason: "recipient_refuses" });
    expect(await backend.gifts.funds!()).toEqual({ amount: 1000, unit: "stars" });
    expect(await user.giftsReceived()).toEqual([]);
  });

  it("fails with provider_balance when the Stars are too few, and provider_error when sold out", async () => {
    const user = await knownUser();
    const gift = await limited();
    await stars.setGiftStock(gift.giftId, 10);
    await stars.setBalance(gift.stars - 1);
    expect(await backend.gifts.send(order(user, gift.giftId))).toMatchObject({
      kind: "failed",
      reason: "provider_balance",
      error: expect.stringContaining("BALANCE_TOO_LOW"),
    });
    await stars.setBalance(1000);
    await stars.setGiftStock(gift.giftId, 0);
    expect(await backend.gifts.send(order(user, gift.giftId))).toMatchObject({
      kind: "failed",
      reason: "provider_error",
      error: expect.stringContaining("STARGIFT_USAGE_LIMITED"),
    });
    expect(await user.giftsReceived()).toEqual([]);
    await stars.setGiftStock(gift.giftId, 10);
  });
});

describe("Premium", () => {
  // What the lead wires in as the gateway's Premium side.
  const premium = () => backend.premium;

  it("finds a contact as a profile naming only the username (no real name, no Premium status), and none for a stranger", async () => {
    const user = await knownUser({ lastName: "Smith", isPremium: true });
    const name = user.user.username!;
    expect(await premium().search(`@${name}`)).toEqual({
      username: `User${user.user.id}`,
      name: `User${user.user.id}`,
      photo: `https://t.me/i/userpic/320/User${user.user.id}.jpg`,
      premium: null,
    });
    expect(await premium().search("never_seen")).toBeNull();
  });

  it("refuses up front a stranger or a balance short of the fixed price, then gifts it for that price", async () => {
    const user = await knownUser();
    const name = user.user.username!;
    expect(await backend.premium.precheck({ username: "never_seen", amount: 3 })).toEqual({
      refused: "recipient_unknown",
      message: "@never_seen is not a recipient this shop's bot can send to: ask them to open the bot and send /start, then try again",
    });
    await stars.setBalance(1499);
    expect(await backend.premium.precheck({ username: name, amount: 6 })).toEqual({
      refused: "funds",
      message: "The bot's Star balance cannot pay for this now",
    });
    const recipientId = String(user.user.id);
    expect(await backend.premium.precheck({ username: name, amount: 3 })).toEqual({ recipientId });
    expect(await backend.premium.deliver({ reference: "p-1", username: name, amount: 6, recipientId })).toMatchObject({
      kind: "failed",
      reason: "provider_balance",
    });
    expect(await backend.premium.deliver({ reference: "p-2", username: name, amount: 3, recipientId })).toEqual({
      kind: "completed",
      transactionId: expect.any(String),
    });
    expect(await user.giftsReceived()).toMatchObject([{ type: "premium", month_count: 3, star_count: 1000 }]);
    expect(await backend.premium.funds()).toEqual({ amount: 499, unit: "stars" });
    expect(await backend.premium.deliver({ reference: "p-3", username: "never_seen", amount: 3, recipientId: null })).toMatchObject({
      kind: "failed",
      reason: "provider_error",
    });
  });
});

describe("a lost answer", () => {
  it("is unknown, then reconciled to completed from the Star transactions, with exactly one gift received", async () => {
    const user = await knownUser();
    const gift = await unlimited();
    await stars.setBalance(100);
    const createdAt = new Date().toISOString();
    const impatient = backendWith(300);
    // The emulator sends the gift at once and answers only after the client gave up.
    await control("/emulator/slow", { method: "sendGift", ms: 1500, takes_effect: "at-once" });
    let outcome;
    try {
      outcome = await impatient.gifts.send(order(user, gift.giftId));
    } finally {
      await control("/emulator/slow", { method: "sendGift", ms: 0 });
      await impatient.destroy();
    }
    expect(outcome).toMatchObject({ kind: "unknown" });
    const sent = {
      id: 1,
      productType: "gift",
      recipient: user.user.username!,
      recipientId: String(user.user.id),
      details: { gift_id: gift.giftId },
      createdAt,
    };
    const status = await backend.gifts.status("ref-lost", sent);
    expect(status).toEqual({ kind: "completed", transactionId: expect.any(String) });
    expect(await user.giftsReceived()).toHaveLength(1);
    // Asking again sends nothing.
    expect(await backend.gifts.status("ref-lost", sent)).toEqual(status);
    expect(await user.giftsReceived()).toHaveLength(1);
    // Claimed by that order, the transaction is no other order's.
    claimedIds = [(status as { transactionId: string }).transactionId];
    expect(await backend.gifts.status("ref-other", sent)).toEqual({ kind: "not_found" });
    claimedIds = [];
    // Not before the order: a transaction older than its creation (past the slack) is not its delivery.
    expect(await backend.gifts.status("ref-later", { ...sent, createdAt: new Date(Date.now() + 60_000).toISOString() })).toEqual({
      kind: "not_found",
    });
  });

  it("reconciles a Premium delivery by its months", async () => {
    const user = await knownUser();
    await stars.setBalance(5000);
    const createdAt = new Date().toISOString();
    const recipientId = String(user.user.id);
    const delivered = await backend.premium.deliver({ reference: "p-lost", username: user.user.username!, amount: 12, recipientId });
    const sent = { id: 2, productType: "premium", recipient: user.user.username!, recipientId, details: { months: 12 }, createdAt };
    expect(await backend.premium.status("p-lost", sent)).toEqual(delivered);
    // Once the delivered order holds its transaction, another order's reconciliation does not take it.
    claimedIds = [(delivered as { transactionId: string }).transactionId];
    expect(await backend.premium.status("p-other", sent)).toEqual({ kind: "not_found" });
    claimedIds = [];
    expect(await backend.premium.status("p-lost", { ...sent, details: { months: 6 } })).toEqual({ kind: "not_found" });
  });

  it("is not_found when nothing was sent, unknown without the order or when the Bot API does not answer", async () => {
    const user = await knownUser();
    const gift = await unlimited();
    const sent = {
      id: 3,
      productType: "gift",
      recipient: user.user.username!,
      recipientId: String(user.user.id),
      details: { gift_id: gift.giftId },
      createdAt: new Date().toISOString(),
    };
    expect(await backend.gifts.status("ref-never", sent)).toEqual({ kind: "not_found" });
    // An order placed before recipients' ids were kept falls back to its name: a stranger was never sent to.
    expect(await backend.gifts.status("ref-stranger", { ...sent, recipient: "never_seen", recipientId: null })).toEqual({ kind: "not_found" });
    expect(await backend.gifts.status("ref-never")).toMatchObject({ kind: "unknown" });
    const nowhere = createTelegramBackend({ token: TOKEN, apiRoot: "http://127.0.0.1:19199", timeoutMs: 500, find });
    expect(await nowhere.gifts.status("ref-never", sent)).toMatchObject({ kind: "unknown" });
    await nowhere.close();
    expect(await user.giftsReceived()).toEqual([]);
  });
});
