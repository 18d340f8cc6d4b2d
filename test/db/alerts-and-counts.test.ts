import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { insertStandardAccount, updateAccount } from "../../src/db/accounts.js";
import { backlog, claimTransition, processingOrders, refundsSince, walletWhileOwned } from "../../src/db/alerts.js";
import { botStateStore } from "../../src/db/bot-state.js";
import type { Db } from "../../src/db/database.js";
import { postEntry } from "../../src/db/ledger.js";
import { insertOrder, markFinished } from "../../src/db/orders.js";
import { countHit, purgeRequestCounts } from "../../src/db/request-counts.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// The alert states, the monitor's reads, the shared request counts and the bot's state on either engine.

let db: Db;
let telegram = 9_400_000;

const at = "2026-01-01T00:00:00.000Z";
const minute = (n: number) => new Date(Date.parse(at) + n * 60_000).toISOString();

useMigratedDatabase(4, (opened) => (db = opened));

const account = () => insertStandardAccount(db, { telegramId: String(telegram++), username: null, at });

const order = (accountId: number, createdAt: string) =>
  insertOrder(db, {
    accountId,
    fundingAccountId: accountId,
    productType: "stars",
    idempotencyKey: null,
    requestHash: "h",
    recipient: "alice",
    details: { stars: 100, usdt_per_star_micro: 15_000 },
    chargeMicro: micro(1_500_000),
    upstreamRef: `ref-${Math.random()}`,
    checkAfter: createdAt,
    at: createdAt,
  });

describe("alert states", () => {
  it("tell a change once among instances at once: firing, a reminder only after the repeat time, resolved", async () => {
    const condition = { key: "provider:games", firing: true, details: { kind: "provider", provider: "games" } };
    // A firing condition is told again once it was last told an hour ago.
    const claim = (now: string, firing = true) =>
      claimTransition(db, { ...condition, firing }, { now, repeatBefore: new Date(Date.parse(now) - 3_600_000).toISOString() });
    const started = await Promise.all([claim(minute(0)), claim(minute(0)), claim(minute(0))]);
    expect(started.filter((t) => t === "firing")).toHaveLength(1);
    expect(started.filter((t) => t !== "firing")).toEqual([null, null]);
    expect(await claim(minute(30))).toBeNull();
    const reminded = await Promise.all([claim(minute(61)), claim(minute(61))]);
    expect(reminded.sort()).toEqual(["reminder", null].sort());
    const ended = await Promise.all([claim(minute(62), false), claim(minute(62), false)]);
    expect(ended.filter((t) => t === "resolved")).toHaveLength(1);
    expect(await claim(minute(63), false)).toBeNull();
  });

  it("read what the monitor checks: refunds since a time, the wallet only while an owner key exists, processing orders oldest first, the backlog", async () => {
    const before = await backlog(db);
    const owner = await account();
    const older = await order(owner.id, minute(-10));
    const newer = await order(owner.id, minute(-5));
    const failed = await order(owner.id, minute(-3));
    await markFinished(db, failed.id, { status: "failed", error: "refused", reason: "provider_error" }, minute(-2));

    expect(await refundsSince(db, minute(-2))).toBeGreaterThanOrEqual(1);
    expect(await refundsSince(db, minute(1))).toBe(0);
    const oldestFirst = (await processingOrders(db, 500)).map((o) => o.id);
    expect(oldestFirst.indexOf(older.id)).toBeLessThan(oldestFirst.indexOf(newer.id));
    expect(oldestFirst).not.toContain(failed.id);
    const after = await backlog(db);
    expect(after.processing).toBe(before.processing + 2);
    expect(after.oldestProcessing).not.toBeNull();

    expect(await walletWhileOwned(db)).toBeNull();
    await updateAccount(db, owner.id, { owner: { dailyLimitMicro: null, orderLimitMicro: null } });
    const wallet = await db.selectFrom("accounts").select("id").where("kind", "=", "wallet").executeTakeFirstOrThrow();
    await postEntry(db, { accountId: wallet.id, amountMicro: micro(7_000_000), kind: "adjustment", orderId: null, actor: "test", note: null, at });
    expect(await walletWhileOwned(db)).toBe(7_000_000);
  });
});

describe("request counts shared by instances", () => {
  it("count within a window, start a newer window at 1, count a lagging instance's hits into the current one, purge ended windows", async () => {
    const hits = await Promise.all(Array.from({ length: 5 }, async () => (await countHit(db, "key:a", 60_000)).hits));
    expect(hits.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5]);
    expect(await countHit(db, "key:a", 120_000)).toEqual({ hits: 1, windowStart: 120_000 });
    // An instance whose clock lags still counts into the newer window it cannot see yet, and is told which.
    expect(await countHit(db, "key:a", 60_000)).toEqual({ hits: 2, windowStart: 120_000 });
    expect(await countHit(db, "key:b", 60_000)).toEqual({ hits: 1, windowStart: 60_000 });
    expect(await purgeRequestCounts(db, 120_000)).toBe(1);
    expect(await countHit(db, "key:b", 120_000)).toEqual({ hits: 1, windowStart: 120_000 });
  });
});

describe("the bot's state", () => {
  it("reads, writes, deletes, and purges only what was left untouched that long", async () => {
    const store = botStateStore<{ step: number }>(db);
    expect(await store.read("chat:1")).toBeUndefined();
    await store.write("chat:1", { step: 1 });
    await store.write("chat:1", { step: 2 });
    expect(await store.read("chat:1")).toEqual({ step: 2 });
    await store.write("chat:2", { step: 1 });
    await db.updateTable("bot_state").set({ updated_at: "2020-01-01T00:00:00.000Z" }).where("key", "=", "chat:2").execute();
    expect(await store.purgeOlderThan(60_000)).toBe(1);
    expect(await store.read("chat:2")).toBeUndefined();
    await store.delete("chat:1");
    expect(await store.read("chat:1")).toBeUndefined();
  });
});
