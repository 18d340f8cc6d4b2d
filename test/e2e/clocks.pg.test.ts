import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import pg from "pg";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allProvidersAt } from "../../src/simulator/settings.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { startSimulator } from "../../src/simulator/server.js";
import { openAdmin } from "../support/admin-core.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { LIBFAKETIME } from "../support/global-setup.js";
import { eventually } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// Two real service processes on one PostgreSQL database, the second with its wall clock set ahead by libfaketime
// (the whole process: Date, the HTTP Date header, pino's times; its monotonic clock is left alone, as a wrong
// wall clock leaves it), read from a file so that a test can step it while the process runs. Every decision must
// follow the database's clock, so neither the skew nor a step moves anything.

/** How long a delivery request is on its way to the provider: shorter than RECONCILE_AFTER_MS in both settings. */
const TRANSIT_MS = 1500;
const ORDERS = 12;
const RATE_LIMIT = 20;

let database: TestDatabase;
let simulator: Awaited<ReturnType<typeof startSimulator>>;
let provider: { url: string; delivered: Set<string>; server: Server };
let db: Db;
let server: pg.Client;
const instances: ServiceProcess[] = [];

/**
 * The provider behind a slow network: a delivery request reaches the simulator TRANSIT_MS after it was sent (a
 * status lookup goes straight through). The references the provider delivered are kept.
 */
async function slowNetwork(target: string) {
  const delivered = new Set<string>();
  const proxy = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", async () => {
      const body = Buffer.concat(chunks);
      const delivery = incoming.method === "POST" && incoming.url === "/gateway/deliveries";
      // Kept on purpose: the network's slowness is the subject.
      if (delivery) await new Promise((resolve) => setTimeout(resolve, TRANSIT_MS));
      try {
        const answer = await request(`${target}${incoming.url}`, {
          method: incoming.method as "GET" | "POST",
          headers: { "content-type": String(incoming.headers["content-type"] ?? "application/json") },
          body: incoming.method === "GET" ? undefined : body,
        });
        const text = await answer.body.text();
        if (delivery && answer.statusCode === 200 && JSON.parse(text).status === "completed") delivered.add(JSON.parse(String(body)).reference);
        outgoing.writeHead(answer.statusCode, { "content-type": "application/json" }).end(text);
      } catch {
        outgoing.writeHead(502).end();
      }
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => proxy.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}`, delivered, server: proxy };
}

beforeAll(async () => {
  database = await testDatabase();
  simulator = await startSimulator(0, { timeScale: 0.01 });
  provider = await slowNetwork(simulator.url);
  db = openDatabase(database.url);
  server = new pg.Client({ connectionString: database.url });
  await server.connect();
}, 30_000);

afterAll(async () => {
  for (const instance of instances) await kill(instance.proc);
  await server?.end();
  await db?.destroy();
  await new Promise((resolve) => provider?.server.close(resolve));
  await simulator?.app.close();
  await database?.drop();
}, 60_000);

/** The database's clock, in ms since the epoch. */
const databaseNow = async () =>
  Number((await server.query<{ ms: string }>("select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms")).rows[0].ms);

/** Sets `b`'s wall clock that many seconds off this machine's (libfaketime reads the file again every second). */
const skewFile = () => join(database.dir, "faketime");
const setSkew = (seconds: number) => writeFileSync(skewFile(), `${seconds >= 0 ? "+" : ""}${seconds}s\n`);

/** How far ahead `b`'s wall clock is, by its HTTP Date header (whole seconds). */
async function wallClockAhead(b: ServiceProcess): Promise<number> {
  const answer = await request(`${b.base}/v1/health`);
  await answer.body.dump();
  return (Date.parse(String(answer.headers.date)) - Date.now()) / 1000;
}

/** Starts the pair: `a` on this machine's clock, `b` with its wall clock `aheadSeconds` ahead. */
async function startPair(aheadSeconds: number, settings: Record<string, string>) {
  for (const instance of instances.splice(0)) await kill(instance.proc);
  const env = {
    DATABASE_URL: database.url,
    ...database.env,
    UPSTREAM: "external",
    ...allProvidersAt(provider.url),
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    TON_RATE_CACHE_SECONDS: "0",
    RECONCILE_INTERVAL_MS: "200",
    ...settings,
  };
  setSkew(aheadSeconds);
  const skewed = {
    ...env,
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: skewFile(),
    FAKETIME_CACHE_DURATION: "1",
    FAKETIME_DONT_FAKE_MONOTONIC: "1",
  };
  const [a, b] = await Promise.all([startServiceProcess(env, await freePort(), true), startServiceProcess(skewed, await freePort(), true)]);
  instances.push(a, b);
  // The skew is real: b's HTTP Date header (its wall clock) is ahead by about that much.
  const ahead = await wallClockAhead(b);
  expect(ahead).toBeGreaterThan(aheadSeconds - 2);
  expect(ahead).toBeLessThan(aheadSeconds + 2);
  return { a, b };
}

/** A funded key of its own. */
async function fundedKey(telegramId: string): Promise<string> {
  const { admin, close } = await openAdmin({ DATABASE_URL: database.url, ...database.env });
  try {
    const { key } = await admin.issueKey(telegramId);
    await admin.credit(telegramId, fromUsdt(500), "test");
    return key;
  } finally {
    await close();
  }
}

/**
 * Orders placed on `a` (the right clock) while `b` (ahead) reconciles: each delivery is still on its way when `b`
 * could first judge the order old. Returns the figures: answers, orders refunded though the provider delivered.
 */
async function ordersAcrossClocks(a: ServiceProcess, telegramId: string) {
  const key = await fundedKey(telegramId);
  const answers = await Promise.all(
    Array.from({ length: ORDERS }, (_, i) =>
      http("POST", `${a.base}/v1/stars`, key, { username: "alice", stars: 100, idempotency_key: `${telegramId}-${i}` }),
    ),
  );
  const account = await db.selectFrom("accounts").select("id").where("telegram_id", "=", telegramId).executeTakeFirstOrThrow();
  const orders = await eventually(async () => {
    const rows = await db.selectFrom("orders").select(["upstream_ref", "status", "refunded"]).where("account_id", "=", account.id).execute();
    return rows.length === ORDERS && rows.every((o) => o.status !== "processing") ? rows : undefined;
  }, 40_000);
  return {
    answers: answers.map((r) => r.status),
    completed: orders.filter((o) => o.status === "completed").length,
    wronglyRefunded: orders.filter((o) => o.refunded && provider.delivered.has(o.upstream_ref)).length,
  };
}

describe.each<{ ahead: number; after: string; settings: Record<string, string> }>([
  { ahead: 30, after: "3 s", settings: { RECONCILE_AFTER_MS: "3000", UPSTREAM_TIMEOUT_MS: "2500" } },
  { ahead: 75, after: "the default 60 s", settings: {} },
])("an instance whose clock is $ahead s ahead (orders reconciled after $after)", ({ ahead, settings }) => {
  let a: ServiceProcess;
  beforeAll(async () => {
    ({ a } = await startPair(ahead, settings));
  }, 90_000);

  it("refunds none of the other instance's orders that the provider is still delivering", async () => {
    const figures = await ordersAcrossClocks(a, String(7_400_000 + ahead));
    console.log(`clock ${ahead} s ahead: ${JSON.stringify(figures)}`);
    expect(figures.wronglyRefunded).toBe(0);
    expect(figures.completed).toBe(ORDERS);
    expect(figures.answers.every((status) => status === 200)).toBe(true);
    await assertBooks(db);
  }, 60_000);
});

describe("quotes and rate windows across clocks 30 s apart", () => {
  let a: ServiceProcess;
  let b: ServiceProcess;
  beforeAll(async () => {
    ({ a, b } = await startPair(30, { QUOTE_TTL_SECONDS: "5" }));
  }, 90_000);

  const quote = async (on: ServiceProcess, key: string) => {
    const answer = await http("POST", `${on.base}/v1/quotes`, key, { product_type: "stars", username: "alice", stars: 100 });
    expect(answer.status).toBe(200);
    return answer.body.quote_id as string;
  };
  const buy = (on: ServiceProcess, key: string, quoteId: string, idem: string) =>
    http("POST", `${on.base}/v1/stars`, key, { username: "alice", stars: 100, quote_id: quoteId, idempotency_key: idem });

  it("warn at start on the instance whose clock is off the database's, and only there", async () => {
    const warning = "this machine's clock is off the database's";
    await eventually(async () => (b.output.join("").includes(warning) ? true : undefined), 5000);
    expect(a.output.join("")).not.toContain(warning);
  });

  it("hold a quote's life whichever instance made it and whichever accepts it", async () => {
    const key = await fundedKey("7400100");
    // Made on the right clock, accepted at once on the one ahead: within its life.
    const fromA = await buy(b, key, await quote(a, key), "q1");
    expect(fromA.body).toMatchObject({ success: true });
    // Made on the one ahead, accepted on the other 3 s into its 5 s life (held), and 5.6 s in (refused); and one made
    // on the right clock, accepted on the one ahead 5.6 s in (refused). Timed from when each answer came, so a slow
    // machine only makes the quotes younger than said.
    const late = await quote(b, key);
    const lateOnB = await quote(a, key);
    const early = await quote(b, key);
    const earlyAt = Date.now();
    // Kept on purpose: the quotes age on the instances' real (skewed) clocks, which a test clock cannot move.
    const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, earlyAt + ms - Date.now())));
    await until(3000);
    expect((await buy(a, key, early, "q2")).body).toMatchObject({ success: true });
    await until(5600);
    expect((await buy(a, key, late, "q3")).body).toMatchObject({ success: false, error_code: "quote_expired" });
    expect((await buy(b, key, lateOnB, "q4")).body).toMatchObject({ success: false, error_code: "quote_expired" });
  }, 90_000);

  it("count one window for both and tell, on each, when the window in force ends, also after b's clock steps back", async () => {
    // b's wall clock steps from 30 s ahead to 45 s behind while it runs: its clock was read off the database once,
    // at start, and runs on the monotonic clock since, so the step changes nothing.
    setSkew(-45);
    await eventually(async () => ((await wallClockAhead(b)) < -40 ? true : undefined), 5000);
    let statuses: Array<{ status: number; retryAfter: number | null; on: string }> = [];
    let windowEnd = 0;
    let before = 0;
    let after = 0;
    for (let attempt = 0; ; attempt++) {
      const key = await fundedKey(String(7_400_200 + attempt));
      before = await databaseNow();
      windowEnd = (Math.floor(before / 60_000) + 1) * 60_000;
      statuses = [];
      for (let i = 0; i < RATE_LIMIT + 10; i++) {
        const on = i % 2 ? b : a;
        const answer = await request(`${on.base}/v1/balance`, { headers: { "x-api-key": key } });
        await answer.body.dump();
        const retryAfter = answer.headers["retry-after"];
        statuses.push({ status: answer.statusCode, retryAfter: retryAfter === undefined ? null : Number(retryAfter), on: on === a ? "a" : "b" });
      }
      after = await databaseNow();
      // A burst that straddled the database's minute is sent again with a fresh key.
      if (after < windowEnd) break;
      expect(attempt).toBeLessThan(2);
    }
    expect(statuses.filter((s) => s.status === 200)).toHaveLength(RATE_LIMIT);
    const refused = statuses.filter((s) => s.status === 429);
    expect(refused).toHaveLength(10);
    expect(new Set(refused.map((s) => s.on))).toEqual(new Set(["a", "b"]));
    // Retry-After: the seconds left in the database's minute (rounded up), on either instance.
    const most = Math.ceil((windowEnd - before) / 1000);
    const least = Math.ceil((windowEnd - after) / 1000);
    for (const s of refused) {
      expect(s.retryAfter).toBeGreaterThanOrEqual(least);
      expect(s.retryAfter).toBeLessThanOrEqual(most);
    }
  }, 90_000);
});
