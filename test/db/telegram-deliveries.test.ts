import { describe, expect, it } from "vitest";
import { insertStandardAccount } from "../../src/db/accounts.js";
import type { Db } from "../../src/db/database.js";
import {
  deliveriesToLink,
  heldOrders,
  insertOrder,
  isUniqueViolation,
  linkTransaction,
  markFinished,
  markHeld,
  openOrdersByBackend,
  unlinkedDeliveries,
} from "../../src/db/orders.js";
import { transaction } from "../../src/db/transaction.js";
import { micro } from "../../src/core/model/money.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// The Telegram backend's book of deliveries on either engine: one Star transaction per order, held orders, and the
// backend each order was sent to.

let db: Db;
const at = "2026-01-01T00:00:00.000Z";
useMigratedDatabase(4, (opened) => (db = opened));

let accountId: number;
const gift = (recipientId: string, backend = "telegram") =>
  insertOrder(db, {
    accountId,
    fundingAccountId: accountId,
    productType: "gift",
    idempotencyKey: null,
    requestHash: "h",
    recipient: "friend",
    details: { gift_id: "1", stars: 25, emoji: "🌹", hide_name: false, message: "", usdt_per_star_micro: 15_000 },
    chargeMicro: micro(375_000),
    upstreamRef: `ref-${Math.random()}`,
    checkAfter: at,
    at,
    backend,
    recipientId,
  });
const complete = (id: number, transactionId: string | null) => markFinished(db, id, { status: "completed", transactionId, sealedCodes: null }, at);

describe("the Telegram backend's deliveries", () => {
  it("let one Star transaction complete at most one order, and link one later to a completed order without", async () => {
    accountId = (await insertStandardAccount(db, { telegramId: "5550001", username: null, at })).id;
    const a = await gift("900");
    const b = await gift("900");
    expect(a).toMatchObject({ backend: "telegram", recipientId: "900", held: null });
    await complete(a.id, "tx-1");
    // Completing another order with the same transaction is refused by the index, in a transaction as on its own.
    const refused = await transaction(db, (trx) =>
      markFinished(trx, b.id, { status: "completed", transactionId: "tx-1", sealedCodes: null }, at),
    ).catch((error: unknown) => error);
    expect(isUniqueViolation(refused)).toBe(true);
    await complete(b.id, null);
    expect((await deliveriesToLink(db, "telegram", 10)).map((o) => o.id)).toEqual([b.id]);
    expect(await linkTransaction(db, b.id, "tx-1", at)).toBe(false);
    expect(await linkTransaction(db, b.id, "tx-2", at)).toBe(true);
    expect(await linkTransaction(db, b.id, "tx-3", at)).toBe(false);
    expect(await deliveriesToLink(db, "telegram", 10)).toEqual([]);
    // Another backend's ids are its own: the same id is no conflict there.
    const other = await gift("900", "protocol");
    expect(await complete(other.id, "tx-1")).toMatchObject({ transactionId: "tx-1" });
  });

  it("list a recipient's unlinked orders, hold one for a decision, and group open orders by backend", async () => {
    const open = await gift("901");
    const done = await gift("901");
    await complete(done.id, null);
    await gift("902");
    expect((await unlinkedDeliveries(db, "telegram", "901")).map((o) => [o.id, o.status])).toEqual([
      [open.id, "processing"],
      [done.id, "completed"],
    ]);
    const held = await markHeld(db, open.id, "two orders, one transaction", at);
    expect(held).toMatchObject({ status: "processing", held: "two orders, one transaction", checkAfter: null });
    expect((await heldOrders(db, 10)).map((o) => o.id)).toEqual([open.id]);
    // Only a processing order is held.
    expect(await markHeld(db, done.id, "late", at)).toBeUndefined();
    const groups = await openOrdersByBackend(db);
    expect(groups.find((g) => g.productType === "gift" && g.backend === "telegram")?.ids).toContain(open.id);
  });
});
