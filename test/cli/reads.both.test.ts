import { describe, expect, it } from "vitest";
import { formatUsdt, fromUsdt } from "../../src/core/model/money.js";
import type { Harness } from "../support/harness.js";
import { runScript } from "../support/processes.js";
import { useHarness } from "../support/use-harness.js";

// The admin CLI's reads as an operator runs them: the compiled program (`npm run admin -- …`, as a process of its
// own) against the running service's database, on this engine. Each read's --json carries the API's field names
// and amounts: what the API answers the account's key is compared field for field.

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

const admin = (...args: string[]) => runScript("admin", { DATABASE_URL: h.databaseUrl, ...h.databaseEnv }, ...args);
/** A read that must succeed: its stdout. */
async function read(...args: string[]): Promise<string> {
  const result = await admin(...args);
  expect(result, args.join(" ")).toMatchObject({ code: 0, stderr: "" });
  return result.stdout.trim();
}
const json = async (...args: string[]) => JSON.parse(await read(...args, "--json"));

/** A user with a username, a credited balance, a completed and a failed stars order, and a credited transfer. */
async function customer(telegramId: string, username: string) {
  const { key } = await h.service.core.accounts.issueKey(telegramId, username);
  await h.service.core.admin.credit(telegramId, fromUsdt(20), "cli:test", { note: "opening" });
  const completed = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
  expect(completed.body.status).toBe("completed");
  const failed = await h.call("POST", "/v1/stars", { key, body: { username: "fail_bob", stars: 50 } });
  expect(failed.body.status).toBe("failed");
  const account = (await h.service.core.accounts.byTelegramId(telegramId))!;
  const transfer = await h.service.core.topups.requestTransfer(account, fromUsdt(4), `cash from ${telegramId}`);
  await h.service.core.topups.decide(transfer.id, { telegramId: "1", name: "Ann" }, { approve: true });
  return { key, completed: completed.body.order_id as number, failed: failed.body.order_id as number, topup: transfer.id };
}

// Each read is a process of its own: most of a second on an idle machine, several seconds on a busy one.
const PROCESSES = { timeout: 120_000 };

describe("npm run admin -- user, balance (reads of an account)", PROCESSES, () => {
  it("shows the account by id, @username or key prefix, in lines and as JSON with the API's balance", async () => {
    const { key } = await customer("560001", "reads_ann");
    await h.service.core.admin.setMarkup("560001", "store", 250, "cli:test");
    const apiBalance = (await h.call("GET", "/v1/balance", { key })).body;

    // Each read is a process of its own: they run side by side.
    const [text, user, balanceText, balanceShown] = await Promise.all([
      read("user", "@reads_ann"),
      json("user", key.slice(0, 11)),
      read("balance", "560001"),
      json("balance", "560001"),
    ]);
    const lines = text.split("\n");
    expect(lines[0]).toBe("560001 @reads_ann (standard key)");
    expect(lines).toContain(`  key: ${key.slice(0, 11)}… (the live key's prefix)`);
    expect(lines).toContain("  blocked: no");
    expect(lines).toContain(`  balance: ${formatUsdt(fromUsdt(apiBalance.balance_usdt))} USDT`);
    expect(lines.find((line) => line.startsWith("  markups:"))).toMatch(/^ {2}markups: store 2\.5% \(personal\), games \d+(\.\d+)?% \(default\)/);
    expect(lines.find((line) => line.startsWith("  created:"))).toMatch(/^ {2}created: \d{4}-\d\d-\d\dT/);

    expect(user).toMatchObject({
      telegram_id: "560001",
      username: "reads_ann",
      kind: "standard",
      blocked: false,
      key_prefix: key.slice(0, 11),
      balance_usdt: apiBalance.balance_usdt,
      currency: "USDT",
      daily_limit_usdt: null,
      order_limit_usdt: null,
    });
    expect(user.markups.store).toEqual({ markup_percent: 2.5, personal: true });
    expect(user.markups.games.personal).toBe(false);

    expect(balanceText).toBe(`balance of 560001 @reads_ann: ${formatUsdt(fromUsdt(apiBalance.balance_usdt))} USDT`);
    const { success: _success, ...asTheApi } = apiBalance;
    expect(balanceShown).toEqual({ telegram_id: "560001", username: "reads_ann", kind: "standard", ...asTheApi });
  });

  it("shows an owner key's limits and what the wallet leaves it today", async () => {
    await h.service.core.accounts.issueKey("560002", "reads_owner");
    await h.service.core.admin.makeOwner("560002", { dailyLimitMicro: fromUsdt(50), orderLimitMicro: fromUsdt(5) }, "cli:test");
    await h.service.core.admin.setWallet(fromUsdt(30), "cli:test", { confirmed: true });
    const [text, balanceShown, user] = await Promise.all([read("user", "560002"), json("balance", "560002"), json("user", "560002")]);
    const lines = text.split("\n");
    expect(lines[0]).toBe("560002 @reads_owner (owner key)");
    expect(lines).toContain("  owner limits: daily 50.00 (50.00 left today), per order 5.00");
    expect(balanceShown).toEqual({
      telegram_id: "560002",
      username: "reads_owner",
      kind: "owner",
      balance_usdt: 30,
      currency: "USDT",
      unlimited: true,
    });
    expect(user).toMatchObject({ daily_limit_usdt: 50, daily_left_usdt: 50, order_limit_usdt: 5 });
  });
});

describe("npm run admin -- order, orders, topup (reads of what was bought and paid)", PROCESSES, () => {
  it("shows an order's whole state; its JSON order is what GET /v1/orders/{id} answers its owner", async () => {
    const { key, completed, failed } = await customer("560003", "reads_cy");
    const [text, shown, refusedText, refund] = await Promise.all([
      read("order", String(completed)),
      json("order", String(completed)),
      read("order", String(failed)),
      json("order", String(failed)),
    ]);
    const lines = text.split("\n");
    expect(lines[0]).toBe(`order #${completed}: stars, completed`);
    expect(lines).toContain("  account: 560003 @reads_cy, paid from its balance");
    expect(lines).toContain("  recipient: alice");
    expect(lines.some((line) => /^ {2}transaction id: sim_/.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith("  our reference: "))).toBe(true);
    expect(lines.some((line) => / charge -\d+\.\d\d USDT, balance after /.test(line))).toBe(true);
    expect(lines).toContain("webhook events: none");

    const api = (await h.call("GET", `/v1/orders/${completed}`, { key })).body;
    expect(shown.order).toEqual(api);
    expect(shown).toMatchObject({ account: { telegram_id: "560003", username: "reads_cy" }, paid_from: "balance", backend: "protocol" });
    expect(shown.ledger).toEqual([expect.objectContaining({ kind: "charge", amount_usdt: -api.usdt_charged, order_id: completed })]);

    const refused = refusedText.split("\n");
    expect(refused[0]).toBe(`order #${failed}: stars, failed`);
    expect(refused).toContain("  refunded: yes");
    expect(refused.some((line) => line.startsWith("  failure: "))).toBe(true);
    expect(refund.ledger.map((entry: { kind: string }) => entry.kind)).toEqual(["charge", "refund"]);
    expect(refund.order).toEqual((await h.call("GET", `/v1/orders/${failed}`, { key })).body);
  });

  it("lists the latest orders newest first, of everyone or of one account, as GET /v1/orders lists them", async () => {
    const { key, completed, failed } = await customer("560004", "reads_di");
    const listed = (await h.call("GET", "/v1/orders", { key })).body.orders;

    const [mine, latestText, two] = await Promise.all([json("orders", "@reads_di"), read("orders", "--limit", "1"), json("orders", "--limit", "2")]);
    expect(mine.orders).toEqual(listed.map((order: object) => ({ ...order, account: { telegram_id: "560004", username: "reads_di" } })));
    expect(mine.orders.map((order: { order_id: number }) => order.order_id)).toEqual([failed, completed]);

    const latest = latestText.split("\n");
    expect(latest).toHaveLength(1);
    expect(latest[0]).toMatch(new RegExp(`^#${failed} \\S+ stars 50 to fail_bob: failed, \\d+\\.\\d\\d USDT \\(560004 @reads_di\\)$`));
    expect(two.count).toBe(2);
  });

  it("shows a top-up, whose it is and its credit; its JSON topup is what GET /v1/topups/{id} answers", async () => {
    const { key, topup } = await customer("560005", "reads_ed");
    const [text, shown, stats, held] = await Promise.all([read("topup", String(topup)), json("topup", String(topup)), json("topups"), json("held")]);
    const lines = text.split("\n");
    expect(lines[0]).toBe(`top-up #${topup}: transfer, credited`);
    expect(lines).toContain("  account: 560005 @reads_ed");
    expect(lines).toContain("  reference: cash from 560005");
    expect(lines.some((line) => / topup 4\.00 USDT, balance after /.test(line))).toBe(true);
    expect(shown.topup).toEqual((await h.call("GET", `/v1/topups/${topup}`, { key })).body.topup);
    expect(shown).toMatchObject({ account: { telegram_id: "560005", username: "reads_ed" }, decided_by: "1" });
    expect(shown.ledger).toEqual([expect.objectContaining({ kind: "topup", amount_usdt: 4, topup_id: topup })]);
    expect(stats).toMatchObject({
      topups: expect.arrayContaining([{ method: "transfer", status: "credited", count: expect.any(Number), credited_usdt: expect.any(Number) }]),
    });
    expect(held).toEqual({ count: 0, orders: [] });
  });

  it("says in one line that an account, an order or a top-up is unknown, and exits 1", async () => {
    const unknown = [
      [["user", "999999991"], "No account for 999999991"],
      [["balance", "@nobody_here", "--json"], "No account for @nobody_here"],
      [["orders", "sj_zzzzzzzz"], "No account for sj_zzzzzzzz"],
      [["order", "999999"], "No order #999999"],
      [["topup", "999999", "--json"], "No top-up #999999"],
    ] as const;
    const results = await Promise.all(unknown.map(([args]) => admin(...args)));
    unknown.forEach(([args, said], i) => {
      expect(results[i].code, args.join(" ")).toBe(1);
      expect(results[i].stdout, args.join(" ")).toBe("");
      expect(results[i].stderr.trim().split("\n"), args.join(" ")).toEqual([expect.stringContaining(said)]);
    });
    const [malformed, writeAsJson] = await Promise.all([admin("order", "abc"), admin("credit", "560001", "1", "--json")]);
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain("an order id is a whole number");
    expect(malformed.stderr).toContain("usage: npm run admin");
    expect(writeAsJson.code).toBe(1);
    expect(writeAsJson.stderr).toContain("--json is for the read commands");
  });
});
