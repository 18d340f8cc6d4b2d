import { request } from "undici";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { openService } from "../../src/root.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/config/simulated-credentials.js";
import { adminCli } from "../support/admin-core.js";
import { type BotHarness, eventually, type Harness, TEST_BOT_TOKEN } from "../support/harness.js";
import { fastEnv } from "../support/fast-env.js";
import { useBotHarness } from "../support/use-harness.js";

// Gifts and Premium sent by the bot go to the Telegram user the order was placed for, and each Star transaction pays
// for one order: on this engine, through the Bot API emulator (renames, a username moved to another user, late
// answers, two identical gifts). The emulator's 🌹 costs 25 stars, priced at 0.375 USDT; 3 months of Premium 1000.

const ADMIN = 760_000_999;
const ROSE = "5168103777563050263";
const BACKENDS = { GIFTS_BACKEND: "telegram", PREMIUM_BACKEND: "telegram", STAR_COST_USDT: "0.01", ALERT_CHECK_INTERVAL_MS: "100" };

let bots: BotHarness;
let h: Harness;
let admin: EmulatedChat;
useBotHarness(760_000_001, { admins: [ADMIN], env: BACKENDS, books: true }, async (started) => {
  bots = started;
  h = started.h;
  await new EmulatedStars(bots.emulatorUrl).setBalance(100_000);
  admin = new EmulatedChat(bots.emulatorUrl, { id: ADMIN, first_name: "Admin", username: "ops_admin_760", language_code: "en" });
});

const control = (path: string, body: unknown) =>
  request(`${bots.emulatorUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) =>
    r.body.json(),
  );

let nextRecipient = 770_000_001;
/** A Telegram user who has written to the bot once, as @friend<id>. */
async function knownRecipient(): Promise<EmulatedChat> {
  const id = nextRecipient++;
  const chat = new EmulatedChat(bots.emulatorUrl, { id, first_name: `Friend ${id}`, username: `friend${id}`, language_code: "en" });
  await chat.reply("/start", (t) => t.includes("sj_"));
  return chat;
}

/** A purchase whose answer Telegram gives only after the service stopped waiting: delivered (`at-once`) or not. */
async function withLateAnswer<T>(method: string, takesEffect: "at-once" | "when-answered", buy: () => Promise<T>): Promise<T> {
  await control("/emulator/slow", { method, ms: 2_500, takes_effect: takesEffect });
  try {
    return await buy();
  } finally {
    await control("/emulator/slow", { method, ms: 0 });
  }
}

const orderRow = (id: number) => h.service.db.selectFrom("orders").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

/** Lets the reconciler ask about the orders placed so far (they are older than any call in flight), until `done`. */
async function reconciled<T>(done: () => Promise<T | undefined>): Promise<T> {
  h.clock.advance(5_000);
  try {
    return await eventually(done);
  } finally {
    h.clock.reset();
  }
}

const giftTo = (key: string, username: string) => h.call("POST", "/v1/gifts", { key, body: { recipient: `@${username}`, gift_id: ROSE } });

describe("a late answer and a rename", () => {
  it("completes a delivered gift whose recipient renamed meanwhile, by the id fixed at the charge", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const placed = await withLateAnswer("sendGift", "at-once", () => giftTo(key, friend.user.username!));
    expect(placed.body.status).toBe("processing");
    expect((await orderRow(placed.body.order_id)).recipient_id).toBe(String(friend.user.id));
    await friend.rename(`renamed${friend.user.id}`);
    const order = await reconciled(async () => {
      const row = await orderRow(placed.body.order_id);
      return row.status === "processing" ? undefined : row;
    });
    expect(order.status).toBe("completed");
    expect(await friend.giftsReceived()).toHaveLength(1);
    expect(await h.balance(key)).toBe(4.625);
  });

  it("completes delivered Premium whose recipient removed their username meanwhile", async () => {
    const { key } = await h.newKey(20);
    const friend = await knownRecipient();
    const placed = await withLateAnswer("giftPremiumSubscription", "at-once", () =>
      h.call("POST", "/v1/premium", { key, body: { username: friend.user.username, months: 3 } }),
    );
    expect(placed.body.status).toBe("processing");
    await friend.rename(null);
    const order = await reconciled(async () => {
      const row = await orderRow(placed.body.order_id);
      return row.status === "processing" ? undefined : row;
    });
    expect(order.status).toBe("completed");
    expect(await friend.giftsReceived()).toMatchObject([{ type: "premium", month_count: 3 }]);
    expect(await h.balance(key)).toBe(8.01);
  });
});

describe("a username that changed hands", () => {
  it("refuses before the charge a name its last holder gave up, corrects the contact, and sends to the new holder once they write", async () => {
    const { key } = await h.newKey(25);
    const before = await knownRecipient();
    const name = before.user.username!;
    await before.rename(`old${before.user.id}`);
    // The name's new holder has not written to the bot: nobody the bot knows holds it now.
    const orders = await h.orderCount();
    const gift = await giftTo(key, name);
    expect(gift.status).toBe(400);
    const premium = await h.call("POST", "/v1/premium", { key, body: { username: name, months: 3 } });
    expect(premium.status).toBe(400);
    expect(await h.orderCount()).toBe(orders);
    expect(await h.balance(key)).toBe(25);
    expect(await before.giftsReceived()).toEqual([]);
    // The contact row now says what Telegram shows.
    const contact = await h.service.db
      .selectFrom("telegram_contacts")
      .selectAll()
      .where("telegram_id", "=", String(before.user.id))
      .executeTakeFirstOrThrow();
    expect(contact.username).toBe(`old${before.user.id}`);
    // Once the new holder writes to the bot, the name is theirs.
    const holder = new EmulatedChat(bots.emulatorUrl, { id: nextRecipient++, first_name: "New holder", username: name, language_code: "en" });
    await holder.reply("/start", (t) => t.includes("sj_"));
    expect((await giftTo(key, name)).status).toBe(201);
    expect(await holder.giftsReceived()).toHaveLength(1);
    expect(await before.giftsReceived()).toEqual([]);
  });
});

describe("one Star transaction, one order", () => {
  it("links a completed gift's transaction later when it could not be read at the send", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    await control("/emulator/refuse", { method: "getStarTransactions", refuse: true });
    let placed;
    try {
      placed = await giftTo(key, friend.user.username!);
    } finally {
      await control("/emulator/refuse", { method: "getStarTransactions", refuse: false });
    }
    expect(placed.body.status).toBe("completed");
    expect((await orderRow(placed.body.order_id)).transaction_id).toBeNull();
    const linked = await eventually(async () => (await orderRow(placed.body.order_id)).transaction_id ?? undefined);
    expect(linked).toMatch(/\S/);
  });

  it("holds, rather than completes, a lost order when an earlier identical gift is completed without its transaction", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const name = friend.user.username!;
    // The first gift is sent and completed, but its Star transaction cannot be read then; the reconciler cannot
    // link it while the second order might be the one that transaction paid for.
    await control("/emulator/refuse", { method: "getStarTransactions", refuse: true });
    let first;
    let second;
    try {
      first = await giftTo(key, name);
      // The second is never sent: Telegram takes it only if the caller still waits, and the service gave up.
      second = await withLateAnswer("sendGift", "when-answered", () => giftTo(key, name));
    } finally {
      await control("/emulator/refuse", { method: "getStarTransactions", refuse: false });
    }
    expect(first.body.status).toBe("completed");
    expect(second.body.status).toBe("processing");
    const held = await reconciled(async () => {
      const row = await orderRow(second.body.order_id);
      return row.held ? row : undefined;
    });
    // Neither completed with the first gift's transaction nor refunded by a guess.
    expect(held).toMatchObject({ status: "processing", transaction_id: null });
    expect(await friend.giftsReceived()).toHaveLength(1);
    expect(await h.balance(key)).toBe(4.25);
    await eventually(async () =>
      (await admin.messages()).find((m) => m.text.includes(`1 order is held`) && m.text.includes(`#${second.body.order_id} (gift)`)),
    );
    // The administrator decides: it was not delivered, so it is refunded, once.
    const listed = await cli("held");
    expect(listed.stdout).toContain(`#${second.body.order_id} gift to @${name}`);
    const decided = await cli("resolve", String(second.body.order_id), "refund");
    expect(decided).toMatchObject({ code: 0, stdout: `order #${second.body.order_id}: refunded 0.375 USDT\n` });
    expect(await h.balance(key)).toBe(4.625);
    expect((await cli("resolve", String(second.body.order_id), "delivered")).code).toBe(1);
    await eventually(async () => (await admin.messages()).find((m) => m.text.includes("No order is held any more")));
  });

  it("holds two lost orders for the same gift to one user when only one was delivered, and each is decided once", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const name = friend.user.username!;
    const sent = await withLateAnswer("sendGift", "at-once", () => giftTo(key, name));
    const lost = await withLateAnswer("sendGift", "when-answered", () => giftTo(key, name));
    expect([sent.body.status, lost.body.status]).toEqual(["processing", "processing"]);
    const rows = await reconciled(async () => {
      const both = await Promise.all([orderRow(sent.body.order_id), orderRow(lost.body.order_id)]);
      return both.every((row) => row.held) ? both : undefined;
    });
    expect(rows.map((row) => row.status)).toEqual(["processing", "processing"]);
    expect(await friend.giftsReceived()).toHaveLength(1);
    await h.service.core.held.resolve(sent.body.order_id, "delivered", "test");
    await h.service.core.held.resolve(lost.body.order_id, "refund", "test");
    expect(await h.balance(key)).toBe(4.625);
  });

  it("never completes a lost gift with a retry's transaction, whichever of the two is read first", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const name = friend.user.username!;
    const lost = await withLateAnswer("sendGift", "when-answered", () => giftTo(key, name));
    expect(lost.body.status).toBe("processing");
    // The buyer asks about the lost order, whose transactions are slow to read, and buys the same gift again meanwhile.
    await control("/emulator/slow", { method: "getStarTransactions", ms: 700 });
    let retry;
    try {
      const polling = h.call("GET", `/v1/orders/${lost.body.order_id}`, { key });
      await new Promise((resolve) => setTimeout(resolve, 150));
      retry = await giftTo(key, name);
      await polling;
    } finally {
      await control("/emulator/slow", { method: "getStarTransactions", ms: 0 });
    }
    expect(retry.body.status).toBe("completed");
    // One gift was delivered: the lost order is held (or refunded), never completed with the retry's transaction.
    const settled = await reconciled(async () => {
      const row = await orderRow(lost.body.order_id);
      return row.held || row.status !== "processing" ? row : undefined;
    });
    expect(settled.status).not.toBe("completed");
    expect(await friend.giftsReceived()).toHaveLength(1);
    if (settled.status === "processing") await h.service.core.held.resolve(lost.body.order_id, "refund", "test");
    expect(await h.balance(key)).toBe(4.625);
  });

  it("lets no two orders hold one transaction", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const a = await giftTo(key, friend.user.username!);
    const b = await giftTo(key, friend.user.username!);
    const taken = (await orderRow(a.body.order_id)).transaction_id!;
    expect(taken).toMatch(/\S/);
    await expect(h.service.db.updateTable("orders").set({ transaction_id: taken }).where("id", "=", b.body.order_id).execute()).rejects.toThrow();
  });
});

/** `npm run admin -- <args>` against this service's database. */
const cli = (...args: string[]) => adminCli({ DATABASE_URL: h.databaseUrl, ...h.databaseEnv }, ...args);

describe("a backend switched while it holds orders", () => {
  /** The harness's settings with some changed, for a service started anew on the same database. */
  const configWith = (changes: Record<string, string | undefined>) =>
    loadConfig({
      DATABASE_URL: h.databaseUrl,
      ...h.databaseEnv,
      ...fastEnv(h.simulatorUrl),
      CRYPTO_PAY_URL: `${h.simulatorUrl}/cryptopay`,
      CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN,
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: bots.emulatorUrl,
      TELEGRAM_API_EMULATOR: "true",
      LOG_LEVEL: "silent",
      ...changes,
    });

  /** The order's final status once a service with gifts back on the protocol has settled it (then closed). */
  async function settledWithGiftsOnProtocol(orderId: number): Promise<string> {
    const switched = await openService(configWith({ GIFTS_BACKEND: "protocol" }), { clock: h.clock });
    await switched.start({ listen: false });
    try {
      h.clock.advance(5_000);
      return await eventually(async () => {
        const found = await switched.db.selectFrom("orders").select("status").where("id", "=", orderId).executeTakeFirstOrThrow();
        return found.status === "processing" ? undefined : found.status;
      });
    } finally {
      h.clock.reset();
      await switched.close();
    }
  }

  it("refuses to start where it cannot reach them, naming the orders, and settles them where they were sent", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const placed = await withLateAnswer("sendGift", "at-once", () => giftTo(key, friend.user.username!));
    expect(placed.body.status).toBe("processing");
    await h.service.close();
    try {
      // Gifts back on the protocol, and no bot: the Telegram backend that took the order cannot be opened.
      await expect(
        openService(configWith({ BOT_TOKEN: undefined, TELEGRAM_API_ROOT: undefined, TELEGRAM_API_EMULATOR: undefined }), { clock: h.clock }),
      ).rejects.toThrow(new RegExp(`gift order\\(s\\) at the telegram backend \\(#${placed.body.order_id}\\)`));
      // With the bot, the order is asked about where it was sent (the protocol's provider never heard of it).
      expect(await settledWithGiftsOnProtocol(placed.body.order_id)).toBe("completed");
    } finally {
      await h.restart();
    }
    expect(await friend.giftsReceived()).toHaveLength(1);
    expect(await h.balance(key)).toBe(4.625);
  });

  it("takes an order open from before backends were recorded as sent to the backend of the first start after", async () => {
    const { key } = await h.newKey(5);
    const friend = await knownRecipient();
    const placed = await withLateAnswer("sendGift", "at-once", () => giftTo(key, friend.user.username!));
    // As the previous version placed it: no backend on the order.
    await h.service.db.updateTable("orders").set({ backend: null }).where("id", "=", placed.body.order_id).execute();
    await h.restart();
    expect((await orderRow(placed.body.order_id)).backend).toBe("telegram");
    expect(h.logs.some((line) => line.includes("orders placed before backends were recorded"))).toBe(true);
    // A later switch asks the backend it was stamped with.
    await h.service.close();
    try {
      expect(await settledWithGiftsOnProtocol(placed.body.order_id)).toBe("completed");
    } finally {
      await h.restart();
    }
    expect(await h.balance(key)).toBe(4.625);
  });
});
