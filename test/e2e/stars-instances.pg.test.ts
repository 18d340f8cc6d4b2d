import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { openCore } from "../../src/root.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";
import { topupLedger } from "../support/stars.js";

// PostgreSQL only: two service processes on one database, one polling the Bot API emulator, both handling the
// bot's inbox and both running the scheduled look at the bot's Star transactions. A successful_payment delivered
// twice, and payments whose update one instance handles while both look at the transactions every 50 ms (and
// payments whose update was lost, which only the two looks find, side by side): each credited exactly once.

const STAR_MICRO = 10_000; // STAR_COST_USDT 0.01
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let stars: EmulatedStars;
let database: TestDatabase | undefined;
let core: Awaited<ReturnType<typeof openCore>>["service"] | undefined;
const running: ServiceProcess[] = [];
let nextPayer = 783_000_001;

afterEach(async () => {
  for (const instance of running.splice(0)) await kill(instance.proc);
  if (core) await assertBooks(core.db);
  await core?.close();
  await database?.drop();
  core = undefined;
  database = undefined;
  await emulator?.app.close();
});

/** A fresh Telegram and database, the test's own core on it (it makes the invoices), and two instances of the service. */
async function twoInstances(pollMs: number) {
  emulator = await startEmulator();
  stars = new EmulatedStars(emulator.url);
  database = await testDatabase();
  const env = {
    DATABASE_URL: database.url,
    ...database.env,
    BOT_TOKEN: TEST_BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.url,
    TELEGRAM_API_EMULATOR: "true",
    STAR_COST_USDT: "0.01",
    TOPUP_POLL_MS: String(pollMs),
    SIMULATOR_PORT: "0",
    LOG_LEVEL: "info",
  };
  ({ service: core } = await openCore(loadConfig({ ...env, UPSTREAM: "external", LOG_LEVEL: "warn" })));
  const instances = await Promise.all([freePort(), freePort()].map(async (port) => startServiceProcess(env, await port, true)));
  running.push(...instances);
  await eventually(async () => (instances.some((i) => i.output.join("").includes('"msg":"bot polling"')) ? true : undefined));
  return instances;
}

async function payer() {
  const id = nextPayer++;
  await core!.core.admin.issueKey(String(id));
  const chat = new EmulatedChat(emulator.url, { id, first_name: `Payer${id}`, language_code: "en" });
  const account = (await core!.core.accounts.byTelegramId(String(id)))!;
  return { chat, id: String(id), account };
}

const balanceOf = async (id: string) => (await core!.core.accounts.byTelegramId(id))!.balanceMicro;

/** `count` payers each pay a top-up of `starsEach(i)` Stars, side by side; the charges and their top-ups. */
async function payAll(count: number, starsEach: (i: number) => number) {
  const payers = await Promise.all(Array.from({ length: count }, () => payer()));
  const made = await Promise.all(payers.map((p, i) => core!.core.topups.starsLink(p.account, starsEach(i))));
  const attempts = await Promise.all(payers.map((p, i) => p.chat.pay(made[i].link)));
  for (const attempt of attempts) expect(attempt.status).toBe("paid");
  return payers.map((p, i) => ({ ...p, topup: made[i].topup, stars: starsEach(i), attempt: attempts[i] }));
}

/** Each payment credited once: its balance, one credit in the ledger, the charge on its top-up, one entry in the book. */
async function eachCreditedOnce(paid: Awaited<ReturnType<typeof payAll>>) {
  for (const p of paid) {
    expect(await balanceOf(p.id)).toBe(p.stars * STAR_MICRO);
    expect(await topupLedger(core!.db, p.topup.id)).toEqual([["topup", p.stars * STAR_MICRO]]);
    const topup = await core!.db.selectFrom("topups").select(["status", "charge_id"]).where("id", "=", p.topup.id).executeTakeFirstOrThrow();
    expect(topup).toEqual({ status: "credited", charge_id: p.attempt.telegram_payment_charge_id });
  }
  const book = await core!.db.selectFrom("star_book").select(["kind", "transaction_id"]).execute();
  expect(
    book
      .filter((e) => e.kind === "payment")
      .map((e) => e.transaction_id)
      .sort(),
  ).toEqual(paid.map((p) => p.attempt.telegram_payment_charge_id).sort());
}

describe("two instances and Stars payments", () => {
  it("credit a successful_payment delivered twice once, whichever instance handles each delivery", async () => {
    // The scheduled look runs at start only: the updates alone credit here.
    await twoInstances(600_000);
    await stars.nextDelivery("twice", 6);
    const paid = await payAll(6, (i) => 100 + 10 * i);
    for (const p of paid) expect(p.attempt.delivered).toBe("twice");
    await eventually(async () => {
      const open = await core!.db.selectFrom("bot_inbox").select("update_id").where("done_at", "is", null).execute();
      const handled = await core!.db.selectFrom("bot_inbox").select("update_id").where("payload", "like", "%successful_payment%").execute();
      return open.length === 0 && handled.length === 12 ? true : undefined;
    }, 30_000);
    await eachCreditedOnce(paid);
  }, 90_000);

  it("credit once what one instance's update and both instances' looks reach at the same moment", async () => {
    await twoInstances(50);
    // A top-up left unpaid keeps both looks reading every transaction, every 50 ms.
    const bystander = await payer();
    await core!.core.topups.starsLink(bystander.account, 100);
    // Delivered once, twice, or lost (only the looks find those), in turn.
    const deliveries = ["once", "twice", "dropped"] as const;
    const paid: Awaited<ReturnType<typeof payAll>> = [];
    for (let n = 0; n < 27; n++) {
      const delivery = deliveries[n % 3];
      if (delivery !== "once") await stars.nextDelivery(delivery);
      const p = await payer();
      const made = await core!.core.topups.starsLink(p.account, 100 + n);
      const attempt = await p.chat.pay(made.link);
      expect(attempt).toMatchObject({ status: "paid", delivered: delivery });
      paid.push({ ...p, topup: made.topup, stars: 100 + n, attempt });
    }
    await eventually(async () => {
      const balances = await Promise.all(paid.map((p) => balanceOf(p.id)));
      return balances.every((b, i) => b === paid[i].stars * STAR_MICRO) ? true : undefined;
    }, 30_000);
    // Both looks have gone round many times since: still once.
    const calls = async () =>
      ((await http("GET", `${emulator.url}/emulator/calls`)).body.calls as Array<{ method: string }>).filter(
        (c) => c.method === "getStarTransactions",
      ).length;
    const before = await calls();
    await eventually(async () => ((await calls()) >= before + 6 ? true : undefined), 20_000);
    await eachCreditedOnce(paid);
  }, 120_000);
});
