import { type Db, type Executor, isPostgres } from "../../db/database.js";
import type { WebhookEventsTable } from "../../db/schema.js";
import type { Selectable } from "kysely";
import { createClaims } from "../claims.js";
import { notFound } from "../errors.js";
import { type BackgroundScope, type Clock, unnamed, type WebhookResult, type WebhookSender } from "../ports.js";
import type { Endpoints } from "./endpoints.js";
import { SIGNATURE_HEADER, signatureHeader } from "./signature.js";

export interface DeliverySettings {
  /** One attempt's bound: connecting, the answer's headers and its body. */
  timeoutMs: number;
  /** The first retry's delay; each later one doubles, up to `retryMaxMs`, with a little jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Failures keep being retried until the event is this old; then the endpoint is disabled. */
  retryForMs: number;
  pollMs: number;
  /** Delivered and given-up events, with their attempts, are kept this long, then deleted. */
  retentionMs: number;
}

export interface DeliveryLog {
  warn(obj: object, msg: string): void;
}

type EventRow = Selectable<WebhookEventsTable>;

/** How often old events are deleted, and how many at most each time. */
const PURGE_EVERY_MS = 60 * 60 * 1000;
const PURGE_MAX = 5_000;

/** Deliveries under way at once in one process, each on its own: a slow receiver holds one slot, not the others. */
const SLOTS = 16;

const errorOf = (result: WebhookResult) => result.error ?? `HTTP ${result.statusCode}`;
const succeeded = (result: WebhookResult) => result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;

/**
 * Delivers the outbox. An event is claimed by moving its `next_attempt_at` one lease ahead (`FOR UPDATE SKIP
 * LOCKED` on PostgreSQL, so of several instances exactly one makes each attempt); a process killed during an
 * attempt leaves the claim to lapse, and the event is sent again: at least once. An event waits while an earlier
 * event of the same order is undelivered, so each order's events arrive in order.
 */
export function createDelivery(
  db: Db,
  clock: Clock,
  endpoints: Endpoints,
  sender: WebhookSender,
  settings: DeliverySettings,
  log: DeliveryLog,
  scope: BackgroundScope = unnamed,
) {
  const leaseMs = settings.timeoutMs + 5_000;
  const disabledListeners: Array<(accountId: number, url: string, reason: string) => void> = [];
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let purger: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  /** Set by `release`: attempts cut short record nothing (their events are already due again). */
  let released = false;
  const claims = createClaims();

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

  async function claim(limit: number): Promise<EventRow[]> {
    const now = clock.now();
    // A plain read first: the claim's write transaction only when something is due.
    if (!(await dueEvents(db, now.toISOString(), 1).executeTakeFirst())) return [];
    const until = new Date(now.getTime() + leaseMs).toISOString();
    const claimed = await db.transaction().execute(async (trx) => {
      // The conditions sit on the locked rows themselves, so PostgreSQL re-checks them against a claim that
      // another instance committed meanwhile.
      let due = dueEvents(trx, now.toISOString(), limit);
      if (isPostgres(trx)) due = due.forUpdate().skipLocked();
      const rows = await due.execute();
      if (!rows.length) return [];
      await trx
        .updateTable("webhook_events")
        .set((eb) => ({ next_attempt_at: until, attempts: eb("attempts", "+", 1) }))
        .where(
          "id",
          "in",
          rows.map((row) => row.id),
        )
        .execute();
      return rows.map((row) => ({ ...row, attempts: row.attempts + 1, next_attempt_at: until }));
    });
    for (const row of claimed) claims.hold(row.id, until);
    return claimed;
  }

  /** One signed POST of the event's stored body to the endpoint as it is now. */
  async function send(event: EventRow, attempt: number) {
    const endpoint = await db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", event.account_id).executeTakeFirst();
    if (!endpoint) return null;
    const timestamp = Math.floor(clock.now().getTime() / 1000);
    const result = await sender.send({
      url: endpoint.url,
      body: event.payload,
      timeoutMs: settings.timeoutMs,
      headers: {
        "content-type": "application/json",
        "user-agent": "partner-purchase-webhooks/1",
        "x-webhook-id": event.event_id,
        "x-webhook-type": event.type,
        "x-webhook-attempt": String(attempt),
        [SIGNATURE_HEADER]: signatureHeader(endpoints.secretsOf(endpoint), timestamp, event.payload),
      },
    });
    return { url: endpoint.url, result };
  }

  const recordAttempt = (trx: Executor, event: EventRow, url: string, result: WebhookResult, at: string) =>
    trx
      .insertInto("webhook_attempts")
      .values({
        event_id: event.id,
        account_id: event.account_id,
        url,
        attempted_at: at,
        status_code: result.statusCode,
        error: succeeded(result) ? null : errorOf(result).slice(0, 500),
        duration_ms: Math.round(result.durationMs),
        succeeded: succeeded(result),
      })
      .execute();

  function backoff(attempts: number): number {
    const step = Math.min(settings.retryBaseMs * 2 ** Math.min(attempts - 1, 30), settings.retryMaxMs);
    return Math.round(step * (0.9 + Math.random() * 0.2));
  }

  /** The attempt and what follows from it, in one transaction: delivered, due again later, or given up. */
  async function settle(event: EventRow, url: string, result: WebhookResult) {
    const now = clock.now();
    const at = now.toISOString();
    const ok = succeeded(result);
    const disabled = await db.transaction().execute(async (trx) => {
      await recordAttempt(trx, event, url, result, at);
      // Guarded by this claim's lease: should the attempt have outlasted it, another instance holds the event now
      // and its outcome stands (this attempt is recorded all the same).
      const pending = trx
        .updateTable("webhook_events")
        .where("id", "=", event.id)
        .where("status", "=", "pending")
        .where("next_attempt_at", "=", event.next_attempt_at);
      if (ok) {
        await pending.set({ status: "delivered", delivered_at: at, next_attempt_at: null, last_error: null }).execute();
        return null;
      }
      const givingUp = now.getTime() - Date.parse(event.created_at) >= settings.retryForMs;
      if (!givingUp) {
        await pending
          .set({ next_attempt_at: new Date(now.getTime() + backoff(event.attempts)).toISOString(), last_error: errorOf(result) })
          .execute();
        return null;
      }
      const gaveUp = await pending.set({ status: "failed", next_attempt_at: null, last_error: errorOf(result) }).executeTakeFirst();
      if (Number(gaveUp.numUpdatedRows) === 0) return null;
      const reason = `event ${event.event_id} undelivered after ${event.attempts} attempts (${errorOf(result)})`;
      const endpoint = await trx
        .updateTable("webhook_endpoints")
        .set({ disabled_at: at, disabled_reason: reason, updated_at: at })
        .where("account_id", "=", event.account_id)
        .where("disabled_at", "is", null)
        .returning("url")
        .executeTakeFirst();
      return endpoint ? { url: endpoint.url, reason } : null;
    });
    // Told once: only the instance whose update disabled the endpoint tells its owner.
    if (disabled) for (const listener of disabledListeners) listener(Number(event.account_id), disabled.url, disabled.reason);
  }

  async function deliver(event: EventRow): Promise<void> {
    try {
      const sent = await send(event, event.attempts);
      if (sent && !released) await settle(event, sent.url, sent.result);
    } catch (error) {
      // The claim lapses and the event comes due again: nothing is lost.
      log.warn({ eventId: event.event_id, err: error }, "webhook delivery could not be recorded; it will be retried");
    } finally {
      claims.drop(event.id);
    }
  }

  async function pass(): Promise<void> {
    for (;;) {
      const free = SLOTS - inFlight.size;
      if (free <= 0 || stopped) return;
      const claimed = await claim(free);
      if (!claimed.length) return;
      for (const event of claimed) {
        const job: Promise<void> = scope(`wh-${event.event_id}`, () => deliver(event)).finally(() => {
          inFlight.delete(job);
          wake();
        });
        inFlight.add(job);
      }
    }
  }

  function runOnce(): Promise<void> {
    running ??= pass()
      .catch((error: unknown) => log.warn({ err: error }, "webhook pass failed; the next one will try again"))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          void runOnce();
        }
      });
    return running;
  }

  /** Looks for due events now (after a commit that recorded some, or a delivery that freed a slot). */
  function wake() {
    if (stopped) return;
    if (running) again = true;
    else void runOnce();
  }

  /** Deletes events past the retention (never a pending one) and their attempts; returns how many events. */
  async function purge(): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - settings.retentionMs).toISOString();
    return db.transaction().execute(async (trx) => {
      const old = await trx
        .selectFrom("webhook_events")
        .select("id")
        .where("status", "!=", "pending")
        .where("created_at", "<", cutoff)
        .limit(PURGE_MAX)
        .execute();
      const ids = old.map((row) => row.id);
      if (!ids.length) return 0;
      await trx.deleteFrom("webhook_attempts").where("event_id", "in", ids).execute();
      await trx.deleteFrom("webhook_events").where("id", "in", ids).execute();
      return ids.length;
    });
  }

  return {
    wake,
    purge,
    /** Runs one pass and waits for the deliveries it started: tests and tools use it. */
    async drain(): Promise<void> {
      const wasStopped = stopped;
      stopped = false;
      try {
        do {
          await runOnce();
          await Promise.all([...inFlight]);
        } while (inFlight.size);
      } finally {
        stopped = wasStopped;
      }
    },
    start() {
      stopped = false;
      released = false;
      timer ??= setInterval(wake, settings.pollMs);
      timer.unref();
      const purgeOld = () => purge().catch((error: unknown) => log.warn({ err: error }, "could not delete old webhook events"));
      purger ??= setInterval(purgeOld, PURGE_EVERY_MS);
      purger.unref();
      wake();
    },
    /** Stops claiming and waits for the attempts under way (each bounded by the timeout). */
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearInterval(purger);
      timer = purger = undefined;
      await running;
      await Promise.all([...inFlight]);
    },
    /** Events claimed and being sent now. */
    claimed: () => claims.size,
    /**
     * After `stop`: events still claimed (attempts cut short) are made due again now, guarded by the lease this
     * instance wrote so nothing another instance did is undone; returns their ids.
     */
    async release(): Promise<number[]> {
      released = true;
      const now = clock.now().toISOString();
      return claims.release(async (ids, until) => {
        const rows = await db
          .updateTable("webhook_events")
          .set({ next_attempt_at: now })
          .where("id", "in", ids)
          .where("status", "=", "pending")
          .where("next_attempt_at", "=", until)
          .returning("id")
          .execute();
        return rows.map((row) => Number(row.id));
      });
    },

    /** A ping to the endpoint now, once, whether or not it is enabled; recorded like any attempt, never retried. */
    async ping(accountId: number, envelope: { eventId: string; payload: string; at: string }) {
      const endpoint = await endpoints.get(accountId);
      if (!endpoint) throw notFound("No webhook endpoint: set one first (POST /v1/webhook)");
      const event = await db
        .insertInto("webhook_events")
        .values({
          event_id: envelope.eventId,
          account_id: accountId,
          type: "ping",
          test_event: true,
          payload: envelope.payload,
          // Final from the start (never claimable, never counted as waiting), so a ping cut short leaves nothing pending.
          status: "failed",
          last_error: "no answer recorded",
          attempts: 1,
          next_attempt_at: null,
          created_at: envelope.at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const sent = await send(event, 1);
      if (!sent) throw notFound("No webhook endpoint: set one first (POST /v1/webhook)");
      const ok = succeeded(sent.result);
      await db.transaction().execute(async (trx) => {
        await recordAttempt(trx, event, sent.url, sent.result, clock.now().toISOString());
        await trx
          .updateTable("webhook_events")
          .set(ok ? { status: "delivered", delivered_at: clock.now().toISOString() } : { status: "failed", last_error: errorOf(sent.result) })
          .where("id", "=", event.id)
          .execute();
      });
      return { eventId: envelope.eventId, url: sent.url, delivered: ok, ...sent.result };
    },

    /** Told when deliveries gave up and the endpoint was disabled (the bot tells the owner). Must not throw. */
    onDisabled(listener: (accountId: number, url: string, reason: string) => void) {
      disabledListeners.push(listener);
    },
  };
}

export type Delivery = ReturnType<typeof createDelivery>;
