import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import type { OrderOfType } from "../../src/core/model/products.js";
import { balanceChanged, eventEnvelope, newEventId, orderEvent, pingEvent } from "../../src/wire/events.js";

// The webhook bodies are rendered by pure functions: their bytes are the contract, so the key order is checked too.

const giftcardOrder = (status: "completed" | "failed"): OrderOfType<"giftcard"> => ({
  id: 7,
  accountId: 1,
  fundingAccountId: 1,
  productType: "giftcard",
  status,
  idempotencyKey: null,
  recipient: "psn-us",
  chargeMicro: micro(21_000_000),
  upstreamRef: "ref-7",
  transactionId: null,
  providerOrderId: "p-1",
  providerStatus: status,
  error: null,
  reason: null,
  refunded: status === "failed",
  checkAfter: null,
  checkAttempts: 0,
  backend: null,
  recipientId: null,
  held: null,
  createdAt: "2026-11-01T00:00:00.000Z",
  completedAt: "2026-11-01T00:00:23.000Z",
  details: {
    category_id: "psn-us",
    card_id: "psn-us-10",
    denomination: "10 USD",
    quantity: 2,
    unit_price_micro: 10_500_000,
    cost_micro: 10_000_000,
    markup_bp: 500,
  },
});

describe("webhook event bodies", () => {
  it("renders balance.changed as today: kind, signed amount and balance in USDT, note", () => {
    const event = balanceChanged({
      kind: "debit",
      amountMicro: micro(-2_500_000),
      balanceAfterMicro: micro(7_500_000),
      note: "refund of invoice 77",
    });
    expect(JSON.stringify(event)).toBe(
      '{"type":"balance.changed","data":{"kind":"debit","amount_usdt":-2.5,"balance_usdt":7.5,"note":"refund of invoice 77"}}',
    );
  });

  it("gives a completed gift card order codes_ready and never any code; a failed one neither", () => {
    const completed = orderEvent(giftcardOrder("completed"), micro(5_000_000));
    expect(completed.type).toBe("order.completed");
    expect(completed.data).toMatchObject({ codes_ready: true, order: { order_id: 7, codes_count: 2, balance_after: 5 } });
    expect(JSON.stringify(completed)).not.toContain('"codes"');
    const failed = orderEvent(giftcardOrder("failed"), micro(5_000_000));
    expect(failed.type).toBe("order.failed");
    expect(failed.data).toEqual({ order: expect.objectContaining({ status: "failed", refunded: true }) });
  });

  it("makes one kind of id, and the envelope in the order receivers see", () => {
    expect(newEventId()).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(newEventId()).not.toBe(newEventId());
    const envelope = eventEnvelope(pingEvent(), "2026-11-01T00:00:00.000Z", true);
    expect(Object.keys(envelope)).toEqual(["id", "type", "created_at", "test", "data"]);
    expect(envelope).toMatchObject({ type: "ping", test: true, data: { ping: true } });
  });
});
