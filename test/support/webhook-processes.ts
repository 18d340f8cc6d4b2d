import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { openAdmin } from "./admin-core.js";
import type { Admin } from "../../src/core/admin.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { startSimulator } from "../../src/simulator/server.js";
import { type TestDatabase, testDatabase } from "./databases.js";
import { fastEnv } from "./fast-env.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "./processes.js";
import { type Receiver, startReceiver } from "./receiver.js";

// Webhook tests on real service processes: a simulator, a receiver, and a database of each test's own.

let simulator: Awaited<ReturnType<typeof startSimulator>>;
export let receiver: Receiver;
let database: TestDatabase;
export let db: Db;
let env: Record<string, string>;
/** The administrator's core over this test's database (through the composition root). */
let adminCore: { admin: Admin; close: () => Promise<void> } | undefined;
const running: ServiceProcess[] = [];

/** Call once at the top of a test file. */
export function useWebhookProcesses() {
  beforeAll(async () => {
    simulator = await startSimulator(0, { timeScale: 0.01 });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const instance of running.splice(0)) await kill(instance.proc);
    await adminCore?.close();
    adminCore = undefined;
    await db?.destroy();
    await database?.drop();
  });
  afterAll(async () => {
    await receiver.close();
    await simulator.app.close();
  });
}

/** A database of the test's own and the instances' settings (`extra` overrides the defaults). */
export async function setUp(extra: Record<string, string> = {}) {
  database = await testDatabase({ migrated: true });
  db = openDatabase(database.url);
  await migrateToLatest(db);
  adminCore = await openAdmin({ DATABASE_URL: database.url, ...database.env });
  env = {
    DATABASE_URL: database.url,
    ...database.env,
    ...fastEnv(simulator.url, 2000),
    LOG_LEVEL: "warn",
    WEBHOOK_ALLOW_LOOPBACK: "true",
    WEBHOOK_TIMEOUT_MS: "1000",
    WEBHOOK_RETRY_BASE_MS: "100",
    WEBHOOK_RETRY_MAX_MS: "500",
    WEBHOOK_POLL_MS: "50",
    ...extra,
  };
}

export async function start(): Promise<ServiceProcess> {
  const instance = await startServiceProcess(env, await freePort());
  running.push(instance);
  return instance;
}

/** A key (funded unless `usdt` is 0) whose endpoint is the receiver, or `url`. */
export async function subscriber(base: string, telegramId: string, options: { usdt?: number; url?: string } = {}) {
  const { admin } = adminCore!;
  const { key } = await admin.issueKey(telegramId);
  const usdt = options.usdt ?? 100;
  if (usdt > 0) await admin.credit(telegramId, fromUsdt(usdt), "test", { confirmed: true });
  const set = await http("POST", `${base}/v1/webhook`, key, { url: options.url ?? receiver.url });
  expect(set.status).toBe(200);
  return key;
}

export const eventOf = (orderId: number) => db.selectFrom("webhook_events").selectAll().where("order_id", "=", orderId).executeTakeFirstOrThrow();
