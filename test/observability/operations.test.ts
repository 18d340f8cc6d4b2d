import { request } from "undici";
import { describe, expect, it } from "vitest";
import { fromUsdt } from "../../src/core/model/money.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// Operating it: Prometheus metrics, administrators' alerts in Telegram, and the customer's low-balance notice.

const ADMIN = 940_000_001;
let bots: BotHarness;
let h: Harness;
let admin: EmulatedChat;
useBotHarness(
  680_000_001,
  {
    admins: [ADMIN],
    timeScale: 1,
    env: {
      RATE_LIMIT_PER_MINUTE: "40",
      ALERT_CHECK_INTERVAL_MS: "100",
      ALERT_REFUNDS: "3",
      ALERT_REFUND_WINDOW_MINUTES: "1",
      ALERT_WALLET_BELOW_USDT: "100",
      ALERT_LEDGER_CHECK_SECONDS: "1",
      ALERT_UNPAID_INVOICES: "2",
      TOPUP_POLL_MS: "100",
      LOW_BALANCE_USDT: "5",
      METRICS_PORT: "0",
      METRICS_TOKEN: "scrape-token-0123456789",
    },
    books: true,
  },
  (started) => {
    bots = started;
    h = started.h;
    admin = new EmulatedChat(bots.emulatorUrl, { id: ADMIN, first_name: "Admin", username: "ops_admin", language_code: "en" });
  },
);

/** The value of one sample of the scrape, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) return Number(line.split(" ").at(-1));
  }
  return undefined;
}

/** Every message the admin got whose text includes `part`. */
const toAdmin = async (part: string) => (await admin.messages()).filter((m) => m.from_bot && m.text.includes(part));

describe("metrics", () => {
  it("count requests, orders, refunds, volume, provider calls, rate limits and bot updates, and read the backlog", async () => {
    const { key } = await h.newKey(50);
    expect((await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } })).status).toBe(200);
    expect((await h.call("POST", "/v1/stars", { key, body: { username: "fail_bob", stars: 100 } })).status).toBe(502);
    const pending = await h.call("POST", "/v1/store", { key, body: { login: "pending_metrics", amount_usd: 10 } });
    expect(pending.status).toBe(202);
    const { chat } = await bots.registered(0);
    await chat.reply("/balance", (t) => t.includes("USDT"));
    const { key: busy } = await h.newKey(1);
    let limited = 0;
    for (let i = 0; i < 45; i++) if ((await h.call("GET", "/v1/balance", { key: busy })).status === 429) limited += 1;
    expect(limited).toBeGreaterThan(0);

    // An update is counted when its handling ends, a moment after its last reply.
    const text = await eventually(async () => {
      const scraped = await h.service.metrics.scrape();
      return (sample(scraped, "bot_update_duration_seconds_count", { kind: "message" }) ?? 0) >= 2 ? scraped : undefined;
    });
    expect(sample(text, "http_request_duration_seconds_count", { method: "POST", route: "/v1/stars", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "http_request_duration_seconds_count", { method: "POST", route: "/v1/stars", status: "502" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "orders_finished_total", { product: "stars", outcome: "completed" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "orders_finished_total", { product: "stars", outcome: "failed" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "refunds_total", { product: "stars" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "charged_usdt_total", { product: "stars" })).toBeGreaterThanOrEqual(1.5);
    expect(sample(text, "http_rate_limited_total", { scope: "key" })).toBe(limited);
    expect(sample(text, "upstream_request_duration_seconds_count", { provider: "gateway", outcome: "2xx" })).toBeGreaterThanOrEqual(2);
    expect(sample(text, "orders_processing")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "orders_oldest_processing_age_seconds")).toBeGreaterThan(0);
    // SQLite's flushes to disk: each purchase's charge, then its outcome, waited for one (shared or not).
    expect(sample(text, "database_flushed_writes_total")).toBeGreaterThanOrEqual(6);
    expect(sample(text, "database_disk_flush_seconds_count")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "database_disk_flush_seconds_count")).toBeLessThanOrEqual(sample(text, "database_flushed_writes_total")!);
    expect(sample(text, "nodejs_eventloop_lag_seconds")).toBeDefined();
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    // Route patterns, never raw URLs: an order id does not become a label value.
    expect(text).not.toMatch(/route="\/v1\/orders\/\d/);
  });

  it("are served on their own port behind the token, never on the partners' port", async () => {
    const url = await h.service.startMetrics();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const bare = await request(url!);
    expect(bare.statusCode).toBe(401);
    await bare.body.dump();
    const scraped = await request(url!, { headers: { authorization: "Bearer scrape-token-0123456789" } });
    expect(scraped.statusCode).toBe(200);
    expect(await scraped.body.text()).toContain("http_request_duration_seconds_bucket");
    const { key } = await h.newKey(1);
    expect((await h.call("GET", "/metrics", { key })).status).toBe(404);
  });
});

describe("alerts to administrators", () => {
  it("tell a provider down and back once each, however many checks see it", async () => {
    await h.fault("games", "down");
    await eventually(async () => ((await toAdmin("Provider games (protocol) is down")).length ? true : undefined));
    for (let i = 0; i < 6; i++) await h.service.jobs.monitor.runOnce(); // several more checks, run now
    await h.fault("games", "ok");
    await eventually(async () => ((await toAdmin("Provider games (protocol) is back")).length ? true : undefined));
    expect(await toAdmin("Provider games (protocol) is down")).toHaveLength(1);
    expect(await toAdmin("Provider games (protocol) is back")).toHaveLength(1);
  });

  it("tell when Crypto Pay is down and back, and when invoices expire unpaid in an unusual number; metrics count invoices and USDT credited", async () => {
    const control = async (path: string, body: object) => {
      const response = await request(`${h.simulatorUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = (await response.body.json()) as any;
      expect(response.statusCode, path).toBe(200);
      return answer;
    };
    await control("/control/faults", { provider: "cryptopay", mode: "down" });
    await eventually(async () => ((await toAdmin("Crypto Pay does not answer")).length ? true : undefined));
    await control("/control/faults", { provider: "cryptopay", mode: "ok" });
    await eventually(async () => ((await toAdmin("Crypto Pay answers again")).length ? true : undefined));

    // ALERT_UNPAID_INVOICES is 2 here: two invoices left to expire, and one paid.
    const { key } = await h.newKey(0);
    const made = [];
    for (const amount of [5, 6, 7]) made.push((await h.call("POST", "/v1/topups", { key, body: { amount_usdt: amount } })).body.topup);
    await control(`/cryptopay/control/invoices/${made[0].invoice_id}/pay`, {});
    for (const topup of made.slice(1)) await control(`/cryptopay/control/invoices/${topup.invoice_id}/expire`, {});
    await eventually(async () => ((await toAdmin("2 top-up invoices were left unpaid")).length ? true : undefined), 15_000);
    const scraped = await h.service.metrics.scrape();
    expect(sample(scraped, "topup_invoices_total", { event: "created" })).toBe(3);
    expect(sample(scraped, "topup_invoices_total", { event: "paid" })).toBe(1);
    expect(sample(scraped, "topup_invoices_total", { event: "expired" })).toBe(2);
    expect(sample(scraped, "topup_credited_usdt_total", { method: "invoice" })).toBe(5);
  });

  it("tell a spike of refunds, a low service wallet and an order stuck past its provider's time", async () => {
    const { key } = await h.newKey(20);
    for (let i = 0; i < 3; i++) expect((await h.call("POST", "/v1/stars", { key, body: { username: "fail_bob", stars: 50 + i } })).status).toBe(502);
    const spike = await eventually(async () => (await toAdmin("refunds in the last"))[0]);
    expect(spike.text).toMatch(/[3-9] refunds in the last 1 minutes/);

    const owner = await h.newKey(0);
    await h.service.core.admin.makeOwner(owner.telegramId, {}, "admin:test");
    await h.service.core.admin.setWallet(fromUsdt(40), "admin:test");
    const wallet = await eventually(async () => (await toAdmin("service wallet holds"))[0]);
    expect(wallet.text).toContain("40.00 USDT, under 100.00 USDT");
    await h.service.core.admin.setWallet(fromUsdt(500), "admin:test");
    await eventually(async () => ((await toAdmin("service wallet is back")).length ? true : undefined));

    const placed = await h.call("POST", "/v1/store", { key, body: { login: "pending_stuck", amount_usd: 1 } });
    expect(placed.status).toBe(202);
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await h.service.db.updateTable("orders").set({ created_at: hourAgo }).where("id", "=", placed.body.order_id).execute();
    const stuck = await eventually(async () => (await toAdmin("past its provider's time"))[0]);
    expect(stuck.text).toContain(`1 order is processing past its provider's time: #${placed.body.order_id} (store)`);
  });

  it("tell when the books stop holding, and when they hold again", async () => {
    const { telegramId } = await h.newKey(10);
    const account = (await h.service.core.accounts.byTelegramId(telegramId))!;
    const db = h.service.db;
    await db
      .updateTable("accounts")
      .set({ balance_micro: account.balanceMicro + 1 })
      .where("id", "=", account.id)
      .execute();
    try {
      const broken = await eventually(async () => (await toAdmin("The books do not hold"))[0], 15_000);
      expect(broken.text).toContain(`account ${account.id}`);
    } finally {
      await db.updateTable("accounts").set({ balance_micro: account.balanceMicro }).where("id", "=", account.id).execute();
    }
    await eventually(async () => ((await toAdmin("The books hold again")).length ? true : undefined), 15_000);
  });
});

describe("the low-balance notice", () => {
  it("tells once when a purchase takes the balance under the line, and not after the user turns it off", async () => {
    const { chat, key, telegramId } = await bots.registered(10);
    // The core decides a notice before the purchase is answered; every notice decided is waited for below (so a
    // second one would be seen), instead of sleeping for one that should not come.
    let decided = 0;
    h.service.core.lowBalance.onLow((account) => void (account.telegramId === telegramId && (decided += 1)));
    const noticesDecidedArrived = () =>
      eventually(async () => ((await chat.messages()).filter((m) => m.text.includes("under 5.00 USDT")).length >= decided ? true : undefined));
    expect((await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 400 } })).status).toBe(200); // 10 -> 4
    const notice = await chat.next((t) => t.includes("under 5.00 USDT"));
    expect(notice.text).toContain("Your balance is 4.00 USDT");
    expect((await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } })).status).toBe(200); // 4 -> 2.5: already under
    await noticesDecidedArrived();
    expect((await chat.messages()).filter((m) => m.text.includes("under 5.00 USDT"))).toHaveLength(1);

    await chat.reply("/balance", (t) => t.includes("USDT"));
    await chat.tap("Low-balance notice: on");
    await chat.next((t) => t.includes("notices are off"));
    await h.service.core.admin.credit(telegramId, fromUsdt(10), "test"); // 12.5
    expect((await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 600 } })).status).toBe(200); // 12.5 -> 3.5
    await noticesDecidedArrived();
    expect((await chat.messages()).filter((m) => m.text.includes("under 5.00 USDT"))).toHaveLength(1);
  });
});

describe("the example alert rules", () => {
  it("name only metrics the service exports", async () => {
    const { readFileSync } = await import("node:fs");
    const rules = readFileSync("ops/prometheus-alerts.yml", "utf8");
    const exprs = [...rules.matchAll(/expr: (>\n(?:\s{10,}.*\n)+|.*\n)/g)].map((m) => m[1]);
    const named = new Set(exprs.flatMap((expr) => expr.match(/\b[a-z_]+(?:_total|_seconds|_bytes|_processing|_pending|_count|_bucket)\b/g) ?? []));
    expect(named.size).toBeGreaterThanOrEqual(8);
    const scraped = await h.service.metrics.scrape();
    // Declared metrics (a labelled one has no sample before its first event), with a histogram's series.
    const exported = new Set(
      [...scraped.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
        type === "histogram" ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name],
      ),
    );
    for (const name of named) expect(exported.has(name), name).toBe(true);
  });
});
