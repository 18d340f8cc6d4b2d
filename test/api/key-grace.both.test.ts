import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// A key replaced with a grace period answers until its end by the service's (the database's) clock, then 401;
// the partner sees the end (GET /v1/keys, and a header on every answer to the old key) and can end it now.

let h: Harness;
useHarness({ books: true }, (started) => (h = started));

const HOUR = 3_600_000;

describe("a key rotated with a grace period", () => {
  it("answers until its grace ends, telling when on every answer, then 401; the balance stays with the account", async () => {
    const { key: oldKey, telegramId } = await h.newKey(4.5);
    const before = h.clock.now().getTime();
    const rotated = await h.service.core.accounts.issueKey(telegramId, null, 24);
    const ends = rotated.previousKeyExpiresAt!;
    expect(Date.parse(ends) - before).toBeGreaterThanOrEqual(24 * HOUR);
    expect(Date.parse(ends) - before).toBeLessThan(24 * HOUR + 60_000);

    const old = await h.call("GET", "/v1/balance", { key: oldKey });
    expect(old.status).toBe(200);
    expect(old.body).toEqual({ success: true, balance_usdt: 4.5, currency: "USDT" });
    expect(old.headers["x-api-key-expires-at"]).toBe(ends);
    const fresh = await h.call("GET", "/v1/balance", { key: rotated.key });
    expect(fresh.status).toBe(200);
    expect(fresh.headers["x-api-key-expires-at"]).toBeUndefined();

    const keys = await h.call("GET", "/v1/keys", { key: rotated.key });
    expect(keys.status).toBe(200);
    expect(keys.body).toEqual({
      success: true,
      key_prefix: rotated.displayPrefix,
      previous_keys: [{ key_prefix: oldKey.slice(0, 11), expires_at: ends }],
    });

    h.clock.advance(Date.parse(ends) - h.clock.now().getTime() - 5_000);
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(200);
    h.clock.advance(5_000);
    const after = await h.call("GET", "/v1/balance", { key: oldKey });
    expect(after.status).toBe(401);
    expect((await h.call("GET", "/v1/keys", { key: rotated.key })).body.previous_keys).toEqual([]);
    expect(await h.balance(rotated.key)).toBe(4.5);
  });

  it("ends at once when the partner revokes it: DELETE /v1/keys/previous", async () => {
    const { key: oldKey, telegramId } = await h.newKey(1);
    const rotated = await h.service.core.accounts.issueKey(telegramId, null, 168);
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(200);
    const ended = await h.call("DELETE", "/v1/keys/previous", { key: rotated.key });
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ success: true, key_prefix: rotated.displayPrefix, previous_keys: [] });
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(401);
    expect((await h.call("GET", "/v1/balance", { key: rotated.key })).status).toBe(200);
  });

  it("stops at once without a grace period, as the contract's rule 4 has it", async () => {
    const { key: oldKey, telegramId } = await h.newKey(1);
    const rotated = await h.service.core.accounts.issueKey(telegramId, null);
    expect(rotated.previousKeyExpiresAt).toBeNull();
    expect((await h.call("GET", "/v1/balance", { key: oldKey })).status).toBe(401);
    expect((await h.call("GET", "/v1/keys", { key: rotated.key })).body.previous_keys).toEqual([]);
  });

  it("keeps each replaced key's own end through a second rotation, and refuses a grace past 7 days changing nothing", async () => {
    const { key: first, telegramId } = await h.newKey(1);
    const second = await h.service.core.accounts.issueKey(telegramId, null, 1);
    const third = await h.service.core.accounts.issueKey(telegramId, null, 24);
    await expect(h.service.core.accounts.issueKey(telegramId, null, 169)).rejects.toMatchObject({ code: "invalid_input" });
    await expect(h.service.core.accounts.issueKey(telegramId, null, 1.5)).rejects.toMatchObject({ code: "invalid_input" });
    const keys = await h.call("GET", "/v1/keys", { key: third.key });
    expect(keys.body.key_prefix).toBe(third.displayPrefix);
    expect(keys.body.previous_keys).toEqual([
      { key_prefix: first.slice(0, 11), expires_at: second.previousKeyExpiresAt },
      { key_prefix: second.displayPrefix, expires_at: third.previousKeyExpiresAt },
    ]);
    for (const key of [first, second.key, third.key]) expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);
    h.clock.advance(HOUR);
    expect((await h.call("GET", "/v1/balance", { key: first })).status).toBe(401);
    expect((await h.call("GET", "/v1/balance", { key: second.key })).status).toBe(200);
  });

  it("answers 401 to GET /v1/keys without a valid key", async () => {
    expect((await h.call("GET", "/v1/keys")).status).toBe(401);
    expect((await h.call("DELETE", "/v1/keys/previous", { key: "sj_" + "x".repeat(43) })).status).toBe(401);
  });
});
