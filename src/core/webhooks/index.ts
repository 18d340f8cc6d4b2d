import { randomUUID } from "node:crypto";
import type { Db } from "../../db/database.js";
import type { BackgroundScope, Clock, WebhookSender } from "../ports.js";
import type { Vault } from "../vault.js";
import { createDelivery, type DeliveryLog, type DeliverySettings } from "./delivery.js";
import { createEndpoints, type EndpointPolicy } from "./endpoints.js";
import { createOutbox, type EventEnvelope, type OrderBodyOf } from "./outbox.js";

export interface WebhookDeps {
  sender: WebhookSender;
  settings: DeliverySettings;
  policy: EndpointPolicy;
  /** The order's status-endpoint body, which order events carry (a face's view, handed in at the composition root). */
  orderBody: OrderBodyOf;
}

export interface WebhookAttempt {
  id: number;
  eventId: string;
  eventType: string;
  orderId: number | null;
  test: boolean;
  url: string;
  attemptedAt: string;
  statusCode: number | null;
  succeeded: boolean;
  error: string | null;
  durationMs: number;
}

/** Signed webhooks: an account's endpoint, the outbox its events go into, and their delivery. */
export function createWebhooks(db: Db, clock: Clock, vault: Vault, deps: WebhookDeps, log: DeliveryLog, scope?: BackgroundScope) {
  const outbox = createOutbox(clock, deps.orderBody);
  const endpoints = createEndpoints(db, clock, vault, deps.policy);
  const delivery = createDelivery(db, clock, endpoints, deps.sender, deps.settings, log, scope);
  outbox.onCommitted(delivery.wake);

  return {
    outbox,
    delivery,
    get: endpoints.get,
    set: endpoints.set,
    rotateSecret: endpoints.rotateSecret,
    remove: endpoints.remove,
    onDisabled: delivery.onDisabled,

    /** Events not yet delivered (waiting, or due for a retry). */
    async pending(accountId: number): Promise<number> {
      const row = await db
        .selectFrom("webhook_events")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", accountId)
        .where("status", "=", "pending")
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** A `ping` event sent now, once, and what came of it. */
    ping(accountId: number) {
      const at = clock.now().toISOString();
      const envelope: EventEnvelope = {
        id: `evt_${randomUUID().replaceAll("-", "")}`,
        type: "ping",
        created_at: at,
        test: true,
        data: { ping: true },
      };
      return delivery.ping(accountId, { eventId: envelope.id, payload: JSON.stringify(envelope), at });
    },

    /** A test event (a sandbox call's answer): delivered like any other, marked `test`. Null without an endpoint. */
    async testEvent(accountId: number, data: object) {
      const event = await outbox.record(db, accountId, "order.completed", data, { test: true });
      if (event) outbox.committed();
      return event?.event_id ?? null;
    },

    /** Delivery attempts, newest first; `before` is the id of the last attempt of the previous page. */
    async attempts(accountId: number, page: { limit: number; before?: number }): Promise<WebhookAttempt[]> {
      let query = db
        .selectFrom("webhook_attempts as a")
        .innerJoin("webhook_events as e", "e.id", "a.event_id")
        .select([
          "a.id",
          "e.event_id",
          "e.type",
          "e.order_id",
          "e.test_event",
          "a.url",
          "a.attempted_at",
          "a.status_code",
          "a.succeeded",
          "a.error",
          "a.duration_ms",
        ])
        .where("a.account_id", "=", accountId)
        .orderBy("a.id", "desc")
        .limit(page.limit);
      if (page.before !== undefined) query = query.where("a.id", "<", page.before);
      const rows = await query.execute();
      return rows.map((r) => ({
        id: Number(r.id),
        eventId: r.event_id,
        eventType: r.type,
        orderId: r.order_id === null ? null : Number(r.order_id),
        test: r.test_event,
        url: r.url,
        attemptedAt: r.attempted_at,
        statusCode: r.status_code === null ? null : Number(r.status_code),
        succeeded: r.succeeded,
        error: r.error,
        durationMs: Number(r.duration_ms),
      }));
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
