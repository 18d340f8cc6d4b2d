import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { timingSafeEqual } from "node:crypto";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { type Micro, toUsdt } from "../core/model/money.js";
import type { Order } from "../core/model/products.js";
import type { DiskFlush } from "../db/wal-flush.js";

/** What the metrics read from the database when scraped (the core's monitor answers it). */
export type BacklogReader = () => Promise<{ processing: number; oldestProcessingSeconds: number; webhooksPending: number }>;

/** One call to a provider, as the HTTP client reports it. */
interface ProviderCall {
  provider: string;
  statusCode: number | null;
  durationMs: number;
}

/** One answered API request. */
export interface AnsweredRequest {
  method: string;
  /** The route's pattern (`/v1/orders/:order_id`), never the raw URL: bounded label values. */
  route: string;
  status: number;
  seconds: number;
  authenticated: boolean;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics (prom-client): requests by route and status with latency, orders by product
 * and outcome, refunds, charged volume, provider calls with latency and errors, rate-limited requests, bot
 * updates and their handling time, SQLite's flushes to disk, the reconciler's backlog and the oldest processing order, webhooks waiting,
 * and the process itself (event-loop lag, memory, CPU, GC) from prom-client's defaults.
 */
export function createMetrics(backlog: BacklogReader) {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  // A scrape lists the metrics in the order they were made: these calls and the four below keep that order.
  const request = requestMetrics(registers);
  const orderFinished = orderMetrics(registers);
  const providerCall = providerMetrics(registers);
  const botUpdate = botMetrics(registers);
  const readBacklog = backlogMetrics(registers, backlog);
  const invoices = new Counter({
    name: "topup_invoices_total",
    help: "Crypto Pay invoices for top-ups, by what happened (created, paid, expired)",
    labelNames: ["event"],
    registers,
  });
  const diskFlushes = new Histogram({
    name: "database_disk_flush_seconds",
    help: "SQLite: flushes of the WAL to disk, each shared by the writes of its moment (a group commit), and their time",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  const flushedWrites = new Counter({
    name: "database_flushed_writes_total",
    help: "SQLite: writes (a transaction or a statement) that waited for a flush to disk before going on",
    registers,
  });
  const credited = new Counter({
    name: "topup_credited_usdt_total",
    help: "USDT credited by top-ups, by method (invoice, transfer)",
    labelNames: ["method"],
    registers,
  });

  return {
    contentType: registry.contentType,
    request,
    orderFinished,
    providerCall,
    botUpdate,
    diskFlush(flush: DiskFlush) {
      diskFlushes.observe(flush.seconds);
      flushedWrites.inc(flush.writes);
    },
    /** A top-up event on this instance: an invoice made, paid or expired; a top-up credited (with what). */
    topup(event: "created" | "paid" | "expired" | "credited", topup: { method: string; creditedMicro: Micro | null }) {
      if (event === "credited") credited.inc({ method: topup.method }, toUsdt(topup.creditedMicro ?? 0));
      else invoices.inc({ event });
    },
    /** The text a scrape gets, with the backlog read now. */
    async scrape(): Promise<string> {
      await readBacklog();
      return registry.metrics();
    },
  };
}

type Registers = Registry[];

/** API requests by route and status with their latency, and those the rate limit refused. */
function requestMetrics(registers: Registers) {
  const requests = new Histogram({
    name: "http_request_duration_seconds",
    help: "API requests by method, route pattern and status, with their latency",
    labelNames: ["method", "route", "status"],
    buckets: SECONDS,
    registers,
  });
  const rateLimited = new Counter({
    name: "http_rate_limited_total",
    help: "Requests refused by the rate limit (429), per key or per address (failed authentication)",
    labelNames: ["scope"],
    registers,
  });
  return (answer: AnsweredRequest) => {
    requests.observe({ method: answer.method, route: answer.route, status: String(answer.status) }, answer.seconds);
    if (answer.status === 429) rateLimited.inc({ scope: answer.authenticated ? "key" : "address" });
  };
}

/** Orders finished by product and outcome, refunds, and the USDT charged. */
function orderMetrics(registers: Registers) {
  const orders = new Counter({
    name: "orders_finished_total",
    help: "Orders that reached a final state, by product and outcome (completed, failed)",
    labelNames: ["product", "outcome"],
    registers,
  });
  const refunds = new Counter({ name: "refunds_total", help: "Failed orders refunded, by product", labelNames: ["product"], registers });
  const charged = new Counter({
    name: "charged_usdt_total",
    help: "USDT charged for completed orders, by product",
    labelNames: ["product"],
    registers,
  });
  return (order: Order) => {
    orders.inc({ product: order.productType, outcome: order.status });
    if (order.status === "completed") charged.inc({ product: order.productType }, toUsdt(order.chargeMicro));
    if (order.status === "failed" && order.refunded) refunds.inc({ product: order.productType });
  };
}

/** Provider calls by outcome with their latency, and those that failed. */
function providerMetrics(registers: Registers) {
  const upstream = new Histogram({
    name: "upstream_request_duration_seconds",
    help: "Calls to providers by provider and outcome (2xx, 4xx, 5xx, no_answer), with their latency",
    labelNames: ["provider", "outcome"],
    buckets: SECONDS,
    registers,
  });
  const upstreamErrors = new Counter({
    name: "upstream_errors_total",
    help: "Provider calls that failed: a 5xx answer or no answer at all (refused, timed out)",
    labelNames: ["provider"],
    registers,
  });
  return (call: ProviderCall) => {
    const code = call.statusCode;
    const outcome = code === null ? "no_answer" : `${Math.floor(code / 100)}xx`;
    upstream.observe({ provider: call.provider, outcome }, call.durationMs / 1000);
    if (code === null || code >= 500) upstreamErrors.inc({ provider: call.provider });
  };
}

/** Telegram updates by kind, with their handling time. */
function botMetrics(registers: Registers) {
  const botUpdates = new Histogram({
    name: "bot_update_duration_seconds",
    help: "Telegram updates handled, by kind, with their handling time",
    labelNames: ["kind"],
    buckets: SECONDS,
    registers,
  });
  return (kind: string, seconds: number) => botUpdates.observe({ kind }, seconds);
}

/** The backlog's gauges; the returned function reads the backlog into them (at each scrape). */
function backlogMetrics(registers: Registers, backlog: BacklogReader) {
  const processing = new Gauge({
    name: "orders_processing",
    help: "Orders waiting for their provider's outcome (the reconciler's backlog)",
    registers,
  });
  const oldest = new Gauge({
    name: "orders_oldest_processing_age_seconds",
    help: "Age of the oldest order still processing (0 when none)",
    registers,
  });
  const webhooks = new Gauge({ name: "webhook_events_pending", help: "Webhook events not yet delivered", registers });
  return async () => {
    const now = await backlog();
    processing.set(now.processing);
    oldest.set(now.oldestProcessingSeconds);
    webhooks.set(now.webhooksPending);
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Serves GET /metrics on a listener of its own (never the partners' port), with a bearer token when one is set.
 * A port already in use is logged and the service runs on without metrics: scraping fails visibly, and the
 * partners' API is not taken down for the operators' side channel.
 */
export async function serveMetrics(
  metrics: Metrics,
  options: { host: string; port: number; token?: string; log: { warn(o: object, m: string): void; error(o: object, m: string): void } },
): Promise<{ url: string; close(): Promise<void> } | null> {
  const expected = options.token ? Buffer.from(`Bearer ${options.token}`) : null;
  const server = createServer((request, response) => {
    if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("GET /metrics\n");
      return;
    }
    const given = Buffer.from(request.headers.authorization ?? "");
    if (expected && (given.length !== expected.length || !timingSafeEqual(given, expected))) {
      response.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("a bearer token is required\n");
      return;
    }
    metrics.scrape().then(
      (text) => response.writeHead(200, { "content-type": metrics.contentType }).end(text),
      (error: unknown) => {
        options.log.warn({ err: error }, "metrics scrape failed");
        response.writeHead(503, { "content-type": "text/plain" }).end("metrics unavailable\n");
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    // The API still serves (metrics are not worth refusing orders over), but the operator must see it.
    const { code, message } = error as { code?: string; message: string };
    options.log.error(
      { port: options.port, host: options.host, code, error: message },
      `metrics not served: port ${options.port} is not available (${code ?? message}); set METRICS_PORT to a free port, or off`,
    );
    return null;
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/metrics`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
