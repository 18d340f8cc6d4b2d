import type { QueryCreator, Selectable } from "kysely";
import { type Db, type Executor, isPostgres } from "./database.js";
import { type Claims, claim } from "./leases.js";
import type { Database, WebhookEventsTable } from "./schema.js";
import { transaction } from "./transaction.js";
import type { WebhookAttempt } from "../core/model/webhook.js";

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
  /** A sandbox call's event: attempted once, never retried. */
  test: boolean;
  /** The lease this instance wrote when it claimed the event (its `next_attempt_at`): what its outcome is guarded by. */
  lease: string | null;
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
  test: row.test_event,
  lease: row.next_attempt_at,
});

/** An instance's turn on one endpoint: its oldest waiting events, sent at once, and the endpoint's breaker. */
export interface Turn {
  accountId: number;
  /** The lease written into the endpoint and its events: what the turn's end is guarded by. */
  lease: string;
  /** Failed turns in a row before this one, and since when (null: the endpoint is healthy). */
  failures: number;
  failingSince: string | null;
  events: WebhookEvent[];
}

export interface TurnOptions {
  now: string;
  /** The lease's end. */
  until: string;
  /** Events to claim at most, over all endpoints (the free slots). */
  limit: number;
  /** Events per turn of a healthy endpoint; an endpoint whose breaker is open gets one (the probe). */
  perEndpoint: number;
}

/**
 * Endpoints with waiting events that may be attempted now (enabled, not leased, breaker closed or due a probe),
 * the longest ready first: each turn ends by making its endpoint ready at its end, so endpoints take turns.
 */
const readyEndpoints = (exec: Executor, now: string, limit: number) =>
  exec
    .selectFrom("webhook_endpoints")
    .select(["account_id", "failures", "failing_since"])
    .where("disabled_at", "is", null)
    .where("ready_at", "<=", now)
    .where("account_id", "in", (eb) => eb.selectFrom("webhook_events").select("account_id").where("status", "=", "pending"))
    .orderBy("ready_at")
    .orderBy("account_id")
    .limit(limit);

/**
 * The account's oldest waiting events; an event waits while an earlier event of the same order is pending, so
 * each order's events arrive in order.
 */
const waitingEvents = (exec: Executor, accountId: number, now: string, limit: number) =>
  exec
    .selectFrom("webhook_events as e")
    .selectAll("e")
    .where("e.account_id", "=", accountId)
    .where("e.status", "=", "pending")
    .where("e.next_attempt_at", "<=", now)
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

/**
 * Leases turns to this instance until `until`: endpoints ready now, each with up to `perEndpoint` of its events
 * (one while its breaker is open), `limit` events in all, counting the attempt each event is claimed for. A
 * plain read comes first, so an idle instance takes no write transaction (SQLite's write lock); on PostgreSQL
 * the endpoints are locked `FOR UPDATE SKIP LOCKED`, so two instances never take turns on the same endpoint:
 * at most `perEndpoint` attempts are under way per endpoint across every instance.
 */
export async function claimTurns(db: Db, claims: { endpoints: Claims; events: Claims }, options: TurnOptions): Promise<Turn[]> {
  const { now, until } = options;
  const turns = await claim(db, {
    limit: options.limit,
    due: (exec, limit) => readyEndpoints(exec, now, limit),
    take: async (trx, endpoints) => {
      const taken: Turn[] = [];
      let left = options.limit;
      for (const endpoint of endpoints) {
        if (left <= 0) break;
        const take = Math.min(left, endpoint.failures > 0 ? 1 : options.perEndpoint);
        const rows = await waitingEvents(trx, endpoint.account_id, now, take).execute();
        if (!rows.length) continue;
        left -= rows.length;
        const ids = rows.map((row) => row.id);
        await trx
          .updateTable("webhook_events")
          .set((eb) => ({ next_attempt_at: until, attempts: eb("attempts", "+", 1) }))
          .where("id", "in", ids)
          .execute();
        await trx.updateTable("webhook_endpoints").set({ ready_at: until }).where("account_id", "=", endpoint.account_id).execute();
        taken.push({
          accountId: endpoint.account_id,
          lease: until,
          failures: endpoint.failures,
          failingSince: endpoint.failing_since,
          events: rows.map((row) => ({ ...toEvent(row), attempts: row.attempts + 1, lease: until })),
        });
      }
      return taken;
    },
  });
  for (const turn of turns) {
    claims.endpoints.hold(turn.accountId, until);
    for (const event of turn.events) claims.events.hold(event.id, until);
  }
  return turns;
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

const attemptRow = (event: Pick<WebhookEvent, "id" | "accountId">, attempt: AttemptRecord) => ({
  event_id: event.id,
  account_id: event.accountId,
  url: attempt.url,
  attempted_at: attempt.at,
  status_code: attempt.statusCode,
  error: attempt.error === null ? null : attempt.error.slice(0, 500),
  duration_ms: Math.round(attempt.durationMs),
  succeeded: attempt.succeeded,
});

export async function recordAttempt(exec: Executor, event: Pick<WebhookEvent, "id" | "accountId">, attempt: AttemptRecord): Promise<void> {
  await exec.insertInto("webhook_attempts").values(attemptRow(event, attempt)).execute();
}

/** What follows from an attempt on a claimed event. */
export type EventOutcome = { delivered: string } | { retryAt: string; error: string } | { givenUp: string };

const outcomeUpdate = (exec: QueryCreator<Database>, event: Pick<WebhookEvent, "id" | "lease">, outcome: EventOutcome) =>
  exec
    .updateTable("webhook_events")
    .set(
      "delivered" in outcome
        ? { status: "delivered" as const, delivered_at: outcome.delivered, next_attempt_at: null, last_error: null }
        : "retryAt" in outcome
          ? { next_attempt_at: outcome.retryAt, last_error: outcome.error }
          : { status: "failed" as const, next_attempt_at: null, last_error: outcome.givenUp },
    )
    .where("id", "=", event.id)
    .where("status", "=", "pending")
    .where("next_attempt_at", "=", event.lease);

/**
 * Sets the claimed event's outcome; false when the claim no longer holds it. Guarded by the claim's lease:
 * should the attempt have outlasted it, another instance holds the event now and its outcome stands.
 */
export async function setOutcome(exec: Executor, event: Pick<WebhookEvent, "id" | "lease">, outcome: EventOutcome): Promise<boolean> {
  const result = await outcomeUpdate(exec, event, outcome).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * An attempt recorded (whether or not the claim still holds its event: it was made) and the event's outcome set as
 * setOutcome does, together: one statement on PostgreSQL (the update as a data-modifying CTE), a transaction of the
 * two on SQLite. Whether the claim held the event.
 */
export async function recordOutcome(db: Db, event: WebhookEvent, attempt: AttemptRecord, outcome: EventOutcome): Promise<boolean> {
  if (!isPostgres(db)) {
    return transaction(db, async (trx) => {
      await recordAttempt(trx, event, attempt);
      return setOutcome(trx, event, outcome);
    });
  }
  const row = await db
    .with("outcome", (w) => outcomeUpdate(w, event, outcome).returning("id"))
    .insertInto("webhook_attempts")
    .values(attemptRow(event, attempt))
    .returning((eb) =>
      eb
        .selectFrom("outcome")
        .select((o) => o.fn.countAll<number>().as("n"))
        .as("applied"),
    )
    .executeTakeFirstOrThrow();
  return Number(row.applied) > 0;
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

/** An order's webhook event as an administrator reads it: never its payload. */
export interface OrderEvent {
  eventId: string;
  type: string;
  status: WebhookEventsTable["status"];
  attempts: number;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** The events an order's settling wrote for its owner's endpoint, oldest first. */
export async function eventsOfOrder(exec: Executor, orderId: number): Promise<OrderEvent[]> {
  const rows = await exec
    .selectFrom("webhook_events")
    .select(["event_id", "type", "status", "attempts", "last_error", "created_at", "delivered_at"])
    .where("order_id", "=", orderId)
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    eventId: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  }));
}
