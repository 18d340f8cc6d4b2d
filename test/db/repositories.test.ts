import { describe, expect, it } from "vitest";
import {
  accountById,
  accountByUsername,
  chargedSince,
  endSessions,
  insertStandardAccount,
  keyHolder,
  replaceKey,
  keysInGrace,
  endKeyGrace,
  updateAccount,
} from "../../src/db/accounts.js";
import { type Db, ping } from "../../src/db/database.js";
import { balanceOf, postEntry, unbalancedAccounts } from "../../src/db/ledger.js";
import { findReplay, insertOrder, markFinished, markPending, orderById } from "../../src/db/orders.js";
import { insertQuote, purgeQuotes, quoteById, spendQuote } from "../../src/db/quotes.js";
import { transaction } from "../../src/db/transaction.js";
import { micro } from "../../src/core/model/money.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// The repositories on either engine: domain objects out, each guarded write changing only what it may.

let db: Db;

const at = "2026-01-01T00:00:00.000Z";
const later = "2026-01-01T00:01:00.000Z";
const NOW = "2026-01-02T00:00:00.000Z";

useMigratedDatabase(4, (opened) => (db = opened));

const account = (telegramId: string, username: string | null = null) => insertStandardAccount(db, { telegramId, username, at });

const newOrder = (accountId: number, key: string | null) =>
  insertOrder(db, {
    accountId,
    fundingAccountId: accountId,
    productType: "stars",
    idempotencyKey: key,
    requestHash: "h1",
    recipient: "alice",
    details: { stars: 100, usdt_per_star_micro: 15_000 },
    chargeMicro: micro(1_500_000),
    upstreamRef: `ref-${Math.random()}`,
    checkAfter: later,
    at,
  });

describe("the storage repositories", () => {
  it("answer the health probe", async () => {
    expect(await ping(db)).toBe(true);
  });

  it("end an account's Mini App sessions by bumping its session generation, read back as a number, inside a transaction or not at all", async () => {
    const created = await account("9100021");
    expect(created.sessionGeneration).toBe(0);
    expect(await endSessions(db, created.id)).toBe(1);
    await expect(
      transaction(db, async (trx) => {
        expect(await endSessions(trx, created.id)).toBe(2);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect((await accountById(db, created.id))?.sessionGeneration).toBe(1);
  });

  it("map accounts and keys to domain objects: flags as booleans, money as numbers, usernames case-insensitively", async () => {
    const created = await account("9100001", "Alice_R");
    expect(created).toMatchObject({ kind: "standard", telegramId: "9100001", balanceMicro: 0, blocked: false, lowBalanceNotice: true });
    await updateAccount(db, created.id, { blocked: true, markup: { product: "games", basisPoints: 250 } });
    const found = await accountByUsername(db, "alice_r");
    expect(found).toMatchObject({ id: created.id, blocked: true, markupBp: { store: null, games: 250, giftcards: null } });
    await replaceKey(db, created.id, { hash: "hash-1", displayPrefix: "sj_aaaa", at });
    await replaceKey(db, created.id, { hash: "hash-2", displayPrefix: "sj_bbbb", at: later });
    expect(await keyHolder(db, "hash-1", NOW)).toBeUndefined();
    expect((await keyHolder(db, "hash-2", NOW))?.account.id).toBe(created.id);
  });

  it("keep a replaced key readable until its grace period ends, list it while it lasts, and end it at once", async () => {
    const { id } = await account("9100011");
    await replaceKey(db, id, { hash: "grace-1", displayPrefix: "sj_g1", at });
    await replaceKey(db, id, { hash: "grace-2", displayPrefix: "sj_g2", at, graceUntil: "2026-01-02T01:00:00.000Z" });
    expect(await keyHolder(db, "grace-1", NOW)).toMatchObject({ account: { id }, graceUntil: "2026-01-02T01:00:00.000Z" });
    expect(await keyHolder(db, "grace-2", NOW)).toMatchObject({ account: { id }, graceUntil: null });
    expect(await keyHolder(db, "grace-1", "2026-01-02T01:00:00.000Z")).toBeUndefined();
    expect(await keysInGrace(db, id, NOW)).toEqual([{ displayPrefix: "sj_g1", graceUntil: "2026-01-02T01:00:00.000Z" }]);
    expect(await endKeyGrace(db, id, NOW)).toBe(1);
    expect(await keyHolder(db, "grace-1", NOW)).toBeUndefined();
    expect(await keysInGrace(db, id, NOW)).toEqual([]);
    expect(await keyHolder(db, "grace-2", NOW)).toMatchObject({ account: { id } });
  });

  it("post a balance change with its entry, and refuse one past the guard with nothing written", async () => {
    const { id } = await account("9100002");
    expect(await postEntry(db, { accountId: id, amountMicro: micro(5_000_000), kind: "credit", actor: "test", at })).toBe(5_000_000);
    expect(await postEntry(db, { accountId: id, amountMicro: micro(-6_000_000), kind: "debit", actor: "test", at })).toBeNull();
    expect(await balanceOf(db, id)).toBe(5_000_000);
    expect(await unbalancedAccounts(db)).toEqual([]);
  });

  it("place, replay and settle orders as domain orders; a settlement update changes only a processing order", async () => {
    const { id } = await account("9100003");
    const placed = await newOrder(id, "k-1");
    expect(placed).toMatchObject({ productType: "stars", status: "processing", chargeMicro: 1_500_000, checkAfter: later, checkAttempts: 0 });
    expect(placed.details).toEqual({ stars: 100, usdt_per_star_micro: 15_000 });
    expect((await findReplay(db, id, "k-1", "h1"))?.id).toBe(placed.id);
    expect(await findReplay(db, id, "k-1", "other")).toBeUndefined();
    await expect(newOrder(id, "k-1")).rejects.toThrow();

    await markPending(db, placed.id, { provider: { providerOrderId: "p-1" }, soon: at, at });
    expect(await orderById(db, placed.id)).toMatchObject({ status: "processing", providerOrderId: "p-1", checkAfter: at });
    const done = await markFinished(db, placed.id, { status: "completed", transactionId: "tx-1", sealedCodes: null }, later);
    expect(done).toMatchObject({ status: "completed", transactionId: "tx-1", providerOrderId: "p-1", checkAfter: null, completedAt: later });
    expect(await markFinished(db, placed.id, { status: "failed", error: "late", reason: "provider_error" }, later)).toBeUndefined();
    expect((await orderById(db, placed.id))?.status).toBe("completed");
  });

  it("count an account's spending of the day without its failed orders", async () => {
    const { id } = await account("9100004");
    const kept = await newOrder(id, null);
    const failed = await newOrder(id, null);
    await markFinished(db, failed.id, { status: "failed", error: "no", reason: "provider_error" }, at);
    expect(await chargedSince(db, id, at)).toBe(kept.chargeMicro);
  });

  it("spend a quote once, inside the transaction that charges it, and purge only unused expired ones", async () => {
    const { id } = await account("9100005");
    const order = await newOrder(id, null);
    const quote = {
      accountId: id,
      productType: "stars",
      requestHash: "h1",
      recipient: "alice",
      details: { stars: 100 },
      chargeMicro: micro(1_500_000),
      createdAt: at,
    };
    await insertQuote(db, { ...quote, id: "q_spent", expiresAt: later });
    await insertQuote(db, { ...quote, id: "q_stale", expiresAt: at });
    const spend = { id: "q_spent", accountId: id, target: { productType: "stars", requestHash: "h1" }, orderId: order.id, at };
    expect(await transaction(db, (trx) => spendQuote(trx, spend))).toBe(true);
    expect(await spendQuote(db, spend)).toBe(false);
    expect(await quoteById(db, "q_spent")).toMatchObject({ orderId: order.id, chargeMicro: 1_500_000, details: { stars: 100 } });
    expect(await purgeQuotes(db, "2030-01-01T00:00:00.000Z")).toBe(1);
    expect(await quoteById(db, "q_stale")).toBeUndefined();
    expect(await quoteById(db, "q_spent")).toBeDefined();
  });
});
