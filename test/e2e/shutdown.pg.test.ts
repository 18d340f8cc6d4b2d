import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allProvidersAt } from "../../src/simulator/settings.js";
import { withAdmin } from "../support/admin-core.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { startSimulator } from "../../src/simulator/server.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// Two service processes polling one bot on one PostgreSQL database: SIGTERM to the polling one hands the
// role over at once, while its own update under way (a purchase slow at the provider, 6 s) still finishes.

let database: TestDatabase;
let simulator: Awaited<ReturnType<typeof startSimulator>>;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let db: Db;
const instances: ServiceProcess[] = [];

beforeAll(async () => {
  database = await testDatabase({ migrated: true });
  simulator = await startSimulator(0, { timeScale: 1.5 });
  emulator = await startEmulator();
  db = openDatabase(database.url);
  await migrateToLatest(db);
});

afterAll(async () => {
  for (const instance of instances) await kill(instance.proc);
  await db?.destroy();
  await simulator?.app.close();
  await emulator?.app.close();
  await database?.drop();
});

const polling = (instance: ServiceProcess) => instance.output.join("").includes('"msg":"bot polling"');

describe("SIGTERM to the instance that polls the bot", () => {
  it("lets the other instance take polling over at once, long before its own update under way ends", async () => {
    await withAdmin({ DATABASE_URL: database.url, ...database.env }, async (admin) => {
      await admin.issueKey("8200001");
      await admin.credit("8200001", fromUsdt(50), "test");
    });
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      UPSTREAM: "external",
      ...allProvidersAt(simulator.url),
      UPSTREAM_TIMEOUT_MS: "20000",
      RECONCILE_AFTER_MS: "30000",
      LOG_LEVEL: "info",
      SHUTDOWN_GRACE_MS: "15000",
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.url,
      TELEGRAM_API_EMULATOR: "true",
    };
    instances.push(...(await Promise.all([freePort(), freePort()].map(async (port) => startServiceProcess(env, await port, true)))));
    await eventually(async () => (instances.some(polling) ? true : undefined));
    const victim = instances.find(polling)!;
    const survivor = instances.find((instance) => instance !== victim)!;

    // The buyer's purchase is under way on the polling instance (6 s at the provider) when the signal comes.
    const buyer = new EmulatedChat(emulator.url, { id: 8_200_001, first_name: "Buyer", language_code: "en" });
    await buyer.say("/stars");
    await buyer.reply("@slow_handover", (t) => t.includes("How many stars"));
    await buyer.tap("50");
    await buyer.next((t) => t.includes("Confirm?"));
    await buyer.tap("Confirm");
    await eventually(async () => ((await db.selectFrom("orders").select("id").executeTakeFirst()) ? true : undefined));
    const exited = new Promise<number | null>((resolve) => victim.proc.once("exit", resolve));
    const signalled = Date.now();
    victim.proc.kill("SIGTERM");

    // The other instance polls within its retry pause (2 s), far sooner than the 5 s heartbeat timeout, and
    // while the stopping instance is still finishing the buyer's update; a newcomer is answered by it.
    await eventually(async () => (polling(survivor) ? true : undefined), 5_000);
    expect(Date.now() - signalled).toBeLessThan(3_500);
    expect(victim.proc.exitCode).toBeNull();
    const newcomer = new EmulatedChat(emulator.url, { id: 8_200_002, first_name: "Newcomer", language_code: "en" });
    const welcome = await newcomer.reply("/start", (t) => t.includes("sj_"));
    expect(welcome.text).toContain("sj_");
    expect(victim.proc.exitCode).toBeNull();

    // The stopping instance finishes the buyer's purchase, tells the buyer once, and exits 0.
    expect((await buyer.next((t) => t.includes("Done!"), 15_000)).text).toContain("Done!");
    expect(await exited).toBe(0);
    expect((await buyer.messages()).filter((m) => m.from_bot && m.text.includes("Done!"))).toHaveLength(1);
    expect((await newcomer.messages()).filter((m) => m.from_bot && m.text.includes("sj_"))).toHaveLength(1);
    expect((await http("GET", `${emulator.url}/emulator/conflicts`)).body.conflicts).toBe(0);
  }, 45_000);
});
