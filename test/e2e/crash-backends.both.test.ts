import type { ChildProcess } from "node:child_process";
import type { Kysely } from "kysely";
import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { simulatedReloadly } from "../../src/simulator/settings.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { unbalancedAccounts } from "../../src/db/ledger.js";
import { openDatabase } from "../../src/db/database.js";
import type { Database } from "../../src/db/schema.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { startSimulator } from "../../src/simulator/server.js";
import { withAdmin } from "../support/admin-core.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { fastEnv } from "../support/fast-env.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, startServiceProcess } from "../support/processes.js";

// kill -9 between the charge and the backend's answer, for the real backends: the bot's sendGift (Telegram keeps no
// reference of ours, so the restarted service finds the gift among the bot's Star transactions) and a Reloadly
// order (found by its customIdentifier). Real processes, the emulator and the simulator over HTTP.

const ROSE = "5168103777563050263";
const BUYER = "434343";

describe("a crash mid-delivery on the real backends", () => {
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let database: TestDatabase | undefined;
  let child: ChildProcess | undefined;
  let nextRecipient = 740_000_001;

  beforeAll(async () => {
    simulator = await startSimulator(0, { timeScale: 0.02 });
    emulator = await startEmulator();
    await new EmulatedStars(emulator.url).setBalance(10_000);
  });
  afterEach(async () => {
    if (child) await kill(child);
    await database?.drop();
  });
  afterAll(async () => {
    await simulator.app.close();
    await emulator.app.close();
  });

  async function startService(port: number): Promise<ChildProcess> {
    const env = {
      DATABASE_URL: database!.url,
      ...database!.env,
      ...fastEnv(simulator.url, 3000),
      ...simulatedReloadly(simulator.url, "sandbox"),
      GIFTS_BACKEND: "telegram",
      STAR_COST_USDT: "0.01",
      GIFTCARDS_BACKEND: "reloadly",
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.url,
      TELEGRAM_API_EMULATOR: "true",
      LOG_LEVEL: "warn",
    };
    return (await startServiceProcess(env, port)).proc;
  }

  /** A fresh database with a credited key, the service on it, and a recipient the bot has seen. */
  async function begin() {
    database = await testDatabase({ migrated: true });
    const db = openDatabase(database.url);
    await migrateToLatest(db);
    const { key } = await withAdmin({ DATABASE_URL: database.url, ...database.env }, async (admin) => {
      const issued = await admin.issueKey(BUYER);
      await admin.credit(BUYER, fromUsdt(100), "test");
      return issued;
    });
    const port = await freePort();
    child = await startService(port);
    const id = nextRecipient++;
    const username = `crash_friend${id}`;
    const recipient = new EmulatedChat(emulator.url, { id, first_name: `Friend ${id}`, username, language_code: "en" });
    await recipient.reply("/start", (t) => t.includes("sj_"));
    return { db, key, port, base: `http://127.0.0.1:${port}`, recipient, username };
  }

  /**
   * Kills the service once the backend holds the call (`reached`), the order waiting on its answer; then restarts it
   * with the order due and old enough.
   */
  async function crashAndRestart(
    s: Awaited<ReturnType<typeof begin>>,
    pending: Promise<unknown>,
    { reached, heal }: { reached: () => Promise<boolean>; heal: () => Promise<unknown> },
  ) {
    const order = await eventually(async () => (await http("GET", `${s.base}/v1/orders`, s.key)).body.orders[0]);
    expect(order.status).toBe("processing");
    await eventually(async () => ((await reached()) ? true : undefined));
    await kill(child!);
    await pending;
    // RECONCILE_AFTER_MS passes while the service is down: written as the time having passed, not waited for.
    const now = Date.now();
    await s.db
      .updateTable("orders")
      .set({ check_after: new Date(now).toISOString(), created_at: new Date(now - 3_500).toISOString() })
      .where("id", "=", order.order_id)
      .execute();
    await heal();
    child = await startService(s.port);
    const settled = await eventually(async () => {
      const row = await s.db.selectFrom("orders").selectAll().where("id", "=", order.order_id).executeTakeFirstOrThrow();
      return row.status === "processing" ? undefined : row;
    }, 30_000);
    const entries = await s.db.selectFrom("ledger_entries").select("kind").where("order_id", "=", order.order_id).execute();
    expect(await unbalancedAccounts(s.db)).toEqual([]);
    const balance = (await http("GET", `${s.base}/v1/balance`, s.key)).body.balance_usdt;
    return { settled, kinds: entries.map((e) => e.kind).sort(), balance };
  }

  /** Reloadly's own report of the transactions made for the one order (its customIdentifier is our reference). */
  async function reloadlyTransactions(db: Kysely<Database>): Promise<unknown[]> {
    const order = await db.selectFrom("orders").select("upstream_ref").executeTakeFirst();
    if (!order) return [];
    const credentials = simulatedReloadly(simulator.url, "sandbox");
    const token = await http("POST", `${credentials.RELOADLY_AUTH_URL}/oauth/token`, undefined, {
      client_id: credentials.RELOADLY_CLIENT_ID,
      client_secret: credentials.RELOADLY_CLIENT_SECRET,
      grant_type: "client_credentials",
      audience: "https://giftcards-sandbox.reloadly.com",
    });
    const report = await request(`${credentials.RELOADLY_GIFTCARDS_URL}/reports/transactions?customIdentifier=${order.upstream_ref}`, {
      headers: { authorization: `Bearer ${token.body.access_token}`, accept: "application/com.reloadly.giftcards-v1+json" },
    });
    const page = (await report.body.json()) as { content: Array<{ customIdentifier: string }> };
    return page.content.filter((t) => t.customIdentifier === order.upstream_ref);
  }

  /** How many sendGift calls the emulator has taken (answered or not). */
  async function sendGiftCalls(): Promise<number> {
    const { calls } = (await http("GET", `${emulator.url}/emulator/calls`)).body as { calls: Array<{ method: string }> };
    return calls.filter((call) => call.method === "sendGift").length;
  }

  async function slow(method: string, ms: number, takesEffect: "at-once" | "when-answered" = "at-once") {
    await http("POST", `${emulator.url}/emulator/slow`, undefined, { method, ms, takes_effect: takesEffect });
  }

  it("completes a gift Telegram sent before the crash, without sending it again", async () => {
    const s = await begin();
    // Telegram sends at once; its answer would come long after the process is gone.
    await slow("sendGift", 60_000, "at-once");
    const pending = http("POST", `${s.base}/v1/gifts`, s.key, { recipient: s.username, gift_id: ROSE }).catch(() => null);
    const reached = async () => (await s.recipient.giftsReceived()).length === 1;
    const { settled, kinds, balance } = await crashAndRestart(s, pending, { reached, heal: () => slow("sendGift", 0) });
    expect(settled).toMatchObject({ status: "completed", refunded: false });
    expect(settled.transaction_id).toMatch(/.+/);
    expect(kinds).toEqual(["charge"]);
    expect(balance).toBe(99.625);
    expect(await s.recipient.giftsReceived()).toHaveLength(1);
    await s.db.destroy();
  });

  it("refunds once a gift Telegram never sent", async () => {
    const s = await begin();
    // The call reaches Telegram, which would only act once it answers: the caller is killed first.
    await slow("sendGift", 60_000, "when-answered");
    const before = await sendGiftCalls();
    const pending = http("POST", `${s.base}/v1/gifts`, s.key, { recipient: s.username, gift_id: ROSE }).catch(() => null);
    const reached = async () => (await sendGiftCalls()) === before + 1;
    const { settled, kinds, balance } = await crashAndRestart(s, pending, { reached, heal: () => slow("sendGift", 0) });
    expect(settled).toMatchObject({ status: "failed", refunded: true });
    expect(kinds).toEqual(["charge", "refund"]);
    expect(balance).toBe(100);
    expect(await s.recipient.giftsReceived()).toEqual([]);
    await s.db.destroy();
  });

  it("completes a Reloadly order placed before the crash from its customIdentifier", async () => {
    const s = await begin();
    const brand = (await http("GET", `${s.base}/v1/giftcards`, s.key)).body.giftcards[0].category_id as string;
    const card = (await http("GET", `${s.base}/v1/giftcards/${brand}/catalogue`, s.key)).body.denominations[0];
    await http("POST", `${simulator.url}/control/faults`, undefined, { provider: "reloadly", mode: "hang_after_accept" });
    const pending = http("POST", `${s.base}/v1/giftcards/${brand}/order`, s.key, { card_id: card.card_id }).catch(() => null);
    const heal = () => http("POST", `${simulator.url}/control/faults`, undefined, { provider: "reloadly", mode: "ok" });
    try {
      const reached = async () => (await reloadlyTransactions(s.db)).length === 1;
      const { settled, kinds } = await crashAndRestart(s, pending, { reached, heal });
      expect(settled).toMatchObject({ status: "completed", refunded: false });
      expect(kinds).toEqual(["charge"]);
      const order = await http("GET", `${s.base}/v1/giftcards/orders/${settled.id}`, s.key);
      expect(order.body.codes).toHaveLength(1);
    } finally {
      await heal();
    }
    await s.db.destroy();
  });
});
