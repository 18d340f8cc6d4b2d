import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { telegramActor } from "../../src/core/admin.js";
import { DomainError, ruleIn } from "../../src/core/model/errors.js";
import { fromUsdt } from "../../src/core/model/money.js";
import { type Harness, startHarness } from "../support/harness.js";

// The administrators' rules held by the core itself, so a face that forgot to ask cannot get past them: a money move
// above ADMIN_CONFIRM_ABOVE_USDT needs `confirmed`, and no administrator blocks their own account. The faces'
// tests (bot, desk, CLI) show each renders the same refusal.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ADMIN_CONFIRM_ABOVE_USDT: "100" });
});
afterEach(async () => h.assertLedgerInvariant());
afterAll(async () => h.close());

/** The refusal a call ends in: its code and rule. */
async function refusal(call: Promise<unknown>) {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DomainError);
  const { code, details } = error as DomainError;
  return { code, rule: ruleIn(details), maxMicro: "maxMicro" in details ? details.maxMicro : undefined };
}

describe("money moves above the confirmation threshold", () => {
  it("are refused unconfirmed, whichever face forgot to ask, and nothing moves", async () => {
    const { key, telegramId } = await h.newKey(50);
    const { admin } = h.service.core;
    expect(admin.confirm.aboveMicro).toBe(fromUsdt(100));
    const unconfirmed = { code: "invalid_input", rule: "move_unconfirmed", maxMicro: fromUsdt(100) };
    expect(await refusal(admin.credit(telegramId, fromUsdt(100.000001), "test"))).toEqual(unconfirmed);
    expect(await refusal(admin.debit(telegramId, fromUsdt(150), "test", { note: "forgot to ask" }))).toEqual(unconfirmed);
    expect(await refusal(admin.setWallet(fromUsdt(500), "test", { confirmed: false }))).toEqual(unconfirmed);
    expect(await h.balance(key)).toBe(50);

    // At the threshold no confirmation is needed; above it, a confirmed move goes.
    expect(admin.confirm.needed(fromUsdt(100))).toBe(false);
    expect(await admin.credit(telegramId, fromUsdt(100), "test")).toBe(fromUsdt(150));
    expect(await admin.credit(telegramId, fromUsdt(200), "test", { confirmed: true })).toBe(fromUsdt(350));
    expect(await admin.setWallet(fromUsdt(500), "test", { confirmed: true })).toBe(fromUsdt(500));
    expect(await h.balance(key)).toBe(350);
  });
});

describe("blocking", () => {
  it("refuses an administrator blocking their own account; another administrator, or the CLI, may", async () => {
    const { key, telegramId } = await h.newKey();
    const { admin } = h.service.core;
    expect(await refusal(admin.setBlocked(telegramId, true, telegramActor(telegramId)))).toEqual({
      code: "invalid_input",
      rule: "self_block",
      maxMicro: undefined,
    });
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);
    // Unblocking oneself changes nothing anyone could be locked out by.
    expect((await admin.setBlocked(telegramId, false, telegramActor(telegramId))).blocked).toBe(false);
    expect((await admin.setBlocked(telegramId, true, telegramActor("1"))).blocked).toBe(true);
    expect((await admin.setBlocked(telegramId, false, "cli:ops")).blocked).toBe(false);
    expect((await admin.setBlocked(telegramId, true, "cli:ops")).blocked).toBe(true);
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(403);
  });
});
