import { describe, expect, it } from "vitest";
import { adminCli } from "../support/admin-core.js";
import { fromUsdt } from "../../src/core/model/money.js";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({}, (started) => (h = started));

/**
 * `npm run admin -- ...` as an administrator runs it, against the running service's database: in-process, with
 * the CLI's own database connection and core (test/cli/smoke.test.ts runs the compiled program once).
 */
const admin = (...args: string[]) => adminCli({ DATABASE_URL: h.databaseUrl, ...h.databaseEnv }, ...args);

describe("admin CLI against a running service", () => {
  it("issues a key, credits, blocks and unblocks, and the service sees each change at once", async () => {
    const issued = await admin("key", "555001");
    expect(issued.code).toBe(0);
    const key = issued.stdout.trim();
    expect(key).toMatch(/^sj_[A-Za-z0-9_-]{43}$/);
    expect(await h.balance(key)).toBe(0);

    expect((await admin("credit", "555001", "12.5", "first", "top-up")).stdout.trim()).toBe("balance of 555001: 12.50 USDT");
    expect(await h.balance(key)).toBe(12.5);
    expect((await admin("debit", "555001", "2.5")).stdout.trim()).toBe("balance of 555001: 10.00 USDT");

    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    expect(bought.status).toBe(200);
    expect(bought.body.balance_remaining_usdt).toBe(8.5);

    expect((await admin("block", "555001")).stdout.trim()).toBe("555001: blocked");
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(403);
    expect((await admin("unblock", "555001")).stdout.trim()).toBe("555001: unblocked");
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);

    const rotated = (await admin("key", "555001")).stdout.trim();
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(401);
    expect(await h.balance(rotated)).toBe(8.5);

    const credits = await h.service.db
      .selectFrom("ledger_entries")
      .select(["kind", "amount_micro", "actor", "note"])
      .where("kind", "in", ["credit", "debit"])
      .execute();
    expect(credits).toEqual([
      { kind: "credit", amount_micro: 12_500_000, actor: expect.stringMatching(/^cli:/), note: "first top-up" },
      { kind: "debit", amount_micro: -2_500_000, actor: expect.stringMatching(/^cli:/), note: null },
    ]);
    await h.assertLedgerInvariant();
  });

  it("sets markups, owner limits and the wallet, with an audit entry for each", async () => {
    await admin("key", "555002");
    expect((await admin("markup", "555002", "store", "2.5")).stdout.trim()).toBe("555002: store markup 2.5%");
    expect((await admin("owner", "555002", "--daily-limit", "50", "--order-limit", "5")).stdout.trim()).toContain(
      "daily limit 50.00, per-order limit 5.00",
    );
    expect((await admin("wallet", "300")).stdout.trim()).toBe("service wallet: 300.00 USDT");
    const account = await h.service.db.selectFrom("accounts").selectAll().where("telegram_id", "=", "555002").executeTakeFirstOrThrow();
    expect(account).toMatchObject({ kind: "owner", markup_store_bp: 250, daily_limit_micro: 50_000_000, order_limit_micro: 5_000_000 });
    const audit = await h.service.db.selectFrom("audit_log").select("action").where("account_id", "=", account.id).execute();
    expect(audit.map((a) => a.action)).toEqual(["markup", "owner"]);
    await h.assertLedgerInvariant();
  });

  it("refuses bad arguments with a usage line and changes nothing", async () => {
    for (const args of [
      ["credit", "555001", "-5"],
      ["credit", "555001", "1.1234567"],
      ["credit", "abc", "5"],
      ["markup", "555001", "stars", "5"],
      ["frobnicate"],
      [],
    ]) {
      const result = await admin(...args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain("usage: npm run admin");
    }
    const unknown = await admin("credit", "999999999", "5");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No account");
    const overdraw = await admin("debit", "555001", "1000");
    expect(overdraw.code).toBe(1);
    expect(overdraw.stderr).toContain("Insufficient");
    await h.assertLedgerInvariant();
  });

  it("answers help, says why it refuses (negative, not a Telegram id, past the bound, an owner key), and keeps owner limits not named", async () => {
    for (const args of [["help"], ["--help"]]) {
      const help = await admin(...args);
      expect(help.code, args[0]).toBe(0);
      expect(help.stdout).toContain("usage: npm run admin");
    }
    await admin("key", "555003");
    const refusals: Array<[string[], string]> = [
      [["credit", "555003", "-5"], "cannot be negative"],
      [["key", "0"], "positive whole number"],
      [["credit", "555003", "9000000000"], "up to 1000000000"],
    ];
    for (const [args, why] of refusals) {
      const result = await admin(...args);
      expect(result.code, args.join(" ")).toBe(1);
      expect(result.stderr, args.join(" ")).toContain(why);
      expect(result.stderr, args.join(" ")).toContain("usage: npm run admin");
    }

    await admin("key", "555004");
    expect((await admin("owner", "555004", "--daily-limit", "50", "--order-limit", "5")).stdout).toContain("daily limit 50.00, per-order limit 5.00");
    expect((await admin("owner", "555004")).stdout).toContain("daily limit 50.00, per-order limit 5.00");
    expect((await admin("owner", "555004", "--order-limit", "none")).stdout).toContain("daily limit 50.00, per-order limit none");
    const owner = await admin("credit", "555004", "5");
    expect(owner.code).toBe(1);
    expect(owner.stderr).toContain("owner key");
    expect(owner.stderr).toContain("wallet");
    expect(owner.stderr).toContain("usage: npm run admin");
    await h.assertLedgerInvariant();
  });
});

describe("admin CLI money moves above the confirmation threshold", () => {
  it("moves them at once: a command typed on the server is the operator's confirmation (the core refuses them unconfirmed)", async () => {
    const { key } = await h.service.core.admin.issueKey("555201");
    // Above ADMIN_CONFIRM_ABOVE_USDT (1,000 by default).
    expect((await admin("credit", "555201", "1500")).stdout.trim()).toBe("balance of 555201: 1500.00 USDT");
    expect((await admin("debit", "555201", "1200")).stdout.trim()).toBe("balance of 555201: 300.00 USDT");
    expect((await admin("wallet", "2000")).stdout.trim()).toBe("service wallet: 2000.00 USDT");
    expect(await h.balance(key)).toBe(300);
    await h.assertLedgerInvariant();
  });
});

describe("admin CLI targets", () => {
  it("resolves a target to one account by Telegram id, @username or key prefix, and every answer names its id and @username", async () => {
    const { key } = await h.service.core.accounts.issueKey("555101", "cli_target");
    expect((await admin("credit", "@CLI_target", "3")).stdout.trim()).toBe("balance of 555101 @cli_target: 3.00 USDT");
    expect((await admin("block", key.slice(0, 11))).stdout.trim()).toBe("555101 @cli_target: blocked");
    expect((await admin("unblock", "555101")).stdout.trim()).toBe("555101 @cli_target: unblocked");
    const missing = await admin("credit", "@nobody_at_all", "3");
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("No account for @nobody_at_all");
    expect(await h.balance(key)).toBe(3);
  });
});

describe("admin CLI top-ups", () => {
  it("shows top-ups by method and state, with what was credited", async () => {
    expect((await admin("topups")).stdout.trim()).toBe("no top-ups yet");
    const { telegramId } = await h.newKey(0);
    const account = (await h.service.core.accounts.byTelegramId(telegramId))!;
    const asked = await h.service.core.topups.requestTransfer(account, fromUsdt(4), "cash");
    await h.service.core.topups.decide(asked.id, { telegramId: "1", name: "Ann" }, { approve: true });
    await h.service.core.topups.requestTransfer(account, fromUsdt(2), "later");
    await h.service.core.topups.startInvoice(account, fromUsdt(3));
    expect((await admin("topups")).stdout.trim().split("\n")).toEqual([
      "invoice active: 1",
      "transfer credited: 1, 4.00 USDT credited",
      "transfer pending: 1",
    ]);
  });
});
