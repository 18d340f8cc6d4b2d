import { sign } from "@telegram-apps/init-data-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type BotHarness, type Harness, startBotHarness, TEST_BOT_TOKEN } from "../support/harness.js";

// The Mini App's sign-in (issue 21's first piece): Telegram's init data, validated as Telegram documents,
// exchanged for a short-lived session bound to that user; the API key never reaches the browser.

let bots: BotHarness;
let h: Harness;
beforeAll(async () => {
  bots = await startBotHarness(690_000_001, {}, { SUPPORT_CONTACT: "@shop_support", MINIAPP_SESSION_MINUTES: "30" });
  h = bots.h;
});
afterEach(async () => h.assertLedgerInvariant());
afterAll(async () => bots.close());

/** Init data as Telegram makes it for this user, signed with `token`, dated `authDate`. */
const initData = (
  user: { id: number; first_name: string; username?: string; language_code?: string },
  token = TEST_BOT_TOKEN,
  authDate = new Date(),
) => sign({ user: { ...user, is_premium: false } as never, query_id: "AAH" } as never, token, authDate);

const session = (init: string) => h.call("POST", "/miniapp/session", { body: { init_data: init } });
const me = (token: string) => h.call("GET", "/miniapp/me", { headers: { authorization: `Bearer ${token}` } });

describe("Mini App sign-in", () => {
  it("registers a new user from valid init data and answers a session that reads their account, without any key", async () => {
    const signedIn = await session(initData({ id: 690_100_001, first_name: "Mia", username: "mia_m", language_code: "ru" }));
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ success: true, user: { telegram_id: "690100001", username: "mia_m", language: "ru" } });
    expect(JSON.stringify(signedIn.body)).not.toContain("sj_");
    expect(Date.parse(signedIn.body.expires_at) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect((await h.service.core.accounts.byTelegramId("690100001"))?.username).toBe("mia_m");

    await h.service.core.admin.credit("690100001", 7_000_000 as never, "test");
    const mine = await me(signedIn.body.token);
    // With the bot's equivalents: 12,800 UZS a dollar (the default), 5.4 USD a TON (the simulator's).
    expect(mine.body).toEqual({
      success: true,
      telegram_id: "690100001",
      username: "mia_m",
      balance_usdt: 7,
      balance_uzs: 89_600,
      balance_ton: 1.296296,
    });
    const orders = await h.call("GET", "/miniapp/orders?limit=5", { headers: { authorization: `Bearer ${signedIn.body.token}` } });
    expect(orders.body).toEqual({ success: true, count: 0, orders: [] });
    expect((await h.call("GET", "/miniapp/orders?limit=500", { headers: { authorization: `Bearer ${signedIn.body.token}` } })).status).toBe(400);
    expect((await h.call("GET", "/miniapp/orders")).status).toBe(401);
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

  it("tells a blocked user why, with the support contact; refuses missing, forged and expired sessions", async () => {
    const { telegramId } = await h.newKey(0, "690100003");
    await h.service.core.admin.setBlocked(telegramId, true, "test");
    const blocked = await session(initData({ id: 690_100_003, first_name: "Bo" }));
    expect(blocked.status).toBe(403);
    expect(blocked.body.error).toBe("This account is blocked. Contact @shop_support.");

    const { token } = (await session(initData({ id: 690_100_004, first_name: "Al" }))).body;
    expect((await me(token)).status).toBe(200);
    expect((await h.call("GET", "/miniapp/me")).status).toBe(401);
    const [head, payload, mac] = token.split(".");
    const other = Buffer.from(JSON.stringify({ tid: 690_100_001, exp: Date.now() + 3_600_000 })).toString("base64url");
    expect((await me(`${head}.${other}.${mac}`)).status).toBe(401);
    expect((await me(`${head}.${payload}.${"A".repeat(43)}`)).status).toBe(401);
    h.clock.advance(31 * 60_000);
    try {
      expect((await me(token)).status).toBe(401);
    } finally {
      h.clock.reset();
    }
  });
});
