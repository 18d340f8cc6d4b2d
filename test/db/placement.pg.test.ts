import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { insertStandardAccount } from "../../src/db/accounts.js";
import type { Db } from "../../src/db/database.js";
import { balanceOf, postEntry } from "../../src/db/ledger.js";
import { type NewOrder, orderById } from "../../src/db/orders.js";
import { finishAtOnce, placeAtOnce } from "../../src/db/placement.js";
import { assertBooks } from "../support/books.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// A purchase's two writes in one statement each (PostgreSQL): placing it (the order, its charge and the charge's
// entry all at once, or none of them) and finishing it (its final state, and for a failure its one refund and
// entry; nothing at all for an order no longer processing, or of an account whose endpoint must get an event with it).

let db: Db;
const at = "2026-01-01T00:00:00.000Z";
const later = "2026-01-01T00:00:05.000Z";

useMigratedDatabase(8, (opened) => (db = opened));

let nextId = 9_300_000;
async function funded(usdt: number) {
  const account = await insertStandardAccount(db, { telegramId: String(nextId++), username: null, at });
  if (usdt) await postEntry(db, { accountId: account.id, amountMicro: micro(usdt * 1e6), kind: "credit", actor: "test", at });
  return account.id;
}

const order = (accountId: number, chargeUsdt: number, key: string | null = null): NewOrder => ({
  accountId,
  fundingAccountId: accountId,
  productType: "stars",
  idempotencyKey: key,
  requestHash: "h1",
  recipient: "alice",
  details: { stars: 100, usdt_per_star_micro: 15_000 },
  chargeMicro: micro(chargeUsdt * 1e6),
  upstreamRef: `ref-${Math.random()}`,
  checkAfter: at,
  at,
});

const entries = (accountId: number) => db.selectFrom("ledger_entries").selectAll().where("account_id", "=", accountId).orderBy("id").execute();

/** An account with 10 USDT and a processing order of 1.5 USDT placed from it. */
async function processingOrder() {
  const accountId = await funded(10);
  const placement = await placeAtOnce(db, { ...order(accountId, 1.5), checkAfter: later }, "key:1");
  if (!("order" in placement)) throw new Error("refused");
  return { accountId, orderId: placement.order.id };
}

const withEndpoint = (accountId: number) =>
  db
    .insertInto("webhook_endpoints")
    .values({ account_id: accountId, url: "https://example.com/hook", secret_sealed: "sealed", created_at: at, updated_at: at })
    .execute();

const completed = { status: "completed", providerOrderId: "p-1", transactionId: "tx-1", sealedCodes: null } as const;
const failed = { status: "failed", providerStatus: "rejected", error: "no such user", reason: "recipient_refuses" } as const;

describe("placing an order", () => {
  it("writes the processing order, takes its charge and enters it, answering the balance after", async () => {
    const id = await funded(10);
    const placed = await placeAtOnce(db, order(id, 1.5, "k-1"), "key:1");
    if (!("order" in placed)) throw new Error("refused");
    expect(placed.balanceAfterMicro).toBe(8_500_000);
    expect(placed.endpoint).toBe(false);
    expect(placed.order).toMatchObject({ accountId: id, status: "processing", idempotencyKey: "k-1", chargeMicro: 1_500_000, refunded: false });
    expect(placed.order.details).toEqual({ stars: 100, usdt_per_star_micro: 15_000 });
    expect(await balanceOf(db, id)).toBe(8_500_000);
    expect((await entries(id)).at(-1)).toMatchObject({
      kind: "charge",
      amount_micro: -1_500_000,
      balance_after_micro: 8_500_000,
      order_id: placed.order.id,
      actor: "key:1",
    });
    await assertBooks(db);
  });

  it("writes nothing when the balance is short, and says what it was", async () => {
    const id = await funded(1);
    expect(await placeAtOnce(db, order(id, 1.5), "key:1")).toEqual({ shortMicro: 1_000_000 });
    expect(await balanceOf(db, id)).toBe(1_000_000);
    expect(await entries(id)).toHaveLength(1);
    expect(await db.selectFrom("orders").select("id").where("account_id", "=", id).execute()).toEqual([]);
  });

  it("answers a replay (same account, key and request) with the earlier order and the balance now, writing nothing", async () => {
    const id = await funded(10);
    const first = await placeAtOnce(db, order(id, 1, "dup"), "key:1");
    if (!("order" in first)) throw new Error("refused");
    expect(await placeAtOnce(db, order(id, 1, "dup"), "key:1")).toEqual({ replay: first.order, balanceMicro: 9_000_000 });
    // The same key for another request is a new order.
    const other = await placeAtOnce(db, { ...order(id, 1, "dup"), requestHash: "h2" }, "key:1");
    expect(other).toMatchObject({ order: { idempotencyKey: "dup", status: "processing" }, balanceAfterMicro: 8_000_000 });
    expect("order" in other && other.order.id).not.toBe(first.order.id);
    expect(await balanceOf(db, id)).toBe(8_000_000);
    expect(await db.selectFrom("orders").select("id").where("account_id", "=", id).execute()).toHaveLength(2);
    await assertBooks(db);
  });

  it("places one order of simultaneous duplicates: the others answer it or are refused by the unique index, writing nothing", async () => {
    const id = await funded(10);
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => placeAtOnce(db, order(id, 1, "burst"), "key:1")));
    const placed = results.flatMap((r) => (r.status === "fulfilled" && "order" in r.value ? [r.value.order] : []));
    expect(placed).toHaveLength(1);
    for (const r of results) {
      if (r.status === "fulfilled" && "replay" in r.value) expect(r.value.replay.id).toBe(placed[0]!.id);
      else if (r.status === "rejected") expect(String(r.reason)).toMatch(/orders_idempotency/);
    }
    expect(await balanceOf(db, id)).toBe(9_000_000);
    expect(await db.selectFrom("orders").select("id").where("account_id", "=", id).execute()).toHaveLength(1);
    await assertBooks(db);
  });

  it("never takes more than the balance however many are placed at once", async () => {
    const id = await funded(5);
    const results = await Promise.all(Array.from({ length: 12 }, () => placeAtOnce(db, order(id, 1), "key:1")));
    expect(results.filter((r) => "order" in r)).toHaveLength(5);
    expect(results.filter((r) => "shortMicro" in r)).toHaveLength(7);
    expect(results.flatMap((r) => ("order" in r ? [r.balanceAfterMicro] : [])).sort()).toEqual([0, 1e6, 2e6, 3e6, 4e6]);
    expect(await balanceOf(db, id)).toBe(0);
    await assertBooks(db);
  });
});

describe("finishing an order at once", () => {
  it("completes it, keeping the balance", async () => {
    const { accountId, orderId } = await processingOrder();
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
    const { accountId, orderId } = await processingOrder();
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
    const { accountId, orderId } = await processingOrder();
    await withEndpoint(accountId);
    expect(await finishAtOnce(db, orderId, failed, later)).toBeUndefined();
    expect(await orderById(db, orderId)).toMatchObject({ status: "processing", refunded: false });
    expect(await balanceOf(db, accountId)).toBe(8_500_000);
    // Its next placement says so, and the purchase goes straight to that transaction.
    expect(await placeAtOnce(db, order(accountId, 1), "key:1")).toMatchObject({ endpoint: true, balanceAfterMicro: 7_500_000 });
  });

  it("finishes it there, reading the event's target with it: the account as its refund left it, and whether its outbox is full", async () => {
    const { accountId, orderId } = await processingOrder();
    await withEndpoint(accountId);
    const done = await db.transaction().execute((trx) => finishAtOnce(trx, orderId, failed, later, { pendingMax: 2 }));
    expect(done).toMatchObject({ order: { status: "failed", refunded: true }, refundBalanceMicro: 10_000_000 });
    expect(done!.eventTarget).toEqual({ account: expect.objectContaining({ id: accountId, balanceMicro: 10_000_000 }), full: false });
    await assertBooks(db);

    // Two events waiting, the bound: full.
    const pending = { account_id: accountId, type: "order.completed", order_id: null, test_event: false, payload: "{}", status: "pending" as const };
    for (const id of ["evt_a", "evt_b"])
      await db
        .insertInto("webhook_events")
        .values({ ...pending, event_id: id, next_attempt_at: at, created_at: at })
        .execute();
    const next = await placeAtOnce(db, order(accountId, 1), "key:1");
    if (!("order" in next)) throw new Error("refused");
    const completedNext = await finishAtOnce(db, next.order.id, completed, later, { pendingMax: 2 });
    expect(completedNext!.eventTarget).toEqual({ account: expect.objectContaining({ id: accountId, balanceMicro: 9_000_000 }), full: true });

    // Without an endpoint: null, nothing to write.
    const plain = await processingOrder();
    expect((await finishAtOnce(db, plain.orderId, completed, later, { pendingMax: 2 }))!.eventTarget).toBeNull();
  });
});
