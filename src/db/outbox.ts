import { type RawBuilder, sql } from "kysely";
import type { Account } from "../core/model/account.js";
import { toAccount } from "./accounts.js";
import { compiledOnce } from "./compiled.js";
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

/**
 * Whether the account has more than `offset` events waiting, as a column of a statement (the outbox's bound, with
 * `offset` one less than it): the finish of an order reads it too (db/placement.ts).
 */
export const outboxFull = (accountId: number | RawBuilder<unknown>, offset: number) =>
  sql<boolean>`exists (select 1 from webhook_events where webhook_events.account_id = ${accountId}
    and webhook_events.status = 'pending' order by webhook_events.id limit 1 offset ${offset})`;

const eventTargetQuery = compiledOnce(2, (exec, accountId: number, offset: number) =>
  exec
    .selectFrom("accounts")
    .innerJoin("webhook_endpoints", "webhook_endpoints.account_id", "accounts.id")
    .selectAll("accounts")
    .select(outboxFull(accountId, offset).as("full"))
    .where("accounts.id", "=", accountId),
);

/** What an event for an account needs: the account, and whether `pendingMax` of its events are already waiting (the outbox's bound). */
export interface EventTarget {
  account: Account;
  full: boolean;
}

/** The account's event target in one read; null when it has no webhook endpoint (no events). */
export async function eventTarget(exec: Executor, accountId: number, pendingMax: number): Promise<EventTarget | null> {
  const [row] = await eventTargetQuery(exec, accountId, pendingMax - 1);
  return row ? { account: toAccount(row), full: Boolean(row.full) } : null;
}
