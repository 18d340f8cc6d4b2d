import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { sql } from "kysely";
import { request } from "undici";
import { loadConfig } from "../src/config.js";
import { fromUsdt } from "../src/core/model/money.js";
import { engineOf } from "../src/db/database.js";
import { openCore } from "../src/root.js";
import { cpuMs, databaseCpuMs, freePort, ownPostgresDatabase, type Proc, serviceEnv, START_ARGS, startProcess } from "./processes.js";

// npm run bench:ab -- <before> [after]: two builds of the service measured in the same run, their rounds
// alternating so both see the machine's same moments: the way to say what a change did on a shared machine.
// <before> is a git ref (checked out and built in a temporary worktree) or a folder holding a build; [after] is a
// folder, this one by default. Each runs on a copy of one seeded SQLite file (DATABASE_URL=postgres://… : one
// PostgreSQL database of its own, dropped after). `--paths` names the requests ("GET /v1/balance,POST /v1/stars"),
// `--rounds` and `--seconds` their length; `--webhooks` gives every key a webhook endpoint (a receiver here answering
// 200), so purchases write and deliver their events; `--smoke` runs it for a moment (the test suite's check).

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    paths: { type: "string", default: "GET /v1/balance,POST /v1/stars" },
    rounds: { type: "string", default: "4" },
    seconds: { type: "string", default: "4" },
    smoke: { type: "boolean", default: false },
    webhooks: { type: "boolean", default: false },
  },
});
const [beforeArgument, afterArgument = "."] = positionals;
if (!beforeArgument) throw new Error("usage: npm run bench:ab -- <git ref or folder> [folder] [--paths …] [--rounds n] [--seconds s]");
const ROUNDS = options.smoke ? 1 : Number(options.rounds);
const SECONDS = options.smoke ? 1 : Number(options.seconds);
const KEYS = 64;
const CONNECTIONS = 16;
const log = (message: string) => console.error(`[ab] ${message}`);

/** A request to measure: each is made with the next key, and a POST with a fresh body. */
const targets = options.paths.split(",").map((text) => {
  const [method, path] = text.trim().split(/\s+/) as ["GET" | "POST", string];
  if (!["GET", "POST"].includes(method) || !path?.startsWith("/")) throw new Error(`not a request: ${text} (say "GET /v1/balance")`);
  if (method === "POST") bodyFor(path); // an unknown POST is refused before anything starts
  return { name: `${method} ${path}`, method, path };
});
function bodyFor(path: string): object {
  if (/\/v1\/stars$/.test(path)) return { username: "alice", stars: 50, idempotency_key: randomUUID() };
  if (path === "/v1/store") return { login: "benchplayer", amount_usd: 10, idempotency_key: randomUUID() };
  throw new Error(`no body known for POST ${path}`);
}

// ---- the two builds ------------------------------------------------------------------------------------

/** Undone however the run ends: the worktrees made, the SQLite files. */
const cleanups: Array<() => void> = [];
process.on("exit", () => {
  for (const cleanup of cleanups.reverse()) {
    try {
      cleanup();
    } catch {
      // Best effort: a worktree left behind is listed by `git worktree list`.
    }
  }
});
/** A folder with a build of the service: the folder given, or the git ref checked out and built. */
function buildOf(argument: string): string {
  if (existsSync(join(argument, "dist", "src", "main.js"))) return resolve(argument);
  const folder = mkdtempSync(join(tmpdir(), "partner-ab-"));
  log(`building ${argument} in ${folder}`);
  execFileSync("git", ["worktree", "add", "--detach", folder, argument], { stdio: "ignore" });
  cleanups.push(() => execFileSync("git", ["worktree", "remove", "--force", folder], { stdio: "ignore" }));
  symlinkSync(resolve("node_modules"), join(folder, "node_modules"));
  execFileSync("npm", ["run", "-s", "build"], { cwd: folder, stdio: "inherit" });
  return folder;
}
const variants = [
  { name: "before", folder: buildOf(beforeArgument) },
  { name: "after", folder: buildOf(afterArgument) },
];

// ---- one seeded database, a copy (or the same PostgreSQL database) for each --------------------------------

const serverUrl = process.env.DATABASE_URL && engineOf(process.env.DATABASE_URL) === "postgres" ? process.env.DATABASE_URL : null;
const dir = mkdtempSync(join(tmpdir(), "partner-ab-data-"));
cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
const own = serverUrl ? await ownPostgresDatabase(serverUrl, "ab") : null;
const seedUrl = own?.url ?? join(dir, "seed.db");
const codesKey = randomBytes(32).toString("base64");
const { service: seeding } = await openCore(loadConfig({ DATABASE_URL: seedUrl, CODES_KEY: codesKey, UPSTREAM: "external", LOG_LEVEL: "warn" }));
const keys: string[] = [];
for (let i = 0; i < KEYS; i++) {
  const telegramId = String(8_000_000 + i);
  keys.push((await seeding.core.admin.issueKey(telegramId)).key);
  await seeding.core.admin.credit(telegramId, fromUsdt(1_000_000), "ab", { confirmed: true });
}
if (!serverUrl) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(seeding.db);
await seeding.close();

// `--webhooks`: where every key's events go, answered at once.
const receiver = options.webhooks ? createServer((req, res) => req.resume().on("end", () => res.end("ok"))) : null;
if (receiver) await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = receiver ? `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` : null;

const simulatorPort = await freePort();
const simulator = await startProcess(["--import", "tsx", "bench/simulator.ts", String(simulatorPort)], simulatorPort, {}, "/health");
interface Running {
  name: string;
  proc: Proc;
  /** Each key's own stars order, for `{id}` in a path. */
  orders: number[];
}
const running: Running[] = [];
for (const [index, variant] of variants.entries()) {
  // SQLite: a file each, so neither's WAL and checkpoints touch the other's.
  const url = serverUrl ? seedUrl : join(dir, `${variant.name}-${index}.db`);
  if (!serverUrl) copyFileSync(seedUrl, url);
  const port = await freePort();
  const args = START_ARGS.map((arg) => (arg.startsWith("dist/") ? join(variant.folder, arg) : arg));
  const env = {
    ...serviceEnv(url, codesKey, simulator.url),
    METRICS_PORT: "off",
    WEBHOOK_ALLOW_LOOPBACK: "true",
    PORT: String(port),
  };
  const proc = await startProcess(args, port, env, "/v1/health");
  const orders: number[] = [];
  for (const key of keys) {
    if (receiverUrl) {
      const answer = await request(`${proc.url}/v1/webhook`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify({ url: receiverUrl }),
      });
      if (answer.statusCode !== 200) throw new Error(`POST /v1/webhook: ${answer.statusCode} ${await answer.body.text()}`);
      await answer.body.dump();
    }
    const answer = await request(`${proc.url}/v1/stars`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ username: "alice", stars: 50 }),
    });
    orders.push(((await answer.body.json()) as { order_id: number }).order_id);
  }
  running.push({ name: variant.name, proc, orders });
}

// ---- alternating rounds ----------------------------------------------------------------------------------

async function cannon(variant: Running, target: (typeof targets)[number], seconds: number) {
  let n = 0;
  const result = await autocannon({
    url: variant.proc.url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: target.method,
        setupRequest: (req: autocannon.Request) => {
          const i = n++ % KEYS;
          const body = target.method === "POST" ? bodyFor(target.path) : undefined;
          return {
            ...req,
            path: target.path.replace("{id}", String(variant.orders[i])),
            headers: { "x-api-key": keys[i]!, ...(body ? { "content-type": "application/json" } : {}) },
            ...(body ? { body: JSON.stringify(body) } : {}),
          };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

interface Sample {
  rps: number;
  p99: number;
  cpuUs: number;
  databaseUs: number | null;
  errors: number;
}
const samples = new Map<string, Sample[]>();
for (const target of targets) for (const variant of running) await cannon(variant, target, options.smoke ? 1 : 1.5); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const target of targets) {
    // Who goes first alternates, so neither always follows the other's load.
    for (const variant of round % 2 === 0 ? running : [...running].reverse()) {
      const pid = variant.proc.child.pid!;
      const cpu = cpuMs(pid);
      const database = serverUrl ? databaseCpuMs() : null;
      const result = await cannon(variant, target, SECONDS);
      const databaseAfter = serverUrl ? databaseCpuMs() : null;
      const perRequest = (ms: number) => (ms * 1000) / Math.max(1, result.total);
      const sample: Sample = {
        rps: result.rps,
        p99: result.p99,
        cpuUs: perRequest(cpuMs(pid) - cpu),
        databaseUs: database === null || databaseAfter === null ? null : perRequest(databaseAfter - database),
        errors: result.errors,
      };
      const key = `${target.name}|${variant.name}`;
      samples.set(key, [...(samples.get(key) ?? []), sample]);
      log(`round ${round + 1}, ${target.name}, ${variant.name}: ${Math.round(sample.rps)} a second, ${Math.round(sample.cpuUs)} µs of CPU a request`);
    }
  }
}

for (const variant of running) await variant.proc.stop();
await simulator.stop();
receiver?.close();
await own?.drop();

// ---- the table -------------------------------------------------------------------------------------------

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const change = (before: number, after: number) => `${after >= before ? "+" : ""}${(((after - before) / before) * 100).toFixed(1)} %`;
const lines = [
  `A/B on ${serverUrl ? "postgres" : "sqlite"}, Node ${process.version}${receiverUrl ? ", every key with a webhook endpoint" : ""}: before = ${beforeArgument}, after = ${afterArgument}; ${ROUNDS} rounds of ${SECONDS} s a request and build, alternating, ${CONNECTIONS} connections over ${KEYS} keys.`,
  "",
  `| request | build | req/s (mean) | req/s (median) | CPU µs/request |${serverUrl ? " database CPU µs/request |" : ""} p99 ms (median) | errors |`,
  `|---|---|---|---|---|${serverUrl ? "---|" : ""}---|---|`,
];
const summary = (list: Sample[]) => ({
  rps: mean(list.map((s) => s.rps)),
  median: median(list.map((s) => s.rps)),
  cpuUs: mean(list.map((s) => s.cpuUs)),
  databaseUs: list.every((s) => s.databaseUs !== null) ? mean(list.map((s) => s.databaseUs!)) : null,
  p99: median(list.map((s) => s.p99)),
  errors: list.reduce((sum, s) => sum + s.errors, 0),
});
for (const target of targets) {
  const [before, after] = running.map((variant) => summary(samples.get(`${target.name}|${variant.name}`)!));
  for (const [variant, s] of [
    ["before", before!],
    ["after", after!],
  ] as const) {
    lines.push(
      `| ${target.name} | ${variant} | ${Math.round(s.rps)} | ${Math.round(s.median)} | ${Math.round(s.cpuUs)} |${serverUrl ? ` ${s.databaseUs === null ? "" : Math.round(s.databaseUs)} |` : ""} ${s.p99} | ${s.errors} |`,
    );
  }
  lines.push(
    `| ${target.name} | after vs before | ${change(before!.rps, after!.rps)} | ${change(before!.median, after!.median)} | ${change(before!.cpuUs, after!.cpuUs)} |${serverUrl ? " |" : ""} | |`,
  );
}
console.log(lines.join("\n"));
process.exit(0);
