import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { openCore } from "../../src/root.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";
import { topupLedger } from "../support/stars.js";

// kill -9 between Telegram's checkout and the credit, on this engine, with the service as a real process polling
// the Bot API emulator: the successful_payment stored in the inbox but not handled; Telegram told the answer but
// the update not fetched yet; the update lost entirely. After a restart each payment is credited exactly once. Where
// the update must be the one that credits, the bot's Star transactions are refused at Telegram meanwhile (the
// scheduled look cannot credit it first), then allowed, and the look credits nothing more.

const STAR_MICRO = 10_000; // STAR_COST_USDT 0.01
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let stars: EmulatedStars;
let database: TestDatabase;
let core: Awaited<ReturnType<typeof openCore>>["service"];
let service: ServiceProcess | undefined;
let port: number;
let nextPayer = 782_000_001;

const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: database.url,
  ...database.env,
  BOT_TOKEN: TEST_BOT_TOKEN,
  TELEGRAM_API_ROOT: emulator.url,
  TELEGRAM_API_EMULATOR: "true",
  STAR_COST_USDT: "0.01",
  BOT_INBOX_LEASE_MS: "2000",
  TOPUP_POLL_MS: "600000",
  // The bot needs no provider here: an embedded simulator on a free port.
  SIMULATOR_PORT: "0",
  LOG_LEVEL: "warn",
  ...extra,
});

beforeAll(async () => {
  emulator = await startEmulator();
  stars = new EmulatedStars(emulator.url);
  database = await testDatabase();
  port = await freePort();
  // The test's own core on the same database (as the admin CLI opens it): it makes the invoices and reads back.
  ({ service: core } = await openCore(loadConfig({ ...env(), UPSTREAM: "external" })));
  // A top-up never paid: while one is open, every look reads all the bot's transactions since it was made, so a
  // look after a credit does see the payment again.
  const bystander = await payer();
  await core.core.topups.starsLink(await bystander.account(), 100);
});
afterEach(async () => {
  if (service) await kill(service.proc);
  service = undefined;
  await assertBooks(core.db);
});
afterAll(async () => {
  await core?.close();
  await database?.drop();
  await emulator?.app.close();
});

const start = async (extra: Record<string, string> = {}) => {
  service = await startServiceProcess(env(extra), port, true);
  return service;
};

async function payer() {
  const id = nextPayer++;
  await core.core.admin.issueKey(String(id));
  const chat = new EmulatedChat(emulator.url, { id, first_name: `Payer${id}`, language_code: "en" });
  const account = async () => (await core.core.accounts.byTelegramId(String(id)))!;
  return { chat, id: String(id), account, balance: async () => (await account()).balanceMicro };
}

/** The payer's successful_payment in the inbox: stored (or not), handled (or not). */
async function paymentInInbox(chat: string) {
  return core.db
    .selectFrom("bot_inbox")
    .select(["update_id", "done_at"])
    .where("chat", "=", chat)
    .where("payload", "like", "%successful_payment%")
    .executeTakeFirst();
}

const refuse = (method: string, refused: boolean) => http("POST", `${emulator.url}/emulator/refuse`, undefined, { method, refuse: refused });
const slow = (method: string, ms: number, takesEffect: "at-once" | "when-answered") =>
  http("POST", `${emulator.url}/emulator/slow`, undefined, { method, ms, takes_effect: takesEffect });
const calls = async (method: string) =>
  ((await http("GET", `${emulator.url}/emulator/calls`)).body.calls as Array<{ method: string }>).filter((c) => c.method === method).length;
const late = async () => ((await http("GET", `${emulator.url}/emulator/late`)).body.waiting_ms as number[]).length;

/** Two full looks at the bot's Star transactions after now (the first may have begun before): each reads them all. */
async function twoLooks() {
  const before = await calls("getStarTransactions");
  await eventually(async () => ((await calls("getStarTransactions")) >= before + 2 ? true : undefined), 20_000);
}

/** Credited once: one credit in the ledger, the charge on the top-up, one payment in the Star book. */
async function creditedOnce(topupId: number, count: number, chargeId: string) {
  expect(await topupLedger(core.db, topupId)).toEqual([["topup", count * STAR_MICRO]]);
  const topup = await core.db.selectFrom("topups").select(["status", "charge_id"]).where("id", "=", topupId).executeTakeFirstOrThrow();
  expect(topup).toEqual({ status: "credited", charge_id: chargeId });
  const book = await core.db.selectFrom("star_book").select(["kind", "stars"]).where("transaction_id", "=", chargeId).execute();
  expect(book.map((e) => [e.kind, Number(e.stars)])).toEqual([["payment", count]]);
}

describe("kill -9 between the checkout and the credit", () => {
  it("the successful_payment stored in the inbox, not handled: credited once by the restarted service", async () => {
    await start();
    const p = await payer();
    // The payer's chat is busy: the bot's answer to their message is held at Telegram (and never sent, if its
    // caller dies), so the payment's update waits in the inbox behind it.
    await slow("sendMessage", 30_000, "when-answered");
    try {
      await p.chat.say("hello");
      await eventually(async () => ((await late()) >= 1 ? true : undefined));
      const { topup, link } = await core.core.topups.starsLink(await p.account(), 300);
      const attempt = await p.chat.pay(link);
      expect(attempt).toMatchObject({ status: "paid", delivered: "once" });
      await eventually(async () => ((await paymentInInbox(p.id)) ? true : undefined));
      expect((await paymentInInbox(p.id))!.done_at).toBeNull();
      expect(await p.balance()).toBe(0);

      await kill(service!.proc);
      await slow("sendMessage", 0, "at-once");
      await refuse("getStarTransactions", true);
      await start({ TOPUP_POLL_MS: "300" });
      // Taken over once the killed instance's lease lapsed: the message first, then the payment.
      await eventually(async () => ((await p.balance()) === 3_000_000 ? true : undefined), 20_000);
      await eventually(async () => ((await paymentInInbox(p.id))!.done_at !== null ? true : undefined));
      await refuse("getStarTransactions", false);
      await twoLooks();
      expect(await p.balance()).toBe(3_000_000);
      await creditedOnce(topup.id, 300, attempt.telegram_payment_charge_id!);
    } finally {
      await slow("sendMessage", 0, "at-once");
      await refuse("getStarTransactions", false);
    }
  }, 90_000);

  it("the checkout answered, the successful_payment not fetched yet: credited once by the restarted service", async () => {
    await start();
    const p = await payer();
    // The bot is listening: a fetch asked after its answer to the payer's message waits at Telegram for updates.
    await p.chat.say("hello");
    await eventually(async () => {
      const all = (await http("GET", `${emulator.url}/emulator/calls`)).body.calls as Array<{ method: string; payload: { chat_id?: unknown } }>;
      const reply = all.findIndex((c) => c.method === "sendMessage" && Number(c.payload.chat_id) === Number(p.id));
      return reply >= 0 && all.slice(reply).some((c) => c.method === "getUpdates") ? true : undefined;
    });
    // Its next fetch, after the pre-checkout, is held at Telegram: the answer goes out, the payment completes, and
    // the successful_payment stays at Telegram, unfetched.
    await slow("getUpdates", 30_000, "when-answered");
    try {
      const { topup, link } = await core.core.topups.starsLink(await p.account(), 250);
      const attempt = await p.chat.pay(link);
      expect(attempt).toMatchObject({ status: "paid", delivered: "once" });
      expect(await paymentInInbox(p.id)).toBeUndefined();

      await kill(service!.proc);
      await slow("getUpdates", 0, "at-once");
      await refuse("getStarTransactions", true);
      await start({ TOPUP_POLL_MS: "300" });
      // The unconfirmed updates are fetched again: the pre-checkout (answered again, in vain) and the payment.
      await eventually(async () => ((await p.balance()) === 2_500_000 ? true : undefined), 20_000);
      await eventually(async () => ((await paymentInInbox(p.id))!.done_at !== null ? true : undefined));
      await refuse("getStarTransactions", false);
      await twoLooks();
      expect(await p.balance()).toBe(2_500_000);
      await creditedOnce(topup.id, 250, attempt.telegram_payment_charge_id!);
    } finally {
      await slow("getUpdates", 0, "at-once");
      await refuse("getStarTransactions", false);
    }
  }, 90_000);

  it("the successful_payment lost entirely: the restarted service credits it once from the bot's transactions", async () => {
    await start();
    const p = await payer();
    await stars.nextDelivery("dropped");
    const { topup, link } = await core.core.topups.starsLink(await p.account(), 120);
    const attempt = await p.chat.pay(link);
    expect(attempt).toMatchObject({ status: "paid", delivered: "dropped" });
    await kill(service!.proc);
    expect(await p.balance()).toBe(0);

    await start({ TOPUP_POLL_MS: "300" });
    await eventually(async () => ((await p.balance()) === 1_200_000 ? true : undefined), 20_000);
    await twoLooks();
    expect(await p.balance()).toBe(1_200_000);
    expect(await paymentInInbox(p.id)).toBeUndefined();
    await creditedOnce(topup.id, 120, attempt.telegram_payment_charge_id!);
  }, 90_000);
});
