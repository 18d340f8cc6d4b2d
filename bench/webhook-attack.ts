import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// The webhook attack of issue 19, shared by its tests and `npm run bench`: two keys with no balance send sandbox
// calls (each makes a test event) at the full per-key rate to endpoints that never answer — one accepts the
// connection and hangs, one drops it (a firewall's silence) — while a healthy partner buys and times each
// event from its purchase's answer to its arrival.

/**
 * The service's settings for the attack: the per-key rate and the timeout scaled so that seconds show what
 * takes minutes with the defaults (60 calls a minute, 10 s), a small pending cap so it is reached.
 */
export const ATTACK_SETTINGS = {
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_TIMEOUT_MS: "2000",
  WEBHOOK_RETRY_BASE_MS: "500",
  WEBHOOK_RETRY_MAX_MS: "2000",
  WEBHOOK_POLL_MS: "200",
  WEBHOOK_PENDING_MAX: "40",
  RATE_LIMIT_PER_MINUTE: "1200",
};

/** One API call: (method, path, key, body) → status and JSON body. Several callers are several instances. */
export type Caller = (method: "GET" | "POST", path: string, key: string, body?: unknown) => Promise<{ status: number; body: any }>;

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`)));

/** The healthy partner's receiver: answers 200 at once and notes when each order's event arrived. */
export async function healthyReceiver() {
  const arrivals = new Map<number, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const orderId = event.data?.order?.order_id;
      if (typeof orderId === "number" && !arrivals.has(orderId)) arrivals.set(orderId, performance.now());
      res.writeHead(200).end("ok");
    });
  });
  const url = await listen(server);
  return { url, arrivals, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** An endpoint that takes the request and never answers; counts what is open at once and every event id seen. */
export async function hangingReceiver() {
  const seen: string[] = [];
  let open = 0;
  let mostOpen = 0;
  const server = createServer((req) => {
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    req.socket.once("close", () => (open -= 1));
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => seen.push(JSON.parse(Buffer.concat(chunks).toString("utf8")).id));
  });
  const url = await listen(server);
  return {
    url,
    seen,
    get mostOpen() {
      return mostOpen;
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/**
 * An endpoint whose packets are dropped: a socket that listens with no backlog and never accepts, so once its
 * queue is full the kernel drops every new connection's SYN and a connect hangs as behind a silent firewall.
 * Node always accepts, so a two-line python3 (on every machine that builds better-sqlite3) holds the socket.
 */
export async function droppingEndpoint() {
  const child: ChildProcess = spawn(
    "python3",
    ["-c", "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(3600)"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout!.once("data", (data: Buffer) => resolve(data.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}/hooks`, close: async () => void child.kill("SIGKILL") };
}

export interface AttackOptions {
  callers: Caller[];
  keys: { healthy: string; hanging: string; dropping: string };
  healthy: Awaited<ReturnType<typeof healthyReceiver>>;
  durationMs: number;
  /** Sandbox calls a second from each attacking key (their rate limit answers 429 past its own); 0: no attack. */
  attackPerSecond: number;
  /** One purchase of the healthy partner every so many milliseconds. */
  healthyEveryMs: number;
  /** How long to wait for the healthy partner's last events after the attack. */
  settleMs?: number;
}

export interface AttackResult {
  /** Each healthy purchase's event: milliseconds from the purchase's answer to the event's arrival (sorted). */
  lagsMs: number[];
  purchases: number;
  /** Healthy events that never arrived. */
  missing: number;
  attackCalls: number;
  p50: number;
  p99: number;
  max: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;

/** Runs the attack for `durationMs` and returns the healthy partner's delivery lags. */
export async function runWebhookAttack(options: AttackOptions): Promise<AttackResult> {
  const { callers, keys, healthy } = options;
  const end = performance.now() + options.durationMs;
  const via = (i: number) => callers[i % callers.length];
  let attackCalls = 0;

  async function attack(key: string, offset: number) {
    if (!options.attackPerSecond) return;
    const gap = 1000 / options.attackPerSecond;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; performance.now() < end; i += 1) {
      calls.push(via(i + offset)("POST", "/test/v1/stars", key, { username: "alice", stars: 50 + (i % 1000) }).catch(() => undefined));
      attackCalls += 1;
      await new Promise((resolve) => setTimeout(resolve, gap));
    }
    await Promise.all(calls);
  }

  const answered = new Map<number, number>();
  async function buy() {
    for (let i = 0; performance.now() < end; i += 1) {
      const bought = await via(i)("POST", "/v1/stars", keys.healthy, { username: "alice", stars: 50 });
      if (bought.status !== 200) throw new Error(`the healthy partner's purchase answered ${bought.status}: ${JSON.stringify(bought.body)}`);
      answered.set(bought.body.order_id, performance.now());
      await new Promise((resolve) => setTimeout(resolve, options.healthyEveryMs));
    }
  }

  await Promise.all([attack(keys.hanging, 0), attack(keys.dropping, 1), buy()]);
  const settleUntil = performance.now() + (options.settleMs ?? 3000);
  while (performance.now() < settleUntil && [...answered.keys()].some((id) => !healthy.arrivals.has(id))) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const lagsMs = [...answered]
    .filter(([id]) => healthy.arrivals.has(id))
    .map(([id, at]) => Math.max(0, healthy.arrivals.get(id)! - at))
    .sort((a, b) => a - b);
  return {
    lagsMs,
    purchases: answered.size,
    missing: answered.size - lagsMs.length,
    attackCalls,
    p50: percentile(lagsMs, 50),
    p99: percentile(lagsMs, 99),
    max: lagsMs.at(-1) ?? NaN,
  };
}
