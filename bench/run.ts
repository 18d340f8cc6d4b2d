import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { sql } from "kysely";
import { request } from "undici";
import { loadConfig } from "../src/config.js";
import { fromUsdt } from "../src/core/model/money.js";
import { engineOf, isPostgres } from "../src/db/database.js";
import { openCore } from "../src/root.js";
import { EmulatedChat } from "../src/emulator/client.js";
import { startEmulator } from "../src/emulator/server.js";
import { cpuMs, databaseCpuMs, freePort, ownPostgresDatabase, peakRss, type Proc, serviceEnv, START_ARGS, startProcess } from "./processes.js";
import { miniAppBench, miniAppMarkdown, NETWORKS } from "./miniapp.js";
import { ATTACK_SETTINGS, droppingEndpoint, hangingReceiver, healthyReceiver, runWebhookAttack } from "./webhook-attack.js";

// npm run bench: the running service measured from outside, the way a partner's load hits it, each row beside
// a bare-Fastify ceiling measured in the same run. `--smoke` runs every part for a moment (the test suite's
// check that the benchmark still works). DATABASE_URL=postgres://… runs it on PostgreSQL (a database of its
// own is made on that server, and dropped), with a second instance too.

const smoke = process.argv.includes("--smoke");
/** `--api`: the API rows alone (no growth, reconciler or bot parts), for a quick look while optimising. */
const apiOnly = process.argv.includes("--api");
/** `--miniapp`: the Mini App's part alone (its weight and the first goods in Chromium). */
const miniAppOnly = process.argv.includes("--miniapp");
/** The parts beside the API rows and the Mini App's: growth, the reconciler, the bot, webhooks under attack. */
const everyPart = !apiOnly && !miniAppOnly;
const SECONDS = smoke ? 0.5 : 6;
const WARMUP_SECONDS = 1.5;
const CONNECTIONS = 16;
const KEYS = smoke ? 20 : miniAppOnly ? 2 : 300;
const GROWTH = smoke ? [500, 2_000] : [1_000, 1_000_000];
const BACKLOG = smoke ? 200 : 10_000;
const BOT_FLOWS = smoke ? 3 : 40;
const TOKEN = "123456:bench-token-for-the-emulator";

interface Row {
  name: string;
  rps: number;
  ceilingRps: number;
  ratio: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  peakRssMb: number;
  /** How far the row's share of the ceiling spread over its slices (max − min, over the mean): this run's noise. */
  noise: number;
  /** CPU time per request of the processes that answered the row (the service's instances, or the floor), and of the ceiling. */
  cpuUs: number;
  ceilingCpuUs: number;
  /** PostgreSQL only: the database server's CPU time per request of the row (on these shared cores, it is ours too). */
  databaseCpuUs?: number;
}

const log = (message: string) => console.error(`[bench] ${message}`);

// ---- the database ------------------------------------------------------------------------------------------

const serverUrl = process.env.DATABASE_URL && engineOf(process.env.DATABASE_URL) === "postgres" ? process.env.DATABASE_URL : null;
const dir = mkdtempSync(join(tmpdir(), "partner-bench-"));
// On PostgreSQL a database of its own on that server (earlier runs' leftovers dropped first).
const own = serverUrl ? await ownPostgresDatabase(serverUrl, "bench") : null;
const databaseUrl = own?.url ?? join(dir, "bench.db");
const engine = engineOf(databaseUrl);
const codesKey = randomBytes(32).toString("base64");
// Seeding goes through the same root as the service (the admin CLI's view of it); the growth rows are written directly.
const { service: seeding } = await openCore(loadConfig({ DATABASE_URL: databaseUrl, CODES_KEY: codesKey, UPSTREAM: "external", LOG_LEVEL: "warn" }));
const { db } = seeding;

// ---- the processes: simulator, ceiling, emulator, service ----------------------------------------------------

const simulatorPort = await freePort();
const simulator = await startProcess(["--import", "tsx", "bench/simulator.ts", String(simulatorPort)], simulatorPort, {}, "/health");
const ceilingPort = await freePort();
const ceiling = await startProcess(["--import", "tsx", "bench/ceiling.ts", String(ceilingPort)], ceilingPort, {});
const emulator = await startEmulator();

const benchEnv = {
  ...serviceEnv(databaseUrl, codesKey, simulator.url),
  BOT_TOKEN: TOKEN,
  TELEGRAM_API_ROOT: emulator.url,
  TELEGRAM_API_EMULATOR: "true",
  RECONCILE_INTERVAL_MS: "500",
};
const instances: Proc[] = [];
async function startService(): Promise<Proc> {
  const port = await freePort();
  const service = await startProcess(START_ARGS, port, { ...benchEnv, PORT: String(port) }, "/v1/health");
  instances.push(service);
  return service;
}

// ---- seeding -----------------------------------------------------------------------------------------------

const { admin } = seeding.core;
const keys: string[] = [];
for (let i = 0; i < KEYS; i++) {
  const telegramId = String(9_000_000 + i);
  keys.push((await admin.issueKey(telegramId)).key);
  await admin.credit(telegramId, fromUsdt(1_000_000), "bench", { confirmed: true });
}
log(`${engine}: ${KEYS} funded keys`);

let service = await startService();
// The floor under a keyed read (bench/floor.ts), on the same database: the keys are seeded.
const floorPort = await freePort();
const floor = await startProcess(["--import", "tsx", "bench/floor.ts", String(floorPort), databaseUrl], floorPort, {});

async function call(method: "GET" | "POST", path: string, key: string, body?: unknown, base = service.url) {
  const response = await request(`${base}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

// ---- load --------------------------------------------------------------------------------------------------

interface Target {
  method: "GET" | "POST";
  path: string | ((i: number) => string);
  body?: (i: number) => unknown;
  /** Which key a request uses; by default they rotate over every funded key. */
  key?: (i: number) => string;
}

/**
 * How often autocannon samples its counts. A smoke run samples every 100 ms so that its short runs last the
 * SECONDS it asks for: with 1 s samples any run lasts a whole second at least (two per row, half a minute a run).
 */
const SAMPLE_MS = smoke ? 100 : 1000;

async function cannon(urls: string[], targets: Target[], seconds: number) {
  let n = 0;
  const runs = urls.map((url) =>
    autocannon({
      url,
      sampleInt: SAMPLE_MS,
      connections: Math.max(1, Math.floor(CONNECTIONS / urls.length)),
      duration: seconds,
      requests: targets.map((t) => ({
        method: t.method,
        setupRequest: (req: autocannon.Request) => {
          const i = n++;
          const key = t.key ? t.key(i) : keys[i % keys.length];
          return {
            ...req,
            path: typeof t.path === "string" ? t.path : t.path(i),
            headers: { "x-api-key": key, ...(t.body ? { "content-type": "application/json" } : {}) },
            ...(t.body ? { body: JSON.stringify(t.body(i)) } : {}),
          };
        },
      })),
    }),
  );
  const results = await Promise.all(runs);
  return {
    // Requests per sample, per second.
    rps: (results.reduce((sum, r) => sum + r.requests.average, 0) * 1000) / SAMPLE_MS,
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    max: Math.max(...results.map((r) => r.latency.max)),
    errors: results.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
    total: results.reduce((sum, r) => sum + r.requests.total, 0),
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** The CPU time (ms) used so far by the processes listening at `urls`. */
const cpuOf = (urls: string[]) => sum(urls.map((url) => cpuMs([ceiling, floor, ...instances].find((p) => p.url === url)!.child.pid!)));

/**
 * Runs a cannon and adds the CPU it cost the processes answering it to `cpu`, and the database server's to its
 * `databaseMs` when it has one (a row's slices on PostgreSQL).
 */
async function timed(cpu: { ms: number; databaseMs?: number }, urls: string[], targets: Target[], seconds: number) {
  const before = cpuOf(urls);
  const databaseBefore = cpu.databaseMs === undefined ? null : databaseCpuMs();
  const result = await cannon(urls, targets, seconds);
  cpu.ms += cpuOf(urls) - before;
  if (cpu.databaseMs !== undefined) {
    const databaseAfter = databaseCpuMs();
    // A slice the database's CPU could not be read for leaves the row without that figure (NaN), never a part of it.
    cpu.databaseMs = databaseBefore === null || databaseAfter === null ? NaN : cpu.databaseMs + databaseAfter - databaseBefore;
  }
  return result;
}

/** Slices a row's time is cut into, alternating with the ceiling's, so both see the machine's same moments. */
const SLICES = smoke ? 1 : 3;

/**
 * One row: a warm-up, then the ceiling (a constant body of the row's answer size) and the row itself in
 * alternating slices; rates are averaged over the slices, latencies are the worst slice's.
 */
async function measure(name: string, targets: Target[], urls = instances.map((s) => s.url)): Promise<Row> {
  const first = targets[0];
  const path = typeof first.path === "string" ? first.path : first.path(0);
  const sample = await call(first.method, path, first.key?.(0) ?? keys[1], first.body?.(0), urls[0]);
  const ceilingTarget: Target[] = [{ method: "GET", path: `/${Buffer.byteLength(sample.text)}` }];
  // A smoke run only shows every row works: no warm-up.
  if (!smoke) await cannon(urls, targets, WARMUP_SECONDS);
  const peaks = instances.map((s) => peakRss(s.child.pid!));
  const ceilings: Array<Awaited<ReturnType<typeof cannon>>> = [];
  const runs: Array<Awaited<ReturnType<typeof cannon>>> = [];
  const cpu: { ms: number; databaseMs?: number } = engine === "postgres" ? { ms: 0, databaseMs: 0 } : { ms: 0 };
  const ceilingCpu = { ms: 0 };
  for (let slice = 0; slice < SLICES; slice++) {
    ceilings.push(await timed(ceilingCpu, [ceiling.url], ceilingTarget, SECONDS / SLICES));
    runs.push(await timed(cpu, urls, targets, SECONDS / SLICES));
  }
  const peakRssMb = Math.max(...peaks.map((p) => p.stop()));
  const mean = (list: typeof runs, pick: (r: (typeof runs)[number]) => number) => list.reduce((sum, r) => sum + pick(r), 0) / list.length;
  const worst = (pick: (r: (typeof runs)[number]) => number) => Math.max(...runs.map(pick));
  const run = {
    rps: mean(runs, (r) => r.rps),
    p50: worst((r) => r.p50),
    p99: worst((r) => r.p99),
    max: worst((r) => r.max),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
  };
  const ceilingRps = mean(ceilings, (r) => r.rps);
  const shares = runs.map((r, i) => r.rps / ceilings[i].rps);
  const noise = (Math.max(...shares) - Math.min(...shares)) / (shares.reduce((a, b) => a + b, 0) / shares.length);
  const perRequest = (used: { ms: number }, list: typeof runs) => (used.ms * 1000) / Math.max(1, sum(list.map((r) => r.total)));
  const cpuUs = perRequest(cpu, runs);
  const row: Row = { name, ...run, ceilingRps, ratio: run.rps / ceilingRps, peakRssMb, noise, cpuUs, ceilingCpuUs: perRequest(ceilingCpu, ceilings) };
  if (cpu.databaseMs !== undefined && Number.isFinite(cpu.databaseMs)) row.databaseCpuUs = perRequest({ ms: cpu.databaseMs }, runs);
  log(
    `${name}: ${Math.round(row.rps)} req/s, ${(row.ratio * 100).toFixed(1)} % of ${Math.round(row.ceilingRps)}, p99 ${row.p99} ms, ${Math.round(cpuUs)} µs of CPU a request${row.databaseCpuUs === undefined ? "" : ` (the database's ${Math.round(row.databaseCpuUs)})`}`,
  );
  return row;
}

const fresh = () => randomUUID();
const starsBody = () => ({ username: "alice", stars: 50 });

// A stars order to replay and to read back, on key 0.
const replayBody = { username: "alice", stars: 50, idempotency_key: "bench-replay" };
const placed = JSON.parse((await call("POST", "/v1/stars", keys[0], replayBody)).text) as { order_id: number };

/** The floor's own row: its share of the ceiling is what a keyed read can reach at best. */
const FLOOR_ROW = "floor: key hashed + one indexed read";

function apiRows(urls?: string[]) {
  return [
    () => measure(FLOOR_ROW, [{ method: "GET", path: "/floor" }], [floor.url]),
    () => measure("GET /v1/health", [{ method: "GET", path: "/v1/health" }], urls),
    () => measure("GET /v1/balance", [{ method: "GET", path: "/v1/balance" }], urls),
    () => measure("GET /v1/pricing", [{ method: "GET", path: "/v1/pricing" }], urls),
    () => measure("POST /test/v1/stars", [{ method: "POST", path: "/test/v1/stars", body: starsBody }], urls),
    () => measure("POST /v1/stars", [{ method: "POST", path: "/v1/stars", body: () => ({ ...starsBody(), idempotency_key: fresh() }) }], urls),
    () => measure("POST /v1/stars, replayed", [{ method: "POST", path: "/v1/stars", body: () => replayBody, key: () => keys[0] }], urls),
    () => measure("GET /v1/orders?limit=20", [{ method: "GET", path: "/v1/orders?limit=20" }], urls),
    () => measure("GET /v1/orders/{id}", [{ method: "GET", path: `/v1/orders/${placed.order_id}`, key: () => keys[0] }], urls),
    () =>
      measure(
        "POST /v1/store (instant upstream)",
        [{ method: "POST", path: "/v1/store", body: () => ({ login: "benchplayer", amount_usd: 10, idempotency_key: fresh() }) }],
        urls,
      ),
    () => measure("POST /v1/giftcards/{brand}/order", [giftcardOrder], urls),
    () => giftcardRow(urls),
  ];
}

/** A gift card order with a fresh idempotency key. */
const giftcardOrder: Target = {
  method: "POST",
  path: "/v1/giftcards/psn-us/order",
  body: () => ({ card_id: "psn-us-10", quantity: 1, idempotency_key: fresh() }),
};

/** A gift card order, then its status, as a partner polls it: pairs of requests on one key each. */
async function giftcardRow(urls?: string[]): Promise<Row> {
  const ids: number[] = [];
  for (let i = 0; i < 50; i++) {
    const answer = await call("POST", "/v1/giftcards/psn-us/order", keys[i % keys.length], { card_id: "psn-us-10", quantity: 1 });
    ids.push((JSON.parse(answer.text) as { order_id: number }).order_id);
  }
  return measure(
    "gift card order + status",
    [giftcardOrder, { method: "GET", path: (i) => `/v1/giftcards/orders/${ids[i % ids.length]}`, key: (i) => keys[(i % ids.length) % keys.length] }],
    urls,
  );
}

// ---- growth, first: the order reads with a thousand and with a million orders --------------------------------

/** Copies the replay order until the table holds `total` orders, spread over the funded accounts. */
async function growOrders(total: number) {
  const { count } = await db
    .selectFrom("orders")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  const missing = total - Number(count);
  if (missing <= 0) return;
  const { span } = await db
    .selectFrom("accounts")
    .select((eb) => eb.fn.countAll<number>().as("span"))
    .where("kind", "=", "standard")
    .executeTakeFirstOrThrow();
  // Spread over the funded accounts by their rank (ids need not be contiguous).
  const copy = (series: ReturnType<typeof sql>) => sql`
    insert into orders (account_id, funding_account_id, product_type, status, idempotency_key, request_hash, recipient, details,
      charge_micro, upstream_ref, transaction_id, refunded, check_attempts, created_at, updated_at, completed_at)
    select a.id, a.id, o.product_type, o.status, null, o.request_hash, o.recipient, o.details,
      o.charge_micro, o.upstream_ref || '-' || n, o.transaction_id, o.refunded, 0, o.created_at, o.updated_at, o.completed_at
    from orders o, ${series}, (select id, row_number() over (order by id) - 1 as rank from accounts where kind = 'standard') a
    where o.id = ${placed.order_id} and a.rank = n % ${Number(span)}`;
  const started = Date.now();
  // In chunks, each its own short transaction, so the running service never waits long for the write lock.
  const CHUNK = 20_000;
  // Numbered on from the orders already there, so each copy's upstream reference stays unique.
  for (let from = Number(count) + 1; from <= total; from += CHUNK) {
    const to = Math.min(total, from + CHUNK - 1);
    if (isPostgres(db)) {
      await copy(sql`generate_series(${from}::int, ${to}::int) as s(n)`).execute(db);
    } else {
      await sql`with recursive s(n) as (select ${from} union all select n + 1 from s where n < ${to}) ${copy(sql`s`)}`.execute(db);
    }
  }
  log(`seeded ${missing} orders in ${Date.now() - started} ms (total ${total})`);
}

async function plans(): Promise<string[]> {
  const accountId = (await db.selectFrom("api_keys").select("account_id").limit(1).executeTakeFirstOrThrow()).account_id;
  const list = sql`select * from orders where account_id = ${accountId} order by id desc limit 20`;
  const one = sql`select * from orders where id = ${placed.order_id} and account_id = ${accountId}`;
  const explain = isPostgres(db) ? (q: ReturnType<typeof sql>) => sql`explain ${q}` : (q: ReturnType<typeof sql>) => sql`explain query plan ${q}`;
  const lines: string[] = [];
  for (const query of [list, one]) {
    const { rows } = await explain(query).execute(db);
    lines.push(rows.map((r) => String((r as Record<string, unknown>)["QUERY PLAN"] ?? (r as Record<string, unknown>).detail)).join(" / "));
  }
  return lines;
}

// The growth rows read key 0's orders, which get a full page of their own first, so both steps answer the same
// 20 orders and only the table around them grows.
if (everyPart) for (let i = 0; i < 25; i++) await call("POST", "/v1/stars", keys[0], { ...starsBody(), idempotency_key: `page-${i}` });
const growth: Array<{ orders: number; rows: Row[] }> = [];
for (const total of everyPart ? GROWTH : []) {
  await growOrders(total);
  if (isPostgres(db)) await sql`analyze orders`.execute(db);
  growth.push({
    orders: total,
    rows: [
      await measure(`GET /v1/orders?limit=20 @ ${total}`, [{ method: "GET", path: "/v1/orders?limit=20", key: () => keys[0] }]),
      await measure(`GET /v1/orders/{id} @ ${total}`, [{ method: "GET", path: `/v1/orders/${placed.order_id}`, key: () => keys[0] }]),
      await measure(`GET /v1/balance @ ${total}`, [{ method: "GET", path: "/v1/balance" }]),
    ],
  });
}
const queryPlans = everyPart ? await plans() : [];

// The API rows, after growth (on a table of a million orders, which the growth rows show makes no difference).
const rows: Row[] = [];
if (!miniAppOnly) for (const row of apiRows()) rows.push(await row());

// ---- the reconciler: a backlog of due asynchronous orders nobody polls -----------------------------------

/**
 * Waits until no order is processing (only the `requestHash` backlog's, when given), or `withinMs` has passed: how
 * many were still processing then, and the seconds waited.
 */
async function settled(withinMs: number, requestHash?: string): Promise<{ left: number; seconds: number }> {
  const started = Date.now();
  for (;;) {
    let query = db
      .selectFrom("orders")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("status", "=", "processing");
    if (requestHash) query = query.where("request_hash", "=", requestHash);
    const left = Number((await query.executeTakeFirstOrThrow()).count);
    const seconds = (Date.now() - started) / 1000;
    if (left === 0 || seconds * 1000 > withinMs) return { left, seconds };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function reconcilerDrain() {
  await service.stop();
  instances.splice(instances.indexOf(service), 1);
  const account = (await db.selectFrom("accounts").select("id").where("kind", "=", "standard").limit(1).executeTakeFirstOrThrow()).id;
  const past = new Date(Date.now() - 60_000).toISOString();
  const references = Array.from({ length: BACKLOG }, () => randomUUID());
  // The provider has every order (completed); our side has them all `processing` and due.
  for (let i = 0; i < references.length; i += 200) {
    await Promise.all(
      references.slice(i, i + 200).map(async (reference) => {
        const response = await request(`${simulator.url}/store/orders`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ reference, login: "benchplayer", amount_usd: 10 }),
        });
        await response.body.dump();
      }),
    );
  }
  const details = JSON.stringify({
    store_login: "benchplayer",
    amount_micro: 10_000_000,
    fee_micro: 0,
    cost_micro: 10_000_000,
    markup_bp: 0,
    markup_micro: 0,
  });
  for (let i = 0; i < references.length; i += 1000) {
    await db
      .insertInto("orders")
      .values(
        references.slice(i, i + 1000).map((reference) => ({
          account_id: account,
          funding_account_id: account,
          product_type: "store",
          status: "processing" as const,
          idempotency_key: null,
          request_hash: "bench",
          recipient: "benchplayer",
          details,
          charge_micro: 10_000_000,
          upstream_ref: reference,
          check_after: past,
          created_at: past,
          updated_at: past,
        })),
      )
      .execute();
  }
  service = await startService();
  const cpuBefore = cpuMs(service.child.pid!);
  // Only the backlog made here: an earlier row's orders still processing (gift cards) settle on their own time.
  const { left, seconds } = await settled(10 * 60_000, "bench");
  if (left) throw new Error(`the reconciler left ${left} orders after 10 minutes`);
  const result = { orders: BACKLOG, seconds, perSecond: BACKLOG / seconds, serviceCpuMs: cpuMs(service.child.pid!) - cpuBefore };
  log(`reconciler: ${BACKLOG} due orders in ${seconds.toFixed(1)} s (${Math.round(result.perSecond)} a second)`);
  return result;
}
const reconciler = everyPart ? await reconcilerDrain() : null;

// ---- the bot: our CPU per update through a whole purchase, and updates a second ---------------------------

const chatOf = (user: number) => new EmulatedChat(emulator.url, { id: user, first_name: "Bench", username: `bench${user}`, language_code: "en" });

/** A whole stars purchase from the menu command to the outcome: five updates. */
async function botFlow(user: number) {
  const chat = chatOf(user);
  await chat.reply("/stars", (t) => t.includes("Who"));
  await chat.reply("@alice", (t) => t.includes("How many stars"));
  await chat.reply("50", (t) => t.includes("Confirm?"));
  await chat.tap("Confirm");
  await chat.next((t) => t.includes("Done!"));
  return 5;
}

async function botBench() {
  const users = Array.from({ length: BOT_FLOWS * 2 }, (_, i) => 9_500_000 + i);
  for (const user of users) {
    await chatOf(user).reply("/start", (t) => t.includes("What would you like"));
    await admin.credit(String(user), fromUsdt(100), "bench");
  }
  // Our CPU per update: flows one after another, so nothing else runs in the service meanwhile; the earlier rows'
  // orders still processing (gift cards) are left to settle first, or their reconciling would be counted here.
  const { left, seconds } = await settled(120_000);
  // Measured anyway: the figure then counts their settling too, as the log says.
  log(
    left
      ? `bot: gave up waiting after ${seconds.toFixed(1)} s, ${left} orders still processing`
      : `bot: no order processing after ${seconds.toFixed(1)} s`,
  );
  const pid = service.child.pid!;
  let updates = 0;
  await botFlow(users[0]);
  const cpuBefore = cpuMs(pid);
  for (const user of users.slice(1, BOT_FLOWS)) updates += await botFlow(user);
  const cpuPerUpdateMs = (cpuMs(pid) - cpuBefore) / updates;
  // Updates a second: many chats at once.
  const started = Date.now();
  const concurrent = (await Promise.all(users.slice(BOT_FLOWS).map(botFlow))).reduce((a, b) => a + b, 0);
  const updatesPerSecond = concurrent / ((Date.now() - started) / 1000);
  log(`bot: ${cpuPerUpdateMs.toFixed(2)} ms of CPU per update, ${Math.round(updatesPerSecond)} updates a second`);
  return { flows: BOT_FLOWS, cpuPerUpdateMs, updatesPerSecond };
}
const bot = everyPart ? await botBench() : null;

// ---- webhooks under attack: a healthy partner's delivery while two keys flood endpoints that hang and drop ----

async function webhookAttack() {
  await service.stop();
  instances.splice(instances.indexOf(service), 1);
  // The attack's scaled rate and cap, with the default 10 s timeout (2 s in a smoke run); two instances on PostgreSQL.
  const attackEnv = { ...benchEnv, ...ATTACK_SETTINGS, WEBHOOK_TIMEOUT_MS: smoke ? "2000" : "10000", LOG_LEVEL: "warn" };
  const attackers: Proc[] = [];
  for (let i = 0; i < (isPostgres(db) ? 2 : 1); i += 1) {
    const port = await freePort();
    attackers.push(await startProcess(START_ARGS, port, { ...attackEnv, PORT: String(port) }, "/v1/health"));
  }
  const callers = attackers.map((instance) => async (method: "GET" | "POST", path: string, key: string, body?: unknown) => {
    const response = await request(`${instance.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.statusCode, body: await response.body.json() };
  });
  const [healthy, hanging, dropping] = await Promise.all([healthyReceiver(), hangingReceiver(), droppingEndpoint()]);
  const subscribe = async (telegramId: string, url: string) => {
    const { key } = await admin.issueKey(telegramId);
    const set = await callers[0]("POST", "/v1/webhook", key, { url });
    if (set.status !== 200) throw new Error(`setting a webhook answered ${set.status}`);
    return key;
  };
  const healthyKey = await subscribe("9600000", healthy.url);
  await admin.credit("9600000", fromUsdt(1_000_000), "bench", { confirmed: true });
  const attackKeys = { healthy: healthyKey, hanging: await subscribe("9600001", hanging.url), dropping: await subscribe("9600002", dropping.url) };
  const durationMs = smoke ? 1500 : 15_000;
  const run = (attackPerSecond: number) => runWebhookAttack({ callers, keys: attackKeys, healthy, durationMs, attackPerSecond, healthyEveryMs: 100 });
  const quiet = await run(0);
  const attacked = await run(20);
  await Promise.all([healthy.close(), hanging.close(), dropping.close()]);
  for (const instance of attackers) await instance.stop();
  service = await startService();
  const summary = (r: typeof quiet) => ({
    purchases: r.purchases,
    missing: r.missing,
    p50: r.p50,
    p99: r.p99,
    max: r.max,
    attackCalls: r.attackCalls,
  });
  log(
    `webhooks: healthy p50/p99 ${quiet.p50.toFixed(1)}/${quiet.p99.toFixed(1)} ms quiet, ${attacked.p50.toFixed(1)}/${attacked.p99.toFixed(1)} ms under attack`,
  );
  return {
    instances: attackers.length,
    seconds: durationMs / 1000,
    quiet: summary(quiet),
    attacked: summary(attacked),
    hangingMostOpen: hanging.mostOpen,
  };
}
const webhooks = everyPart ? await webhookAttack() : null;

// ---- the Mini App: its weight as sent, and the first goods' time in Chromium as the buyer sees them -------------

const miniApp = apiOnly
  ? null
  : await miniAppBench({
      serviceUrl: service.url,
      baselineUrl: ceiling.url,
      botToken: TOKEN,
      opens: smoke ? 1 : 10,
      networks: smoke ? [NETWORKS[0]] : NETWORKS,
      log,
    });

// ---- PostgreSQL: the API rows again with two instances ------------------------------------------------------

const twoInstances: Row[] = [];
if (isPostgres(db) && everyPart) {
  await startService();
  for (const row of apiRows()) twoInstances.push(await row());
}

// ---- report ------------------------------------------------------------------------------------------------

for (const instance of instances) await instance.stop();
await simulator.stop();
await ceiling.stop();
await floor.stop();
await emulator.app.close();
await seeding.close();
await own?.drop();
rmSync(dir, { recursive: true, force: true });

/**
 * The regression guard: each row's share of the ceiling beside the newest committed full run on this engine. A row
 * moved when its share changed by more than twice the noise measured for it in this run (its slices' spread), and
 * by at least 5 %: shares, not raw rates, since the machine's speed moves both a row and its ceiling.
 */
function againstPrevious(): string[] {
  const committed = readdirSync(join("bench", "results"))
    .filter((name) => name.endsWith(`-${engine}.json`))
    .sort();
  const previousFile = committed.at(-1);
  if (!previousFile) return [];
  const previous = JSON.parse(readFileSync(join("bench", "results", previousFile), "utf8")) as { rows: Row[] };
  const lines = rows.flatMap((row) => {
    const before = previous.rows.find((r) => r.name === row.name);
    if (!before) return [];
    const change = row.ratio / before.ratio - 1;
    const bound = Math.max(0.05, 2 * row.noise);
    const verdict = Math.abs(change) <= bound ? "within the noise" : change > 0 ? "**faster**" : "**slower**";
    return [
      `| ${row.name} | ${pct(before.ratio)} | ${pct(row.ratio)} | ${change >= 0 ? "+" : ""}${(change * 100).toFixed(0)} % | ±${(bound * 100).toFixed(0)} % | ${verdict} |`,
    ];
  });
  return [
    "",
    `Against the previous committed run (\`${previousFile}\`${smoke || apiOnly ? "; this run is shorter, so read it as a hint" : ""}):`,
    "",
    "| row | share then | share now | change | noise bound | verdict |",
    "|---|---|---|---|---|---|",
    ...lines,
  ];
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
/** A row's share of the ceiling over the floor's, measured in the same list: how near it is to what it needs. */
const ofFloor = (list: Row[], row: Row) => {
  const floorRow = list.find((r) => r.name === FLOOR_ROW);
  return floorRow && row !== floorRow ? pct(row.ratio / floorRow.ratio) : "";
};
const table = (list: Row[]) => {
  // PostgreSQL's rows also say what the database spent on each request.
  const database = list.some((r) => r.databaseCpuUs !== undefined);
  const databaseCell = (r: Row) => (database ? ` ${r.databaseCpuUs === undefined ? "" : Math.round(r.databaseCpuUs)} |` : "");
  return [
    `| row | req/s | % of ceiling | % of floor | CPU µs/request (ceiling's) |${database ? " database CPU µs/request |" : ""} p50 ms | p99 ms | max ms | errors | peak RSS MB |`,
    `|---|---|---|---|---|${database ? "---|" : ""}---|---|---|---|---|`,
    ...list.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rps)} | ${pct(r.ratio)} | ${ofFloor(list, r)} | ${Math.round(r.cpuUs)} (${Math.round(r.ceilingCpuUs)}) |${databaseCell(r)} ${r.p50} | ${r.p99} | ${r.max} | ${r.errors} | ${Math.round(r.peakRssMb)} |`,
    ),
  ];
};
/** Each read's share of the ceiling at a million orders over its share at a thousand (1 = flat; the ceiling absorbs the machine's noise). */
const growthRatio = (i: number) => growth[1].rows[i].ratio / growth[0].rows[i].ratio;
const markdown = [
  `## Benchmark (${engine}${smoke ? ", smoke run" : ""}${apiOnly ? ", API rows only" : ""}${miniAppOnly ? ", the Mini App only" : ""}) — ${new Date().toISOString()}`,
  "",
  miniAppOnly
    ? `Machine: ${machine}. Service: compiled JavaScript, info logging, simulator with no delay.`
    : `Machine: ${machine}. ${CONNECTIONS} connections, ${SECONDS} s a row after a ${WARMUP_SECONDS} s warm-up; the ceiling is bare Fastify answering a constant JSON body of the row's answer size with the same logging, measured in slices alternating with the row's. Service: compiled JavaScript, info logging, ${KEYS} funded keys, simulator with no delay.`,
  ...(rows.length ? ["", ...table(rows), ...againstPrevious()] : []),
  ...(twoInstances.length ? ["", "Two instances on the same PostgreSQL database (load split between them):", "", ...table(twoInstances)] : []),
  ...(growth.length
    ? [
        "",
        `Growth, ${growth[0].orders} → ${growth[1].orders} orders: ratio to the ceiling at the larger size over at the smaller ${growth[0].rows
          .map((r, i) => `${r.name.replace(/ @.*/, "")} ${growthRatio(i).toFixed(2)}`)
          .join(", ")}.`,
        "",
        ...table(growth.flatMap((g) => g.rows)),
        "",
        `Query plans: ${queryPlans.map((p) => `\`${p}\``).join("; ")}.`,
      ]
    : []),
  ...(reconciler
    ? [
        "",
        `Reconciler: ${reconciler.orders} due orders nobody polls drained in ${reconciler.seconds.toFixed(1)} s: ${Math.round(reconciler.perSecond)} a second.`,
      ]
    : []),
  ...(miniApp ? miniAppMarkdown(miniApp) : []),
  ...(webhooks
    ? [
        "",
        `Webhooks under attack (${webhooks.instances} instance${webhooks.instances > 1 ? "s" : ""}, ${webhooks.seconds} s each): a healthy partner buying every 100 ms, its event from the purchase's answer to its arrival, p50 / p99 / slowest ${webhooks.quiet.p50.toFixed(1)} / ${webhooks.quiet.p99.toFixed(1)} / ${webhooks.quiet.max.toFixed(1)} ms quiet; ${webhooks.attacked.p50.toFixed(1)} / ${webhooks.attacked.p99.toFixed(1)} / ${webhooks.attacked.max.toFixed(1)} ms while two keys sent ${webhooks.attacked.attackCalls} sandbox calls to endpoints that hang and drop (${webhooks.attacked.missing} of ${webhooks.attacked.purchases} events missing; at most ${webhooks.hangingMostOpen} attempts open at once on the hanging one).`,
      ]
    : []),
  ...(bot
    ? [
        "",
        `Bot: ${bot.cpuPerUpdateMs.toFixed(2)} ms of the service's CPU per update through a whole stars purchase (${bot.flows} flows); ${Math.round(bot.updatesPerSecond)} updates a second with ${bot.flows} chats at once.`,
      ]
    : []),
  "",
].join("\n");

const resultsDir = process.env.BENCH_RESULTS_DIR ?? join("bench", "results");
mkdirSync(resultsDir, { recursive: true });
const stamp = `${new Date().toISOString().replace(/[:.]/g, "-")}-${engine}${smoke ? "-smoke" : ""}${apiOnly ? "-api" : ""}${miniAppOnly ? "-miniapp" : ""}`;
writeFileSync(join(resultsDir, `${stamp}.md`), markdown);
writeFileSync(
  join(resultsDir, `${stamp}.json`),
  JSON.stringify(
    {
      engine,
      smoke,
      machine,
      connections: CONNECTIONS,
      seconds: SECONDS,
      rows,
      twoInstances,
      growth,
      queryPlans,
      reconciler,
      bot,
      webhooks,
      miniApp,
    },
    null,
    2,
  ),
);
console.log(markdown);
console.error(`[bench] written to ${join(resultsDir, stamp)}.md and .json`);
process.exit(0);
