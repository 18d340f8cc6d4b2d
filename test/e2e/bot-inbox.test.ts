import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/server.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { answeredOnce, repliesOnTheirWay, slowTelegram, writeAll, writers } from "../support/bot-replies.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// The polling instance stopped while Telegram answers sendMessage 1.5 s late (SQLite: one instance, restarted on
// the same database): every message a user sent is answered once, none lost, none twice.

const LATE_MS = 1_500;
const LEASE_MS = 3_000;
const USERS = 4;

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let database: TestDatabase | undefined;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  emulator = await startEmulator();
  await slowTelegram(emulator.url, LATE_MS);
});
afterEach(async () => {
  for (const instance of running.splice(0)) await kill(instance.proc);
  await database?.drop();
  database = undefined;
});
afterAll(async () => emulator?.app.close());

async function start(port: number, extra: Record<string, string> = {}) {
  const env = {
    DATABASE_URL: database!.url,
    ...database!.env,
    LOG_LEVEL: "info",
    BOT_TOKEN: TEST_BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.url,
    TELEGRAM_API_EMULATOR: "true",
    BOT_INBOX_LEASE_MS: String(LEASE_MS),
    // Each instance its own embedded simulator (the bot needs no provider here), on a free port.
    SIMULATOR_PORT: "0",
    ...extra,
  };
  const instance = await startServiceProcess(env, port, true);
  running.push(instance);
  await eventually(async () => (instance.output.join("").includes('"msg":"bot polling"') ? true : undefined));
  return instance;
}

describe("a bot instance stopped mid-reply", () => {
  it("kill -9: the restarted instance answers what the killed one had fetched, each message once", async () => {
    database = await testDatabase();
    const port = await freePort();
    const first = await start(port);
    const chats = writers(emulator.url, 8_400_001, USERS);
    await writeAll(chats, 3);
    // Every chat's first reply is on its way (1.5 s at Telegram); the two after it were fetched already.
    await repliesOnTheirWay(emulator.url, USERS, LATE_MS);
    await kill(first.proc);
    const killedAt = Date.now();

    await start(port);
    const { counts, completeAt } = await answeredOnce(chats, 3, 20_000, { databaseUrl: database!.url, emulatorUrl: emulator.url });
    expect(counts).toEqual(chats.map(() => 3));
    console.log(`kill -9 (SQLite): every message answered ${completeAt - killedAt} ms after the kill, restart included`);
  }, 60_000);

  it("SIGTERM: the update under way finishes, the rest wait in the inbox for the restart; each message answered once", async () => {
    database = await testDatabase();
    const port = await freePort();
    const first = await start(port, { SHUTDOWN_GRACE_MS: "4000" });
    const chats = writers(emulator.url, 8_400_101, USERS);
    // Five messages a chat at 1.5 s a reply: more than the grace can finish.
    await writeAll(chats, 5);
    await repliesOnTheirWay(emulator.url, USERS, LATE_MS);
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      first.proc.once("exit", (code) => resolve({ code, at: Date.now() })),
    );
    const signalled = Date.now();
    first.proc.kill("SIGTERM");
    const { code, at } = await exited;
    // Only the replies already on their way were waited for: a clean stop well within the grace.
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(4_000);

    await start(port);
    const { counts } = await answeredOnce(chats, 5, 20_000, { databaseUrl: database!.url, emulatorUrl: emulator.url });
    expect(counts).toEqual(chats.map(() => 5));
    expect((await http("GET", `${emulator.url}/emulator/conflicts`)).body.conflicts).toBe(0);
  }, 60_000);
});
