import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { request } from "undici";
import { loadConfig } from "../../src/config.js";
import { simulatedReloadly } from "../../src/simulator/settings.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { openService, type Service } from "../../src/root.js";
import type { Clock } from "../../src/core/model/clock.js";
import type { Fault, ProviderName } from "../../src/simulator/context.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { startSimulator } from "../../src/simulator/server.js";
import { assertBooks } from "./books.js";
import { TEST_ENGINE, testDatabase } from "./databases.js";
import { fastEnv } from "./fast-env.js";

/** The service's clock in a test: real time, moved on by `advance` (nothing sleeps to let time pass). */
interface TestClock extends Clock {
  advance(ms: number): void;
  /** Back to real time. */
  reset(): void;
}

function testClock(): TestClock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance: (ms) => void (offsetMs += ms),
    reset: () => void (offsetMs = 0),
  };
}

export interface Harness {
  service: Service;
  /** The clock the service reads (openService's `clock` override). */
  clock: TestClock;
  api: FastifyInstance;
  /** Closes the service and starts a new one on the same database, simulator and emulator. */
  restart(): Promise<void>;
  simulatorUrl: string;
  /** DATABASE_URL of this harness: a SQLite file, or a PostgreSQL database of its own. */
  databaseUrl: string;
  /** What a process of the service needs besides DATABASE_URL to open the same database. */
  databaseEnv: Record<string, string>;
  engine: typeof TEST_ENGINE;
  logs: string[];
  /** Registers a Telegram user, issues a key and credits it. */
  newKey(usdt?: number, telegramId?: string): Promise<{ key: string; telegramId: string }>;
  call(
    method: "GET" | "POST" | "DELETE",
    url: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string>; remoteAddress?: string },
  ): Promise<{
    status: number;
    body: any;
    headers: Record<string, string | string[] | number | undefined>;
  }>;
  balance(key: string): Promise<number>;
  /** How many orders exist, for "nothing was created" checks. */
  orderCount(): Promise<number>;
  fault(provider: ProviderName, mode: Fault): Promise<void>;
  /** The books hold: balances equal their entries, one charge per order, one refund per failed order and none otherwise. */
  assertLedgerInvariant(): Promise<void>;
  close(): Promise<void>;
}

let nextTelegramId = 100_000;

export interface HarnessOptions {
  gateway?: boolean;
  timeScale?: number;
  /** Runs the bot against this Bot API emulator, polling. */
  emulatorUrl?: string;
  admins?: number[];
  /** Points Reloadly's settings at the simulated Reloadly's sandbox (for GIFTCARDS_BACKEND=reloadly). */
  reloadly?: boolean;
}

export const TEST_BOT_TOKEN = "123456:test-token-for-the-emulator";

export async function startHarness(env: Record<string, string> = {}, options: HarnessOptions = {}): Promise<Harness> {
  const simulator = await startSimulator(0, { timeScale: options.timeScale ?? 0.01 });
  const database = await testDatabase({ migrated: true });
  const config = loadConfig({
    DATABASE_URL: database.url,
    ...database.env,
    ...fastEnv(simulator.url),
    ...(options.gateway === false ? { GATEWAY_URL: undefined } : {}),
    // Health answers from rounds this often: a fault shows within a fraction of a second.
    HEALTH_PROBE_MS: "100",
    // The simulator's Crypto Pay takes top-ups by invoice.
    CRYPTO_PAY_URL: `${simulator.url}/cryptopay`,
    CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN,
    LOG_LEVEL: "info",
    // Every answer checked against its schema, and the production serializer against the check.
    RESPONSE_CHECK: "true",
    ...(options.reloadly ? simulatedReloadly(simulator.url, "sandbox") : {}),
    ...(options.emulatorUrl
      ? {
          BOT_TOKEN: TEST_BOT_TOKEN,
          TELEGRAM_API_ROOT: options.emulatorUrl,
          TELEGRAM_API_EMULATOR: "true",
          ADMIN_TELEGRAM_IDS: (options.admins ?? []).join(","),
        }
      : {}),
    ...env,
  });
  const logs: string[] = [];
  const logDestination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const clock = testClock();
  const service = await openService(config, { logDestination, clock });
  await service.start({ listen: false });

  const harness: Harness = {
    service,
    clock,
    api: service.api,
    async restart() {
      await harness.service.close();
      harness.service = await openService(config, { logDestination, clock });
      harness.api = harness.service.api;
      await harness.service.start({ listen: false });
    },
    simulatorUrl: simulator.url,
    databaseUrl: database.url,
    databaseEnv: database.env,
    engine: TEST_ENGINE,
    logs,
    async newKey(usdt = 0, telegramId = String(nextTelegramId++)) {
      const { key } = await harness.service.core.admin.issueKey(telegramId);
      if (usdt > 0) await harness.service.core.admin.credit(telegramId, fromUsdt(usdt), "test", { confirmed: true });
      return { key, telegramId };
    },
    async call(method, url, { key, body, headers = {}, remoteAddress } = {}) {
      const response = await harness.api.inject({
        method,
        url,
        ...(remoteAddress ? { remoteAddress } : {}),
        headers: { ...(key ? { "x-api-key": key } : {}), ...headers },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      let parsed: unknown = null;
      try {
        parsed = response.json();
      } catch {
        parsed = response.body;
      }
      return { status: response.statusCode, body: parsed, headers: response.headers };
    },
    async balance(key) {
      const response = await harness.call("GET", "/v1/balance", { key });
      if (response.status !== 200) throw new Error(`balance: HTTP ${response.status}`);
      return response.body.balance_usdt;
    },
    async orderCount() {
      const row = await harness.service.db
        .selectFrom("orders")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async fault(provider, mode) {
      const response = await request(`${simulator.url}/control/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider, mode }),
      });
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`fault: HTTP ${response.statusCode}`);
    },
    assertLedgerInvariant: () => assertBooks(harness.service.db),
    async close() {
      await harness.service.close();
      await simulator.app.close();
      await database.drop();
    },
  };
  return harness;
}

/** Polls until `check` returns a value, or fails after `timeoutMs`. */
/**
 * PostgreSQL's request counts are kept in windows aligned to the minute (SQLite's store counts from a client's first
 * request): a test that counts up to a limit there waits out the last `marginMs` of a minute first, or its count
 * could restart halfway.
 */
export async function clearOfMinuteEdge(engine: string, marginMs = 3000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (engine === "postgres" && left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SHOWN_KEY = /sj_[A-Za-z0-9_-]{43}/;

export interface BotHarness {
  h: Harness;
  emulatorUrl: string;
  /** A new Telegram user who sent /start (and saw the menu), credited with `usdt`; with the key the bot showed. */
  registered(usdt: number, profile?: { username?: string; language_code?: string }): Promise<{ chat: EmulatedChat; key: string; telegramId: string }>;
  close(): Promise<void>;
}

/** The real service with its bot polling the Bot API emulator; users are numbered from `firstUser`. */
export async function startBotHarness(
  firstUser: number,
  options: Omit<HarnessOptions, "emulatorUrl"> = {},
  env: Record<string, string> = {},
): Promise<BotHarness> {
  const emulator = await startEmulator();
  const h = await startHarness(env, { ...options, emulatorUrl: emulator.url });
  let nextUser = firstUser;
  return {
    h,
    emulatorUrl: emulator.url,
    async registered(usdt, { username = `buyer${nextUser}`, language_code = "en" } = {}) {
      const id = nextUser++;
      // An empty username plays a Telegram user who has none.
      const chat = new EmulatedChat(emulator.url, { id, first_name: `Buyer${id}`, ...(username ? { username } : {}), language_code });
      const shown = await chat.reply("/start", (t) => SHOWN_KEY.test(t));
      await chat.next((t) => t.includes("What would you like") || t.includes("Что вы хотите"));
      if (usdt > 0) await h.service.core.admin.credit(String(id), fromUsdt(usdt), "test", { confirmed: true });
      return { chat, key: SHOWN_KEY.exec(shown.text)![0], telegramId: String(id) };
    },
    async close() {
      await h.close();
      await emulator.app.close();
    },
  };
}
