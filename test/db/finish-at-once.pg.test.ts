import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { micro } from "../../src/core/money.js";
import { insertStandardAccount } from "../../src/db/accounts.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { balanceOf, postEntry } from "../../src/db/ledger.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { orderById } from "../../src/db/orders.js";
import { finishAtOnce, placeOrder } from "../../src/db/placement.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

// Finishing an order in one statement (PostgreSQL): its final state, and for a failure its one refund and entry;
// nothing at all for an order no longer processing, or of an account whose endpoint must get an event with it.

let database: TestDatabase;
let db: Db;
const at = "2026-01-01T00:00:00.000Z";
const later = "2026-01-01T00:00:05.000Z";

beforeAll(async () => {
  database = await testDatabase();
  db = openDatabase(database.url, { poolMax: 8 });
  await migrateToLatest(db);
});
afterAll(async () => {
  await db.destroy();
  await database.drop();
});

let nextId = 9_400_000;
/** An account with 10 USDT and a processing order of 1.5 USDT placed from it. */
async function placed() {
  const account = await insertStandardAccount(db, { telegramId: String(nextId++), username: null, at });
  await postEntry(db, { accountId: account.id, amountMicro: micro(10_000_000), kind: "credit", actor: "test", at });
  const placement = await placeOrder(
    db,
    {
      accountId: account.id,
      fundingAccountId: account.id,
      productType: "stars",
      idempotencyKey: null,
      requestHash: "h",
      recipient: "alice",
      details: { stars: 100, usdt_per_star_micro: 15_000 },
      chargeMicro: micro(1_500_000),
      upstreamRef: `ref-${nextId}`,
      checkAfter: later,
      at,
    },
    "key:1",
  );
  if (!("order" in placement)) throw new Error("refused");
  return { accountId: account.id, orderId: placement.order.id };
}

const completed = { status: "completed", providerOrderId: "p-1", transactionId: "tx-1", sealedCodes: null } as const;
const failed = { status: "failed", providerStatus: "rejected", error: "no such user", reason: "recipient_refuses" } as const;

describe("finishing an order at once", () => {
  it("completes it, keeping the balance", async () => {
    const { accountId, orderId } = await placed();
    const done = await finishAtOnce(db, orderId, completed, later);
    expect(done).toEqual({
      order: expect.objectContaining({ status: "completed", transactionId: "tx-1", providerOrderId: "p-1" }),
      refundBalanceMicro: null,
    });
    expect(done!.order).toMatchObject({ completedAt: later, checkAfter: null, refunded: false });
    expect(await balanceOf(db, accountId)).toBe(8_500_000);
    await assertBooks(db);
  });

  it("fails it with its refund and the refund's entry, once however often it is told", async () => {
    const { accountId, orderId } = await placed();
    const done = await finishAtOnce(db, orderId, failed, later);
    expect(done).toEqual({
      order: expect.objectContaining({
        status: "failed",
        refunded: true,
        error: "no such user",
        reason: "recipient_refuses",
        providerStatus: "rejected",
      }),
      refundBalanceMicro: 10_000_000,
    });
    expect(await finishAtOnce(db, orderId, failed, later)).toBeUndefined();
    expect(await finishAtOnce(db, orderId, completed, later)).toBeUndefined();
    expect(await balanceOf(db, accountId)).toBe(10_000_000);
    const refunds = await db.selectFrom("ledger_entries").selectAll().where("order_id", "=", orderId).where("kind", "=", "refund").execute();
    expect(refunds).toMatchObject([{ amount_micro: 1_500_000, balance_after_micro: 10_000_000, actor: "system", note: "no such user" }]);
    await assertBooks(db);
  });

  it("leaves an order of an account with a webhook endpoint to the transaction that writes its event", async () => {
    const { accountId, orderId } = await placed();
    await db
      .insertInto("webhook_endpoints")
      .values({ account_id: accountId, url: "https://example.com/hook", secret_sealed: "sealed", created_at: at, updated_at: at })
      .execute();
    expect(await finishAtOnce(db, orderId, failed, later)).toBeUndefined();
    expect(await orderById(db, orderId)).toMatchObject({ status: "processing", refunded: false });
    expect(await balanceOf(db, accountId)).toBe(8_500_000);
  });
});
