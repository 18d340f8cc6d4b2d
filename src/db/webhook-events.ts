import type { Selectable } from "kysely";
import type { Db, Executor } from "./database.js";
import { type Claims, claimDue } from "./leases.js";
import type { WebhookEventsTable } from "./schema.js";
import { transaction } from "./transaction.js";

/** An outbox event as the dispatch works on it. */
export interface WebhookEvent {
  /** The row id (attempts and leases refer to it). */
  id: number;
  /** `evt_…`: what the receiver deduplicates on. */
  eventId: string;
  accountId: number;
  type: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  /** Attempts made so far, the one under way included. */
  attempts: number;
  createdAt: string;
  /** The lease this instance wrote when it claimed the event (its `next_attempt_at`): what its outcome is guarded by. */
  lease: string | null;
}

/** One attempt as the account's attempt list shows it. */
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

/** What one attempt got: the receiver's status, or why there was none. */
export interface AttemptRecord {
  url: string;
  at: string;
  statusCode: number | null;
  /** Null when the attempt succeeded. */
  error: string | null;
  durationMs: number;
  succeeded: boolean;
}

export const toEvent = (row: Selectable<WebhookEventsTable>): WebhookEvent => ({
  id: row.id,
  eventId: row.event_id,
  accountId: row.account_id,
  type: row.type,
  payload: row.payload,
  attempts: row.attempts,
  createdAt: row.created_at,
  lease: row.next_attempt_at,
});

/**
 * Pending events due at `now` whose endpoint is enabled, oldest first; an event waits while an earlier event of
 * the same order is pending, so each order's events arrive in order.
 */
const dueEvents = (exec: Executor, now: string, limit: number) =>
  exec
    .selectFrom("webhook_events as e")
    .selectAll("e")
    .where("e.status", "=", "pending")
    .where("e.next_attempt_at", "<=", now)
    .where("e.account_id", "in", (eb) => eb.selectFrom("webhook_endpoints").select("account_id").where("disabled_at", "is", null))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("webhook_events as earlier")
            .select("earlier.id")
            .whereRef("earlier.order_id", "=", "e.order_id")
            .whereRef("earlier.id", "<", "e.id")
            .where("earlier.status", "=", "pending"),
        ),
      ),
    )
    .orderBy("e.id")
    .limit(limit);

/** Leases up to `limit` due events to this instance until `until`, counting the attempt each is claimed for. */
export async function claimDueEvents(db: Db, claims: Claims, options: { now: string; until: string; limit: number }): Promise<WebhookEvent[]> {
  const rows = await claimDue({
    db,
    claims,
    until: options.until,
    limit: options.limit,
    due: (exec, limit) => dueEvents(exec, options.now, limit),
    lease: (trx, ids) =>
      trx
        .updateTable("webhook_events")
        .set((eb) => ({ next_attempt_at: options.until, attempts: eb("attempts", "+", 1) }))
        .where("id", "in", ids)
        .execute(),
  });
  return rows.map((row) => ({ ...toEvent(row), attempts: row.attempts + 1, lease: options.until }));
}

/**
 * Makes this instance's claimed events due now, guarded by the lease it wrote so nothing another instance did
 * is undone; returns the ids made due.
 */
export function releaseEvents(db: Db, claims: Claims, now: string): Promise<number[]> {
  return claims.release(async (ids, until) => {
    const rows = await db
      .updateTable("webhook_events")
      .set({ next_attempt_at: now })
      .where("id", "in", ids)
      .where("status", "=", "pending")
      .where("next_attempt_at", "=", until)
      .returning("id")
      .execute();
    return rows.map((row) => row.id);
  });
}

export async function recordAttempt(exec: Executor, event: Pick<WebhookEvent, "id" | "accountId">, attempt: AttemptRecord): Promise<void> {
  await exec
    .insertInto("webhook_attempts")
    .values({
      event_id: event.id,
      account_id: event.accountId,
      url: attempt.url,
      attempted_at: attempt.at,
      status_code: attempt.statusCode,
      error: attempt.error === null ? null : attempt.error.slice(0, 500),
      duration_ms: Math.round(attempt.durationMs),
      succeeded: attempt.succeeded,
    })
    .execute();
}

/** What follows from an attempt on a claimed event. */
export type EventOutcome = { delivered: string } | { retryAt: string; error: string } | { givenUp: string };

/**
 * Sets the claimed event's outcome; false when the claim no longer holds it. Guarded by the claim's lease:
 * should the attempt have outlasted it, another instance holds the event now and its outcome stands.
 */
export async function setOutcome(exec: Executor, event: Pick<WebhookEvent, "id" | "lease">, outcome: EventOutcome): Promise<boolean> {
  const set =
    "delivered" in outcome
      ? { status: "delivered" as const, delivered_at: outcome.delivered, next_attempt_at: null, last_error: null }
      : "retryAt" in outcome
        ? { next_attempt_at: outcome.retryAt, last_error: outcome.error }
        : { status: "failed" as const, next_attempt_at: null, last_error: outcome.givenUp };
  const result = await exec
    .updateTable("webhook_events")
    .set(set)
    .where("id", "=", event.id)
    .where("status", "=", "pending")
    .where("next_attempt_at", "=", event.lease)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The account's waiting events are due now (its endpoint was set or changed). */
export async function makePendingDue(exec: Executor, accountId: number, at: string): Promise<void> {
  await exec.updateTable("webhook_events").set({ next_attempt_at: at }).where("account_id", "=", accountId).where("status", "=", "pending").execute();
}

/** The account's waiting events are given up, with why (its endpoint was removed). */
export async function giveUpPending(exec: Executor, accountId: number, reason: string): Promise<void> {
  await exec
    .updateTable("webhook_events")
    .set({ status: "failed", last_error: reason, next_attempt_at: null })
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .execute();
}

/**
 * A ping's event: final from the start (never claimable, never counted as waiting), so a ping cut short leaves
 * nothing pending; `finishPing` records what came of it.
 */
export async function insertPing(exec: Executor, ping: { eventId: string; accountId: number; payload: string; at: string }): Promise<WebhookEvent> {
  const row = await exec
    .insertInto("webhook_events")
    .values({
      event_id: ping.eventId,
      account_id: ping.accountId,
      type: "ping",
      test_event: true,
      payload: ping.payload,
      status: "failed",
      last_error: "no answer recorded",
      attempts: 1,
      next_attempt_at: null,
      created_at: ping.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toEvent(row);
}

/** Records the ping's one attempt and its outcome, together. */
export async function finishPing(db: Db, event: WebhookEvent, attempt: AttemptRecord): Promise<void> {
  await transaction(db, async (trx) => {
    await recordAttempt(trx, event, attempt);
    await trx
      .updateTable("webhook_events")
      .set(attempt.succeeded ? { status: "delivered", delivered_at: attempt.at } : { status: "failed", last_error: attempt.error })
      .where("id", "=", event.id)
      .execute();
  });
}

/** Events of the account not yet delivered (waiting, or due for a retry). */
export async function pendingEvents(exec: Executor, accountId: number): Promise<number> {
  const row = await exec
    .selectFrom("webhook_events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirstOrThrow();
  return row.n;
}

/** The account's attempts, newest first; `before` is the id of the last attempt of the previous page. */
export async function listAttempts(exec: Executor, accountId: number, page: { limit: number; before?: number }): Promise<WebhookAttempt[]> {
  let query = exec
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
    id: r.id,
    eventId: r.event_id,
    eventType: r.type,
    orderId: r.order_id,
    test: r.test_event,
    url: r.url,
    attemptedAt: r.attempted_at,
    statusCode: r.status_code,
    succeeded: r.succeeded,
    error: r.error,
    durationMs: r.duration_ms,
  }));
}

/** Deletes up to `max` delivered and given-up events created before `before` (never a pending one) and their attempts; returns how many events. */
export async function purgeEvents(db: Db, options: { before: string; max: number }): Promise<number> {
  return transaction(db, async (trx) => {
    const old = await trx
      .selectFrom("webhook_events")
      .select("id")
      .where("status", "!=", "pending")
      .where("created_at", "<", options.before)
      .limit(options.max)
      .execute();
    const ids = old.map((row) => row.id);
    if (!ids.length) return 0;
    await trx.deleteFrom("webhook_attempts").where("event_id", "in", ids).execute();
    await trx.deleteFrom("webhook_events").where("id", "in", ids).execute();
    return ids.length;
  });
}
