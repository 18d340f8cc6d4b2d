import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { sign } from "@telegram-apps/init-data-node";
import { request } from "undici";
import { beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, type Harness, TEST_BOT_TOKEN } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// The Mini App's server side: Telegram's init data, validated as Telegram documents, exchanged for a short-lived
// session bound to that user (the API key never reaches the browser); the session calls the API's own routes with
// the same limits and reasons, in the user's language; the key and the admin desk take only a session.

const ADMIN = 690_199_999;
let bots: BotHarness;
let h: Harness;
useBotHarness(
  690_000_001,
  {
    admins: [ADMIN],
    env: { SUPPORT_CONTACT: "@shop_support", MINIAPP_SESSION_MINUTES: "30", RATE_LIMIT_PER_MINUTE: "40", ADMIN_CONFIRM_ABOVE_USDT: "100" },
    books: true,
  },
  (started) => {
    bots = started;
    h = started.h;
  },
);

/** Init data as Telegram makes it for this user, signed with `token`, dated `authDate`. */
const initData = (
  user: { id: number; first_name: string; username?: string; language_code?: string },
  token = TEST_BOT_TOKEN,
  authDate = new Date(),
) => sign({ user: { ...user, is_premium: false } as never, query_id: "AAH" } as never, token, authDate);

// Every sign-in from its own address: the sign-in route is limited per address, like every unauthenticated call.
let nextAddress = 1;
const session = (init: string) => h.call("POST", "/miniapp/session", { body: { init_data: init }, remoteAddress: `10.9.0.${nextAddress++}` });
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const me = (token: string) => h.call("GET", "/miniapp/me", { headers: as(token) });
async function signedIn(user: { id: number; first_name: string; username?: string; language_code?: string }): Promise<string> {
  const answer = await session(initData(user));
  expect(answer.status).toBe(200);
  return answer.body.token;
}

describe("Mini App sign-in", () => {
  it("registers a new user from valid init data and answers a session that reads their account through the API, without any key", async () => {
    const signed = await session(initData({ id: 690_100_001, first_name: "Mia", username: "mia_m", language_code: "ru" }));
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ success: true, user: { telegram_id: "690100001", username: "mia_m", language: "ru" } });
    expect(JSON.stringify(signed.body)).not.toContain("sj_");
    expect(Date.parse(signed.body.expires_at) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect((await h.service.core.accounts.byTelegramId("690100001"))?.username).toBe("mia_m");

    await h.service.core.admin.credit("690100001", 7_000_000 as never, "test");
    const token = signed.body.token;
    // With the bot's equivalents: 12,800 UZS a dollar (the default), 5.4 USD a TON (the simulator's).
    expect((await me(token)).body).toEqual({
      success: true,
      telegram_id: "690100001",
      username: "mia_m",
      // Registered in her Telegram language, as /start does.
      language: "ru",
      admin: false,
      key_prefix: null,
      balance_usdt: 7,
      balance_uzs: 89_600,
      balance_ton: 1.296296,
      topup_limits: { min_usdt: 1, max_usdt: 10_000, invoice_minutes: 60 },
      // No STAR_COST_USDT here: Stars top-ups are not offered.
      stars_topup: null,
    });
    expect((await h.call("GET", "/v1/balance", { headers: as(token) })).body).toMatchObject({ balance_usdt: 7 });
    expect((await h.call("GET", "/v1/orders?limit=5", { headers: as(token) })).body).toEqual({ success: true, count: 0, orders: [] });
    expect((await h.call("GET", "/v1/orders?limit=500", { headers: as(token) })).status).toBe(400);
  });

  it("refuses forged, expired and other bots' init data with 401, and registers nobody", async () => {
    const user = { id: 690_100_002, first_name: "Eve" };
    const good = initData(user);
    const forged = good.replace(/hash=[0-9a-f]+/, `hash=${"0".repeat(64)}`);
    const tampered = good.replace("Eve", "Adam");
    const old = initData(user, TEST_BOT_TOKEN, new Date(Date.now() - 2 * 3600_000));
    const otherBot = initData(user, "654321:another-bot-token");
    for (const init of [forged, tampered, old, otherBot, "user=%7B%7D", "nonsense"]) {
      const refused = await session(init);
      expect(refused.status, init.slice(0, 40)).toBe(401);
      expect(refused.body.error).toContain("not valid");
    }
    expect((await session("")).status).toBe(400);
    expect(await h.service.core.accounts.byTelegramId("690100002")).toBeUndefined();
  });

  it("tells a blocked user why in their language, with the support contact; refuses missing, forged and expired sessions", async () => {
    const { telegramId } = await h.newKey(0, "690100003");
    await h.service.core.admin.setBlocked(telegramId, true, "test");
    const blocked = await session(initData({ id: 690_100_003, first_name: "Bo", language_code: "ru" }));
    expect(blocked.status).toBe(403);
    expect(blocked.body.error).toBe("⛔ Ваш аккаунт заблокирован. Обратитесь в поддержку. @shop_support");

    const token = await signedIn({ id: 690_100_004, first_name: "Al" });
    expect((await me(token)).status).toBe(200);
    expect((await h.call("GET", "/miniapp/me")).status).toBe(401);
    const [head, payload, mac] = token.split(".");
    const other = Buffer.from(JSON.stringify({ tid: 690_100_001, exp: Date.now() + 3_600_000 })).toString("base64url");
    expect((await me(`${head}.${other}.${mac}`)).status).toBe(401);
    expect((await me(`${head}.${payload}.${"A".repeat(43)}`)).status).toBe(401);
    expect((await h.call("GET", "/v1/balance", { headers: as(`${head}.${other}.${mac}`) })).status).toBe(401);
    // A session blocked after sign-in stops at once, on the API's routes too.
    await h.service.core.admin.setBlocked("690100004", true, "test");
    expect((await h.call("GET", "/v1/balance", { headers: as(token) })).status).toBe(403);
    await h.service.core.admin.setBlocked("690100004", false, "test");
    h.clock.advance(31 * 60_000);
    try {
      expect((await me(token)).status).toBe(401);
    } finally {
      h.clock.reset();
    }
  });

  it("speaks Telegram's language to a user registered by the CLI who never chose one, as Telegram reports it now; a chosen one wins", async () => {
    // The admin CLI's `key <telegram-id>` registers the user: no language of theirs is known.
    await h.service.core.admin.issueKey("690100005");
    // A client reporting no usable language first (`npm run chat` sent "C."): English, and nothing frozen.
    expect((await me(await signedIn({ id: 690_100_005, first_name: "Вера", language_code: "C." }))).body.language).toBe("en");
    const signed = await session(initData({ id: 690_100_005, first_name: "Вера", language_code: "ru" }));
    expect(signed.body.user.language).toBe("ru");
    expect((await me(signed.body.token)).body.language).toBe("ru");
    // Refusals too: the service's words in Russian.
    const refused = await h.call("POST", "/v1/stars", { headers: as(signed.body.token), body: { username: "alice", stars: 50 } });
    expect(refused.status).toBe(402);
    expect(refused.body.error).toMatch(/[а-я]/);
    expect((await h.service.core.accounts.byTelegramId("690100005"))?.language).toBeNull();
    // Chosen with /language: that one, whatever Telegram says.
    await h.service.core.accounts.setLanguage((await h.service.core.accounts.byTelegramId("690100005"))!.id, "en");
    expect((await me(await signedIn({ id: 690_100_005, first_name: "Вера", language_code: "ru" }))).body.language).toBe("en");
  });
});

describe("the shop through the API's routes", () => {
  it("buys at a binding quote once per idempotency key, and words refusals in the user's language (the API's key in English)", async () => {
    const token = await signedIn({ id: 690_100_011, first_name: "Ru", username: "ru_buyer", language_code: "ru" });
    await h.service.core.accounts.setLanguage((await h.service.core.accounts.byTelegramId("690100011"))!.id, "ru");
    const poor = await h.call("POST", "/v1/stars", { headers: as(token), body: { username: "durov", stars: 50 } });
    expect(poor.status).toBe(402);
    expect(poor.body.error).toMatch(/^Недостаточно средств: нужно 0\.\d+ USDT, на балансе 0\.00 USDT/);
    const { key } = await h.newKey(0);
    expect((await h.call("POST", "/v1/stars", { key, body: { username: "durov", stars: 50 } })).body.error).toBe("Insufficient balance");

    await h.service.core.admin.credit("690100011", 10_000_000 as never, "test");
    const quote = await h.call("POST", "/v1/quotes", { headers: as(token), body: { product_type: "stars", username: "durov", stars: 50 } });
    expect(quote.status).toBe(200);
    const order = { username: "durov", stars: 50, quote_id: quote.body.quote_id, idempotency_key: "tap-1" };
    const [first, second] = await Promise.all([
      h.call("POST", "/v1/stars", { headers: as(token), body: order }),
      h.call("POST", "/v1/stars", { headers: as(token), body: order }),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.body.order_id).toBe(second.body.order_id);
    expect(first.body.usdt_charged).toBe(quote.body.charge_usdt);
    const orders = await h.call("GET", "/v1/orders", { headers: as(token) });
    expect(orders.body.orders.map((o: { order_id: number }) => o.order_id)).toEqual([first.body.order_id]);
    expect((await h.call("GET", "/v1/balance", { headers: as(token) })).body.balance_usdt).toBeCloseTo(10 - quote.body.charge_usdt, 6);
  });

  it("counts the Mini App's requests in a budget of their own, beside the account's key", async () => {
    const { key, telegramId } = await h.newKey(0);
    const token = await signedIn({ id: Number(telegramId), first_name: "Pat" });
    for (let i = 0; i < 40; i++) expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(429);
    for (let i = 0; i < 40; i++) expect((await h.call("GET", "/v1/balance", { headers: as(token) })).status).toBe(200);
    const limited = await h.call("GET", "/v1/balance", { headers: as(token) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe("the purchase forms", () => {
  it("answer the recipient rule the purchases keep and the gift text this backend carries, to a session only", async () => {
    const token = await signedIn({ id: 690_100_051, first_name: "Fay", username: "fay_f" });
    const forms = await h.call("GET", "/miniapp/forms", { headers: as(token) });
    expect(forms.body).toEqual({
      success: true,
      recipient: { pattern: "^@?([A-Za-z0-9_]{3,32})$", min_length: 3, max_length: 32 },
      // The protocol's backend names the buyer itself and carries the contract's 255 characters.
      gift: { message_max: 255, names_buyer: true },
    });
    // What the pattern takes is what a purchase takes: a name too short for it is refused by the purchase too.
    const pattern = new RegExp(forms.body.recipient.pattern);
    expect(pattern.exec("@bob_b")?.[1]).toBe("bob_b");
    expect(pattern.test("ab")).toBe(false);
    const short = await h.call("POST", "/v1/gifts", { headers: as(token), body: { recipient: "ab", gift_id: "5168103777563050263" } });
    expect(short.status).toBe(400);
    expect(short.body.error).toContain("3 to 32 letters");
    expect((await h.call("GET", "/miniapp/forms")).status).toBe(401);
  });
});

describe("the key", () => {
  it("issues a new key shown once (the old one stops), and takes only a session, never a key", async () => {
    const { key, telegramId } = await h.newKey(3);
    const kay = { id: Number(telegramId), first_name: "Kay" };
    const token = await signedIn(kay);
    expect((await h.call("POST", "/miniapp/key", { key, body: { init_data: initData(kay) } })).status).toBe(401);
    expect((await h.call("GET", "/miniapp/me", { key })).status).toBe(401);
    const rotated = await h.call("POST", "/miniapp/key", { headers: as(token), body: { init_data: initData(kay) } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).toMatch(/^sj_[A-Za-z0-9_-]{43}$/);
    expect(rotated.body.key.startsWith(rotated.body.key_prefix)).toBe(true);
    expect(rotated.body.previous_key_expires_at).toBeNull();
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(401);
    expect((await h.call("GET", "/v1/balance", { key: rotated.body.key })).body.balance_usdt).toBe(3);
    // The rotation ended the session it came from too; the page goes on with the one the answer carries.
    expect((await me(token)).status).toBe(401);
    expect((await me(rotated.body.session.token)).body.key_prefix).toBe(rotated.body.key_prefix);
  });

  it("keeps the old key for the grace chosen, shows its end, ends it at once on request, and refuses a grace past 7 days", async () => {
    const { key, telegramId } = await h.newKey(2);
    const gus = { id: Number(telegramId), first_name: "Gus" };
    const token = await signedIn(gus);
    for (const grace_hours of [169, -1, 1.5, "24"]) {
      const refused = await h.call("POST", "/miniapp/key", { headers: as(token), body: { init_data: initData(gus), grace_hours } });
      expect(refused.status, String(grace_hours)).toBe(400);
      expect(refused.body.error).toContain("grace_hours");
    }
    expect((await me(token)).status).toBe(200);
    const rotated = await h.call("POST", "/miniapp/key", { headers: as(token), body: { init_data: initData(gus), grace_hours: 24 } });
    expect(rotated.status).toBe(200);
    const ends = Date.parse(rotated.body.previous_key_expires_at) - h.clock.now().getTime();
    expect(ends).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(ends).toBeLessThanOrEqual(24 * 3_600_000);
    expect(await h.balance(key)).toBe(2);
    const page = as(rotated.body.session.token);
    const keys = await h.call("GET", "/v1/keys", { headers: page });
    expect(keys.body).toEqual({
      success: true,
      key_prefix: rotated.body.key_prefix,
      previous_keys: [{ key_prefix: key.slice(0, 11), expires_at: rotated.body.previous_key_expires_at }],
    });
    const ended = await h.call("DELETE", "/v1/keys/previous", { headers: page });
    expect(ended.body.previous_keys).toEqual([]);
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(401);
    expect((await h.call("GET", "/v1/balance", { key: rotated.body.key })).body.balance_usdt).toBe(2);
  });

  it("mints a key only with init data of the session's own user from the last 5 minutes, and changes nothing otherwise", async () => {
    const { key, telegramId } = await h.newKey(2);
    const kim = { id: Number(telegramId), first_name: "Kim" };
    const token = await signedIn(kim);
    const other = await signedIn(kim);
    const mint = (body: unknown) => h.call("POST", "/miniapp/key", { headers: as(token), body });
    // No init data, stale init data (a session's hour, not the key's 5 minutes), someone else's, forged, another bot's.
    const refusals: Array<[unknown, number]> = [
      [{}, 400],
      [{ init_data: "" }, 400],
      [{ init_data: initData(kim, TEST_BOT_TOKEN, new Date(Date.now() - 6 * 60_000)) }, 401],
      [{ init_data: initData({ id: 690_100_099, first_name: "Mallory" }) }, 401],
      [{ init_data: initData(kim).replace(/hash=[0-9a-f]+/, `hash=${"0".repeat(64)}`) }, 401],
      [{ init_data: initData(kim, "654321:another-bot-token") }, 401],
    ];
    for (const [body, status] of refusals) {
      const refused = await mint(body);
      expect(refused.status, JSON.stringify(body).slice(0, 60)).toBe(status);
      expect(JSON.stringify(refused.body)).not.toContain("sj_");
    }
    expect((await mint({ init_data: initData(kim, TEST_BOT_TOKEN, new Date(Date.now() - 6 * 60_000)) })).body.error).toContain("5 minutes");
    // Nothing changed: the key works, both sessions too.
    expect(await h.balance(key)).toBe(2);
    expect((await me(token)).status).toBe(200);
    expect((await me(other)).status).toBe(200);

    const minted = await mint({ init_data: initData(kim, TEST_BOT_TOKEN, new Date(Date.now() - 4 * 60_000)) });
    expect(minted.status).toBe(200);
    expect((await h.call("GET", "/v1/balance", { key: minted.body.key })).body.balance_usdt).toBe(2);
    // Every other session of the account ended with the old key.
    expect((await me(other)).status).toBe(401);
    expect((await h.call("GET", "/v1/balance", { headers: as(other) })).status).toBe(401);
  });

  it("ends every session when the key is rotated from any face (the bot's and the CLI's core calls), or the account blocked or unblocked", async () => {
    const { telegramId } = await h.newKey(1);
    const lee = { id: Number(telegramId), first_name: "Lee" };
    const [first, second] = [await signedIn(lee), await signedIn(lee)];
    // The bot's "New API key" and /start call accounts.issueKey; the CLI's `key` calls admin.issueKey.
    await h.service.core.accounts.issueKey(telegramId, null);
    for (const token of [first, second]) {
      expect((await me(token)).status).toBe(401);
      expect((await h.call("GET", "/v1/orders", { headers: as(token) })).status).toBe(401);
    }
    const third = await signedIn(lee);
    expect((await me(third)).status).toBe(200);
    await h.service.core.admin.issueKey(telegramId);
    expect((await me(third)).status).toBe(401);

    const fourth = await signedIn(lee);
    await h.service.core.admin.setBlocked(telegramId, true, "test");
    expect((await me(fourth)).status).toBe(403);
    await h.service.core.admin.setBlocked(telegramId, false, "test");
    // Unblocked, the user signs in again: a session from before the block does not come back.
    expect((await me(fourth)).status).toBe(401);
    expect((await me(await signedIn(lee))).body.balance_usdt).toBe(1);
  });
});

describe("the page and sign-in's limit", () => {
  it("never limits the page and its assets, while sign-in from the same address keeps its limit", async () => {
    const address = "10.9.9.9";
    const page = await h.call("GET", "/app/", { remoteAddress: address });
    expect(page.status).toBe(200);
    const assets = [...String(page.body).matchAll(/\/app\/assets\/[\w.-]+\.(?:js|css)/g)].map(([path]) => path);
    expect(assets.length).toBeGreaterThan(0);
    for (let i = 0; i < 70; i++) {
      for (const url of ["/app/", ...assets]) expect((await h.call("GET", url, { remoteAddress: address })).status, `${url} #${i}`).toBe(200);
    }
    // Sign-in from that address still has all of its 40 a minute, and not one more.
    const user = { id: 690_100_031, first_name: "Lim" };
    for (let i = 0; i < 40; i++) {
      const signed = await h.call("POST", "/miniapp/session", { body: { init_data: initData(user) }, remoteAddress: address });
      expect(signed.status, `sign-in #${i + 1}`).toBe(200);
    }
    const limited = await h.call("POST", "/miniapp/session", { body: { init_data: initData(user) }, remoteAddress: address });
    expect(limited.status).toBe(429);
    expect((await h.call("GET", "/app/", { remoteAddress: address })).status).toBe(200);
  });
});

describe("the admin desk", () => {
  it("is closed to everyone but the administrators, telling them so (not that their account is blocked)", async () => {
    const token = await signedIn({ id: 690_100_021, first_name: "Nat" });
    for (const [method, url, body] of [
      ["GET", "/miniapp/admin/overview", undefined],
      ["GET", "/miniapp/admin/users?target=690100021", undefined],
      ["POST", "/miniapp/admin/users/690100021/balance", { direction: "credit", amount_usdt: 5 }],
      ["POST", "/miniapp/admin/users/690100021/block", { blocked: false }],
    ] as const) {
      const refused = await h.call(method, url, { headers: as(token), ...(body ? { body } : {}) });
      expect(refused.status, url).toBe(403);
      expect(refused.body, url).toEqual({
        success: false,
        error: "⛔ Only the service's administrators can do this, and you are not one.",
        error_code: "forbidden",
      });
    }
    // In Russian for a Russian user; their account works all along.
    const ru = await signedIn({ id: 690_100_022, first_name: "Нина", language_code: "ru" });
    expect((await h.call("GET", "/miniapp/admin/overview", { headers: as(ru) })).body.error).toBe(
      "⛔ Это могут только администраторы сервиса, а вы не администратор.",
    );
    expect((await me(ru)).status).toBe(200);
    expect((await h.call("GET", "/v1/balance", { headers: as(ru) })).status).toBe(200);
    expect(await h.service.core.accounts.available((await h.service.core.accounts.byTelegramId("690100021"))!)).toBe(0);
    expect((await me(token)).body.admin).toBe(false);
  });

  it("finds a user, credits and debits them (confirmed above the threshold), blocks them, and tells them each time", async () => {
    const admin = await signedIn({ id: ADMIN, first_name: "Ann", username: "ann_admin" });
    expect((await me(admin)).body.admin).toBe(true);
    const user = await bots.registered(0, { username: "desk_user" });
    const found = await h.call("GET", "/miniapp/admin/users?target=%40desk_user", { headers: as(admin) });
    expect(found.body).toMatchObject({ telegram_id: user.telegramId, username: "desk_user", blocked: false, balance_usdt: 0, orders: [] });
    expect(found.body.key_prefix).toBe(user.key.slice(0, found.body.key_prefix.length));
    expect((await h.call("GET", "/miniapp/admin/users?target=%40nobody_here", { headers: as(admin) })).status).toBe(404);

    const url = `/miniapp/admin/users/${user.telegramId}/balance`;
    const credited = await h.call("POST", url, { headers: as(admin), body: { direction: "credit", amount_usdt: 25, note: "welcome" } });
    expect(credited.body).toEqual({ success: true, balance_usdt: 25 });
    await user.chat.next((t) => t.includes("topped up by 25"));
    const big = await h.call("POST", url, { headers: as(admin), body: { direction: "credit", amount_usdt: 150 } });
    expect(big.status).toBe(400);
    // The core's refusal, in the bot's words for it.
    expect(big.body.error).toBe("That move is above the confirmation threshold (100.00 USDT): it needs a confirmation first. Nothing changed.");
    expect(await h.balance(user.key)).toBe(25);
    expect(
      (await h.call("POST", url, { headers: as(admin), body: { direction: "credit", amount_usdt: 150, confirmed: true } })).body.balance_usdt,
    ).toBe(175);
    expect((await h.call("POST", url, { headers: as(admin), body: { direction: "debit", amount_usdt: 75 } })).body.balance_usdt).toBe(100);
    await user.chat.next((t) => t.includes("took 75"));
    const ledger = await h.call("GET", "/v1/ledger", { key: user.key });
    expect(ledger.body.entries.map((e: { kind: string; amount_usdt: number }) => [e.kind, e.amount_usdt])).toEqual([
      ["debit", -75],
      ["credit", 150],
      ["credit", 25],
    ]);
    expect((await h.call("POST", url, { headers: as(admin), body: { direction: "debit", amount_usdt: 101 } })).status).toBe(400);

    const blocked = await h.call("POST", `/miniapp/admin/users/${user.telegramId}/block`, { headers: as(admin), body: { blocked: true } });
    expect(blocked.body).toEqual({ success: true, blocked: true });
    expect((await h.call("GET", "/v1/balance", { key: user.key })).status).toBe(403);
    await user.chat.next((t) => t.includes("blocked your account"));
    await h.call("POST", `/miniapp/admin/users/${user.telegramId}/block`, { headers: as(admin), body: { blocked: false } });
    expect(await h.balance(user.key)).toBe(100);
  });

  it("refuses an administrator blocking their own account, in the bot's words, and changes nothing", async () => {
    const admin = await signedIn({ id: ADMIN, first_name: "Ann" });
    const own = await h.call("POST", `/miniapp/admin/users/${ADMIN}/block`, { headers: as(admin), body: { blocked: true } });
    expect(own.status).toBe(400);
    expect(own.body.error).toBe("An administrator cannot block their own account: nothing changed.");
    expect((await h.service.core.accounts.byTelegramId(String(ADMIN)))!.blocked).toBe(false);
    expect((await me(admin)).body.admin).toBe(true);
  });

  it("shows the day's volume and the transfers waiting, and approves one exactly once", async () => {
    const admin = await signedIn({ id: ADMIN, first_name: "Ann" });
    const user = await bots.registered(5);
    await h.call("POST", "/v1/stars", { key: user.key, body: { username: "durov", stars: 50 } });
    const asked = await h.call("POST", "/v1/topups", { key: user.key, body: { amount_usdt: 40, method: "transfer", reference: "tx 0xabc" } });
    const id = asked.body.topup.topup_id;

    const overview = (await h.call("GET", "/miniapp/admin/overview", { headers: as(admin) })).body;
    expect(overview.today).toContainEqual(expect.objectContaining({ product: "stars", status: "completed" }));
    const today = new Date().toISOString().slice(0, 10);
    expect(overview.days).toContainEqual(expect.objectContaining({ day: today, product: "stars", status: "completed" }));
    expect(overview.upstreams).toMatchObject({ stars: true, premium: true, store: true });
    expect(overview.confirm_above_usdt).toBe(100);
    expect(overview.pending_transfers).toContainEqual(
      expect.objectContaining({
        telegram_id: user.telegramId,
        topup: expect.objectContaining({ topup_id: id, amount_usdt: 40, reference: "tx 0xabc" }),
      }),
    );

    const decide = (body: object) => h.call("POST", `/miniapp/admin/topups/${id}/decision`, { headers: as(admin), body });
    expect((await decide({ approve: false })).status).toBe(400);
    const [a, b] = await Promise.all([decide({ approve: true }), decide({ approve: true })]);
    expect([a.body.decided, b.body.decided].sort()).toEqual([false, true]);
    expect(a.body.topup).toMatchObject({ status: "credited", credited_usdt: 40 });
    await user.chat.next((t) => t.includes("Top-up credited: +40.00 USDT"));
    expect(await h.balance(user.key)).toBeCloseTo(45 - (await h.call("GET", "/v1/orders", { key: user.key })).body.orders[0].usdt_charged, 6);
    const after = (await h.call("GET", "/miniapp/admin/overview", { headers: as(admin) })).body;
    expect(after.pending_transfers.map((p: { topup: { topup_id: number } }) => p.topup.topup_id)).not.toContain(id);
  });

  it("flags a reference used before and an amount above the threshold; approving either needs confirmed: true", async () => {
    const admin = await signedIn({ id: ADMIN, first_name: "Ann" });
    const [first, second] = [await bots.registered(0), await bots.registered(0)];
    const transfer = async (key: string, amount: number, reference: string) =>
      (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: amount, method: "transfer", reference } })).body.topup.topup_id;
    const decide = (id: number, body: object) => h.call("POST", `/miniapp/admin/topups/${id}/decision`, { headers: as(admin), body });
    const pending = async (id: number) =>
      (await h.call("GET", "/miniapp/admin/overview", { headers: as(admin) })).body.pending_transfers.find(
        (p: { topup: { topup_id: number } }) => p.topup.topup_id === id,
      );

    const original = await transfer(first.key, 40, "bank tx 7781");
    expect((await pending(original)).confirm).toEqual([]);
    expect((await decide(original, { approve: true })).body.decided).toBe(true);

    // The same reference from another account, spelled differently: flagged with the first, and refused unconfirmed.
    const copy = await transfer(second.key, 40, "Bank TX-7781");
    expect(await pending(copy)).toMatchObject({
      confirm: ["reference_reused"],
      reference_used_by: [{ topup_id: original, status: "credited", telegram_id: first.telegramId, amount_usdt: 40 }],
    });
    const refused = await decide(copy, { approve: true });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("needs a confirmation");
    expect(await h.balance(second.key)).toBe(0);
    expect((await decide(copy, { approve: true, confirmed: true })).body).toMatchObject({ decided: true, topup: { status: "credited" } });
    expect(await h.balance(second.key)).toBe(40);

    // Above ADMIN_CONFIRM_ABOVE_USDT (100 here), as a direct credit is.
    const large = await transfer(first.key, 10_000, "wire 10k");
    expect((await pending(large)).confirm).toEqual(["above_threshold"]);
    expect((await decide(large, { approve: true })).status).toBe(400);
    expect(await h.balance(first.key)).toBe(40);
    expect((await decide(large, { approve: true, confirmed: true })).body.decided).toBe(true);
    expect(await h.balance(first.key)).toBe(10_040);
  });
});

// The page and its assets compressed as the build compressed them (brotli, else gzip, by Accept-Encoding), as they
// are to a client that takes neither; the hashed assets cached for a year, the page revalidated. The Mini App as
// built (by the global setup):
const BUILT = join(process.cwd(), "dist", "web");

/** The page's own script and style, as the built page names them. */
function pageAssets(): string[] {
  const page = readFileSync(join(BUILT, "index.html"), "utf8");
  return [...page.matchAll(/\/app\/(assets\/[\w.-]+\.(?:js|css))/g)].map(([, path]) => path);
}

// What Chromium sends (Telegram's webviews on Android and Desktop), and a client that knows only gzip.
const CHROMIUM = { "accept-encoding": "gzip, deflate, br, zstd" };
const GZIP_ONLY = { "accept-encoding": "gzip" };
const YEAR = "public, max-age=31536000, immutable";

describe("the page and its assets as sent", () => {
  // Over HTTP, as a browser gets them from the service itself.
  let base: string;
  beforeAll(async () => {
    base = await h.api.listen({ host: "127.0.0.1", port: 0 });
  });

  /** A GET with these request headers; undici leaves the body as it came (it decodes nothing). */
  async function get(path: string, headers: Record<string, string> = {}) {
    const answer = await request(`${base}${path}`, { headers });
    return { status: answer.statusCode, headers: answer.headers, body: Buffer.from(await answer.body.arrayBuffer()) };
  }

  it("sends every script and style brotli-compressed to a browser, gzip to a gzip-only client, as it is to one that takes neither; cached for a year", async () => {
    const assets = pageAssets();
    expect(assets.some((path) => path.endsWith(".js"))).toBe(true);
    expect(assets.some((path) => path.endsWith(".css"))).toBe(true);
    // The Lottie player too, loaded later by the page's script.
    const all = readdirSync(join(BUILT, "assets"))
      .filter((name) => /\.(js|css)$/.test(name))
      .map((name) => `assets/${name}`);
    expect(all.length).toBeGreaterThan(assets.length);
    for (const path of all) {
      const file = readFileSync(join(BUILT, path));
      // Fingerprinted: the name carries a hash of the content.
      expect(path, "a hashed name").toMatch(/-[\w-]{8,}\.(js|css)$/);
      const type = path.endsWith(".js") ? "application/javascript; charset=utf-8" : "text/css; charset=utf-8";

      const brotli = await get(`/app/${path}`, CHROMIUM);
      expect(brotli.status, path).toBe(200);
      expect(brotli.headers, path).toMatchObject({ "content-encoding": "br", "content-type": type, "cache-control": YEAR });
      expect(String(brotli.headers.vary).toLowerCase(), path).toContain("accept-encoding");
      expect(Number(brotli.headers["content-length"]), path).toBe(brotli.body.length);
      expect(brotli.body.length, `${path}: at most 40 % of its ${file.length} bytes`).toBeLessThan(file.length * 0.4);
      expect(brotliDecompressSync(brotli.body).equals(file), `${path}, brotli, decompressed`).toBe(true);

      const gzip = await get(`/app/${path}`, GZIP_ONLY);
      expect(gzip.headers, path).toMatchObject({ "content-encoding": "gzip", "content-type": type, "cache-control": YEAR });
      expect(String(gzip.headers.vary).toLowerCase(), path).toContain("accept-encoding");
      expect(gzip.body.length, path).toBeLessThan(file.length * 0.4);
      expect(gunzipSync(gzip.body).equals(file), `${path}, gzip, decompressed`).toBe(true);

      for (const headers of [{}, { "accept-encoding": "identity" }, { "accept-encoding": "deflate" }] as Record<string, string>[]) {
        const plain = await get(`/app/${path}`, headers);
        expect(plain.headers["content-encoding"], `${path} ${JSON.stringify(headers)}`).toBeUndefined();
        expect(plain.headers, path).toMatchObject({ "content-type": type, "cache-control": YEAR });
        expect(String(plain.headers.vary).toLowerCase(), path).toContain("accept-encoding");
        expect(plain.body.equals(file), `${path} ${JSON.stringify(headers)}`).toBe(true);
      }
    }
  });

  it("sends the page compressed too, never cached without asking, answering 304 to a copy it still holds", async () => {
    const file = readFileSync(join(BUILT, "index.html"));
    for (const [headers, encoding, decode] of [
      [CHROMIUM, "br", brotliDecompressSync],
      [GZIP_ONLY, "gzip", gunzipSync],
      [{}, undefined, (body: Buffer) => body],
    ] as const) {
      const page = await get("/app/", headers);
      expect(page.status).toBe(200);
      expect(page.headers).toMatchObject({ "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" });
      expect(page.headers["content-encoding"]).toBe(encoding);
      expect(String(page.headers.vary).toLowerCase()).toContain("accept-encoding");
      expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
      expect(decode(page.body).equals(file)).toBe(true);
      // Validators: the browser asks again each open, and a copy it holds costs no body.
      expect(page.headers.etag).toBeTruthy();
      expect(page.headers["last-modified"]).toBeTruthy();
      const again = await get("/app/", { ...headers, "if-none-match": String(page.headers.etag) });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
  });
});
