import { randomUUID } from "node:crypto";
import { type Micro, toUsdt } from "../core/model/money.js";
import type { Order } from "../core/model/products.js";
import type { BalanceChange, EventBody, EventEnvelope, EventWriter, WebhookEventType } from "../core/webhooks/outbox.js";
import { gameOrderResponse } from "./games.js";
import { giftcardOrderResponse } from "./giftcards.js";
import { giftOrderResponse } from "./gifts.js";
import { orderView } from "./orders.js";
import { purchaseResponse } from "./stars.js";
import { storeOrderResponse } from "./store.js";

// The webhook events (an addition to the contract): their envelope, their id, and the body of each type.
// Pure renderers: the core decides when an event happens and stores what these return; the JSON is made here.

export type { EventBody, EventEnvelope, WebhookEventType };

/** The one place an event id is made: `evt_` and 32 hex digits; the receiver deduplicates on it. */
export const newEventId = () => `evt_${randomUUID().replaceAll("-", "")}`;

/** The envelope of an event made now (a fresh id). */
export const eventEnvelope = (event: EventBody, at: string, test = false): EventEnvelope => ({
  id: newEventId(),
  type: event.type,
  created_at: at,
  test,
  data: event.data,
});

/** The order as events carry it: the body of its status endpoint, with the balance right after, never any gift card code. */
function eventOrder(order: Order, balanceMicro: Micro): object {
  // Should a view ever throw, a minimal body: the settlement the event rides on must still commit.
  try {
    return orderView(order, balanceMicro);
  } catch {
    return { order_id: order.id, product_type: order.productType, status: order.status };
  }
}

/** order.completed or order.failed; a completed gift card order says its codes are ready (fetch them from its status endpoint). */
export function orderEvent(order: Order, balanceMicro: Micro): EventBody<"order.completed" | "order.failed"> {
  return {
    type: order.status === "completed" ? "order.completed" : "order.failed",
    data: {
      order: eventOrder(order, balanceMicro),
      ...(order.productType === "giftcard" && order.status === "completed" ? { codes_ready: true } : {}),
    },
  };
}

/** A sandbox call's answer as a (test) order.completed: the answer itself is the order. */
const sandboxEvent = (answer: object): EventBody<"order.completed"> => ({ type: "order.completed", data: { order: answer } });

/** An administrator's credit or debit of the balance. */
export function balanceChanged(change: BalanceChange): EventBody<"balance.changed"> {
  return {
    type: "balance.changed",
    data: {
      kind: change.kind,
      amount_usdt: toUsdt(change.amountMicro),
      balance_usdt: toUsdt(change.balanceAfterMicro),
      note: change.note,
    },
  };
}

/** The on-demand test event (POST /v1/webhook/ping); always sent with `test: true`. */
export const pingEvent = (): EventBody<"ping"> => ({ type: "ping", data: { ping: true } });

/** The events as the core writes them into the outbox (handed to it at the composition root). */
export const webhookEvents: EventWriter = {
  order: orderEvent,
  balanceChanged,
  ping: pingEvent,
  sandbox: sandboxEvent,
  envelope: eventEnvelope,
};

// ---- Their description (OpenAPI 3.1's `webhooks` in /openapi.json) ---------------------------------------

/** Each order body an event can carry, by the name of its component in the document. */
const ORDER_BODIES = [purchaseResponse, storeOrderResponse, gameOrderResponse, giftcardOrderResponse, giftOrderResponse].map((schema) => ({
  $ref: `#/components/schemas/${String(schema.meta()?.id)}`,
}));

const orderEventData = {
  type: "object",
  required: ["order"],
  properties: {
    order: { description: "The order's status-endpoint body, without gift card codes", oneOf: ORDER_BODIES },
    codes_ready: { const: true, description: "Only for a completed gift card order: fetch the codes from its status endpoint" },
  },
};

/** JSON Schema of each event type's `data`. */
const EVENT_DATA: Record<WebhookEventType, object> = {
  "order.completed": orderEventData,
  "order.failed": orderEventData,
  "balance.changed": {
    type: "object",
    required: ["kind", "amount_usdt", "balance_usdt", "note"],
    properties: {
      kind: { enum: ["credit", "debit", "topup", "reversal"] },
      amount_usdt: { type: "number", description: "Signed: negative for a debit" },
      balance_usdt: { type: "number", description: "The balance right after" },
      note: { type: ["string", "null"] },
    },
  },
  ping: { type: "object", properties: { ping: { const: true } } },
};

/** JSON Schema of a whole event of the type: the envelope around its data. */
export const eventSchema = (type: WebhookEventType) => ({
  type: "object",
  required: ["id", "type", "created_at", "test", "data"],
  properties: {
    id: { type: "string", description: "evt_…: the same on every attempt; deduplicate on it" },
    type: { const: type },
    created_at: { type: "string", format: "date-time" },
    test: { type: "boolean", description: "True for sandbox calls and pings: nothing was charged or delivered" },
    data: EVENT_DATA[type],
  },
});
