import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { insertStandardAccount, replaceKey } from "../../src/db/accounts.js";
import type { Db } from "../../src/db/database.js";
import { insertOrder, ownOrder } from "../../src/db/orders.js";
import { keyHolderCounted } from "../../src/db/request-counts.js";
import { insertEndpoint } from "../../src/db/webhook-endpoints.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// The key's read on PostgreSQL (one statement: the key, its account, the request's count) and, for an order's
// status, the account's order of that id in the same statement, read as the order's own read reads it; for a
// sandbox call, whether the account has a webhook endpoint.

let db: Db;
const at = "2026-01-01T00:00:00.000Z";
const NOW = "2026-01-02T00:00:00.000Z";

useMigratedDatabase(3, (opened) => (db = opened));

async function holderWithOrder(telegramId: string, hash: string) {
  const account = await insertStandardAccount(db, { telegramId, username: null, at });
  await replaceKey(db, account.id, { hash, displayPrefix: "sj_test", at });
  const order = await insertOrder(db, {
    accountId: account.id,
    fundingAccountId: account.id,
    productType: "stars",
    idempotencyKey: "k1",
    requestHash: "h1",
    recipient: "alice",
    details: { stars: 100, usdt_per_star_micro: 15_000 },
    chargeMicro: micro(1_500_000),
    upstreamRef: `ref-${telegramId}`,
    checkAfter: at,
    at,
  });
  return { account, order };
}

describe("the key's read with an order", () => {
  it("reads the holder's order as ownOrder does, and no one else's", async () => {
    const mine = await holderWithOrder("770001", "c".repeat(64));
    const theirs = await holderWithOrder("770002", "d".repeat(64));
    const found = await keyHolderCounted(db, "c".repeat(64), "account:", 60_000, NOW, { orderId: mine.order.id });
    expect(found).toMatchObject({ account: { id: mine.account.id }, hits: 1 });
    expect(found!.ownOrder).toEqual({ id: mine.order.id, order: await ownOrder(db, mine.account.id, mine.order.id) });
    expect(found!.ownOrder!.order).toMatchObject({ id: mine.order.id, status: "processing", chargeMicro: 1_500_000, refunded: false });

    expect((await keyHolderCounted(db, "c".repeat(64), "account:", 60_000, NOW, { orderId: theirs.order.id }))!.ownOrder).toEqual({
      id: theirs.order.id,
      order: undefined,
    });
    expect((await keyHolderCounted(db, "c".repeat(64), "account:", 60_000, NOW))!.ownOrder).toBeUndefined();
    expect((await keyHolderCounted(db, "c".repeat(64), "account:", 60_000, NOW))!.hits).toBe(4);
  });

  it("tells whether the holder's account has a webhook endpoint, when asked", async () => {
    const { account } = await holderWithOrder("770004", "f".repeat(64));
    expect(await keyHolderCounted(db, "f".repeat(64), "account:", 60_000, NOW, { endpoint: true })).toMatchObject({ hasEndpoint: false });
    await insertEndpoint(db, { accountId: account.id, url: "https://hooks.example/x", secretSealed: "sealed", at });
    expect(await keyHolderCounted(db, "f".repeat(64), "account:", 60_000, NOW, { endpoint: true })).toMatchObject({ hasEndpoint: true });
    expect((await keyHolderCounted(db, "f".repeat(64), "account:", 60_000, NOW))!.hasEndpoint).toBeUndefined();
  });

  it("reads the account exactly, and refuses an integer JavaScript cannot hold exactly, in the account or the order, never rounds it", async () => {
    const { account, order } = await holderWithOrder("770003", "e".repeat(64));
    await db.updateTable("accounts").set({ balance_micro: 1_000_000_000_000_000, markup_store_bp: 250 }).where("id", "=", account.id).execute();
    expect(await keyHolderCounted(db, "e".repeat(64), "account:", 60_000, NOW)).toMatchObject({
      keyHash: "e".repeat(64),
      account: { id: account.id, telegramId: "770003", balanceMicro: 1_000_000_000_000_000, blocked: false, markupBp: { store: 250, games: null } },
    });
    await db
      .updateTable("accounts")
      .set({ daily_limit_micro: sql<number>`9007199254740993` })
      .where("id", "=", account.id)
      .execute();
    await expect(keyHolderCounted(db, "e".repeat(64), "account:", 60_000, NOW)).rejects.toThrow("is not an integer JavaScript holds exactly");
    await db.updateTable("accounts").set({ daily_limit_micro: null }).where("id", "=", account.id).execute();
    await db
      .updateTable("orders")
      .set({ charge_micro: sql<number>`9007199254740993` })
      .where("id", "=", order.id)
      .execute();
    await expect(keyHolderCounted(db, "e".repeat(64), "account:", 60_000, NOW, { orderId: order.id })).rejects.toThrow(
      "is not an integer JavaScript holds exactly",
    );
  });

  it("reads a replaced key only within its grace period, with its end, by the time given (the database's clock)", async () => {
    const account = await insertStandardAccount(db, { telegramId: "770099", username: null, at });
    await replaceKey(db, account.id, { hash: "1".repeat(64), displayPrefix: "sj_old", at });
    await replaceKey(db, account.id, { hash: "2".repeat(64), displayPrefix: "sj_new", at, graceUntil: "2026-01-02T01:00:00.000Z" });
    expect(await keyHolderCounted(db, "1".repeat(64), "account:", 60_000, NOW, { orderId: 1 })).toMatchObject({
      account: { id: account.id },
      graceUntil: "2026-01-02T01:00:00.000Z",
      ownOrder: { id: 1, order: undefined },
    });
    expect(await keyHolderCounted(db, "2".repeat(64), "account:", 60_000, NOW)).toMatchObject({ graceUntil: null });
    expect(await keyHolderCounted(db, "1".repeat(64), "account:", 60_000, "2026-01-02T01:00:00.000Z")).toBeUndefined();
  });
});
