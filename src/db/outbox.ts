import type { Executor } from "./database.js";
import { toEvent, type WebhookEvent } from "./webhook-events.js";

// The outbox: events are written in the transaction of the change they report (db/webhook-events.ts dispatches them).

/** A pending event, due now. */
export async function insertEvent(
  exec: Executor,
  event: { eventId: string; accountId: number; type: string; orderId: number | null; test: boolean; payload: string; at: string },
): Promise<WebhookEvent> {
  const row = await exec
    .insertInto("webhook_events")
    .values({
      event_id: event.eventId,
      account_id: event.accountId,
      type: event.type,
      order_id: event.orderId,
      test_event: event.test,
      payload: event.payload,
      status: "pending",
      next_attempt_at: event.at,
      created_at: event.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toEvent(row);
}
