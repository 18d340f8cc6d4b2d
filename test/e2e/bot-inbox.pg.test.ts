import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/server.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { answeredOnce, repliesOnTheirWay, slowTelegram, writeAll, writers } from "../support/bot-replies.js";
import { eventually, TEST_BOT_TOKEN } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// Two instances on one PostgreSQL database while Telegram answers sendMessage 1.5 s late: the instance handling
// the updates stops mid-reply (kill -9, SIGTERM; polling and webhook mode), the other takes over, and every
// message a user sent is answered once, none lost, none twice.

const LATE_MS = 1_500;
const LEASE_MS = 3_000;
const USERS = 4;
const SECRET = "webhook-secret-for-the-inbox-test";

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

const polling = (instance: ServiceProcess) => instance.output.join("").includes('"msg":"bot polling"');

async function twoInstances(extra: Record<string, string> = {}) {
  database = await testDatabase();
  const env = {
    DATABASE_URL: database.url,
    ...database.env,
    LOG_LEVEL: "info",
    BOT_TOKEN: TEST_BOT_TOKEN,
    TELEGRAM_API_ROOT: emulator.url,
    TELEGRAM_API_EMULATOR: "true",
    BOT_INBOX_LEASE_MS: String(LEASE_MS),
    // Each instance its own embedded simulator (the bot needs no provider here), on a free port.
    SIMULATOR_PORT: "0",
    ...extra,
  };
  const instances = await Promise.all([freePort(), freePort()].map(async (port) => startServiceProcess(env, await port, true)));
  running.push(...instances);
  return instances;
}

/** The polling instance and the other, once one polls. */
async function roles(instances: ServiceProcess[]) {
  await eventually(async () => (instances.some(polling) ? true : undefined));
  const victim = instances.find(polling)!;
  return { victim, survivor: instances.find((instance) => instance !== victim)! };
}

describe("two instances, the one handling the bot's updates stopped mid-reply", () => {
  it("kill -9 of the poller: the other polls, takes its updates over after their lease, answers each message once", async () => {
    const { victim, survivor } = await roles(await twoInstances());
    const chats = writers(emulator.url, 8_500_001, USERS);
    await writeAll(chats, 3);
    await repliesOnTheirWay(emulator.url, USERS, LATE_MS);
    await kill(victim.proc);
    const killedAt = Date.now();

    const { counts, completeAt } = await answeredOnce(chats, 3, 20_000, { databaseUrl: database!.url, emulatorUrl: emulator.url });
    expect(counts).toEqual(chats.map(() => 3));
    expect(polling(survivor)).toBe(true);
    expect((await http("GET", `${emulator.url}/emulator/conflicts`)).body.conflicts).toBe(0);
    console.log(`kill -9 (PostgreSQL): every message answered ${completeAt - killedAt} ms after the kill`);
  }, 60_000);

  it("SIGTERM to the poller: it finishes the replies under way and exits 0; the other answers the rest, each once", async () => {
    const { victim, survivor } = await roles(await twoInstances({ SHUTDOWN_GRACE_MS: "4000" }));
    const chats = writers(emulator.url, 8_500_101, USERS);
    await writeAll(chats, 5);
    await repliesOnTheirWay(emulator.url, USERS, LATE_MS);
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      victim.proc.once("exit", (code) => resolve({ code, at: Date.now() })),
    );
    const signalled = Date.now();
    victim.proc.kill("SIGTERM");
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - signalled).toBeLessThan(4_000);

    const { counts, completeAt } = await answeredOnce(chats, 5, 20_000, { databaseUrl: database!.url, emulatorUrl: emulator.url });
    expect(counts).toEqual(chats.map(() => 5));
    expect(polling(survivor)).toBe(true);
    console.log(`SIGTERM (PostgreSQL): exited after ${at - signalled} ms; every message answered ${completeAt - signalled} ms after the signal`);
  }, 60_000);

  it("webhook mode: updates posted to an instance that is then killed are answered by the other, each once", async () => {
    const [a, b] = await twoInstances({ BOT_WEBHOOK_URL: "https://bot.example.invalid/telegram/webhook", BOT_WEBHOOK_SECRET: SECRET });
    const chats = writers(emulator.url, 8_500_201, USERS);
    let updateId = 9_000_000;
    // Telegram's part: each update posted to the first instance, and to the other should that one not take it.
    const post = async (instance: ServiceProcess, update: object) => {
      try {
        const response = await request(`${instance.base}/telegram/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
          body: JSON.stringify(update),
        });
        await response.body.dump();
        return response.statusCode === 200;
      } catch {
        return false;
      }
    };
    const posts: Array<Promise<unknown>> = [];
    for (let n = 1; n <= 3; n++) {
      for (const chat of chats) {
        const id = chat.user.id;
        const update = {
          update_id: updateId++,
          message: {
            message_id: n,
            date: Math.floor(Date.now() / 1000),
            chat: { id, type: "private", first_name: "W" },
            from: { id, is_bot: false, first_name: "W", language_code: "en" },
            text: `hello ${n}`,
          },
        };
        // One chat's updates are posted in order, as Telegram does.
        posts.push((async () => (await post(a, update)) || (await post(b, update)))());
      }
    }
    await repliesOnTheirWay(emulator.url, USERS, LATE_MS);
    await kill(a.proc);
    const killedAt = Date.now();
    await Promise.all(posts);

    const { counts, completeAt } = await answeredOnce(chats, 3, 20_000, { databaseUrl: database!.url, emulatorUrl: emulator.url });
    expect(counts).toEqual(chats.map(() => 3));
    console.log(`webhook, kill -9 (PostgreSQL): every message answered ${completeAt - killedAt} ms after the kill`);
  }, 60_000);
});
