import { type BackgroundScope, type Clock, unnamed, type WebhookResult } from "../core/ports.js";
import { attemptRecord, errorOf, type Send, succeeded } from "../core/webhooks/send.js";
import type { Db, Executor } from "../db/database.js";
import { createClaims } from "../db/leases.js";
import { transaction } from "../db/transaction.js";
import { disableEndpoint } from "../db/webhook-endpoints.js";
import { claimDueEvents, recordAttempt, releaseEvents, setOutcome, type WebhookEvent } from "../db/webhook-events.js";
import { createLoop, type Job, type JobLog } from "./loop.js";

export interface DispatchSettings {
  /** One attempt's bound: connecting, the answer's headers and its body. */
  timeoutMs: number;
  /** The first retry's delay; each later one doubles, up to `retryMaxMs`, with a little jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Failures keep being retried until the event is this old; then the endpoint is disabled. */
  retryForMs: number;
  /** How often the outbox is looked at besides the wakes (an outbox commit, a freed slot). */
  pollMs: number;
}

export type DisabledListener = (accountId: number, url: string, reason: string) => void;

export interface DispatchOptions {
  db: Db;
  clock: Clock;
  /** The signed send of one attempt (core/webhooks). */
  send: Send;
  settings: DispatchSettings;
  log: JobLog;
  scope?: BackgroundScope;
}

/** Attempts under way at once in one process, each on its own: a slow receiver holds one slot, not the others. */
const SLOTS = 16;

/** The delay before the next attempt after `attempts` failed ones. */
export function backoff(settings: Pick<DispatchSettings, "retryBaseMs" | "retryMaxMs">, attempts: number): number {
  const step = Math.min(settings.retryBaseMs * 2 ** Math.min(attempts - 1, 30), settings.retryMaxMs);
  return Math.round(step * (0.9 + Math.random() * 0.2));
}

/**
 * Records an attempt and what follows from it, in one transaction: delivered, due again later, or given up
 * (then the endpoint is disabled). Returns the endpoint disabled by this record, to be told of, or null.
 */
export async function record(
  db: Db,
  settings: DispatchSettings,
  event: WebhookEvent,
  attempt: { url: string; result: WebhookResult; now: Date },
): Promise<{ url: string; reason: string } | null> {
  const { result, now } = attempt;
  const at = now.toISOString();
  return transaction(db, async (trx) => {
    // Recorded even when the claim no longer holds the event: the attempt was made.
    await recordAttempt(trx, event, attemptRecord(attempt.url, result, at));
    if (succeeded(result)) {
      await setOutcome(trx, event, { delivered: at });
      return null;
    }
    if (now.getTime() - Date.parse(event.createdAt) < settings.retryForMs) {
      await setOutcome(trx, event, { retryAt: new Date(now.getTime() + backoff(settings, event.attempts)).toISOString(), error: errorOf(result) });
      return null;
    }
    return giveUp(trx, event, errorOf(result), at);
  });
}

/** The event is failed for good and its endpoint disabled; only the update that did both returns it (told once). */
async function giveUp(trx: Executor, event: WebhookEvent, error: string, at: string) {
  if (!(await setOutcome(trx, event, { givenUp: error }))) return null;
  const reason = `event ${event.eventId} undelivered after ${event.attempts} attempts (${error})`;
  const url = await disableEndpoint(trx, event.accountId, { at, reason });
  return url === null ? null : { url, reason };
}

/**
 * Dispatches the outbox. An event is claimed through a lease (db/leases.ts: of several instances exactly one
 * makes each attempt); a process killed during an attempt leaves the claim to lapse, and the event is sent
 * again: at least once. An event waits while an earlier event of the same order is undelivered, so each
 * order's events arrive in order.
 */
export function createWebhookDispatch(options: DispatchOptions) {
  const { db, clock, settings, log } = options;
  const scope = options.scope ?? unnamed;
  const leaseMs = settings.timeoutMs + 5_000;
  const claims = createClaims();
  const disabledListeners: DisabledListener[] = [];
  const inFlight = new Set<Promise<void>>();
  /** Set by `stop`: no more claims. */
  let stopped = true;
  /** Set by `handBack`: attempts cut short record nothing (their events are already due again). */
  let handedBack = false;

  const claim = (limit: number) => {
    const now = clock.now();
    return claimDueEvents(db, claims, { now: now.toISOString(), until: new Date(now.getTime() + leaseMs).toISOString(), limit });
  };

  /** One attempt of a claimed event. */
  async function attempt(event: WebhookEvent): Promise<void> {
    try {
      const sent = await options.send(event, event.attempts);
      if (!sent || handedBack) return;
      const disabled = await record(db, settings, event, { ...sent, now: clock.now() });
      if (disabled) for (const listener of disabledListeners) listener(event.accountId, disabled.url, disabled.reason);
    } catch (error) {
      // The claim lapses and the event comes due again: nothing is lost.
      log.warn({ eventId: event.eventId, err: error }, "webhook delivery could not be recorded; it will be retried");
    } finally {
      claims.drop(event.id);
    }
  }

  /** Claims due events into the free slots until none is due; each attempt runs on its own. */
  async function pass(): Promise<void> {
    for (;;) {
      const free = SLOTS - inFlight.size;
      if (free <= 0 || stopped) return;
      const claimed = await claim(free);
      if (!claimed.length) return;
      for (const event of claimed) {
        const job: Promise<void> = scope(`wh-${event.eventId}`, () => attempt(event)).finally(() => {
          inFlight.delete(job);
          loop.wake();
        });
        inFlight.add(job);
      }
    }
  }

  const loop = createLoop({
    name: "wh-pass",
    intervalMs: settings.pollMs,
    run: pass,
    failed: undefined,
    failure: "webhook pass failed; the next one will try again",
    log,
    scope: options.scope,
  });

  const job = {
    name: "webhook dispatch",
    /** Looks for due events now (after a commit that recorded some, or an attempt that freed a slot). */
    wake: loop.wake,
    /** Runs one pass and waits for the attempts it started: tests and tools use it. */
    async drain(): Promise<void> {
      const wasStopped = stopped;
      stopped = false;
      try {
        do {
          await loop.runOnce();
          await Promise.all([...inFlight]);
        } while (inFlight.size);
      } finally {
        stopped = wasStopped;
      }
    },
    start() {
      stopped = false;
      handedBack = false;
      loop.start();
    },
    /** Stops claiming and waits for the attempts under way (each bounded by the timeout). */
    async stop() {
      stopped = true;
      await loop.stop();
      await Promise.all([...inFlight]);
    },
    /** Events claimed and being sent now. */
    underWay: () => ({ webhookAttempts: claims.size }),
    /** After `stop`: events still claimed (attempts cut short) are made due again now. */
    async handBack(): Promise<{ webhookEvents: number[] }> {
      handedBack = true;
      return { webhookEvents: await releaseEvents(db, claims, clock.now().toISOString()) };
    },
    /** Told when attempts gave up and the endpoint was disabled (the bot tells the owner). Must not throw. */
    onDisabled(listener: DisabledListener) {
      disabledListeners.push(listener);
    },
  };
  return job satisfies Job;
}

export type WebhookDispatch = ReturnType<typeof createWebhookDispatch>;
