import { type BackgroundScope, unnamed, type WebhookResult } from "../core/ports.js";
import type { Clock } from "../core/model/clock.js";
import { attemptRecord, errorOf, type Send, succeeded } from "../core/webhooks/send.js";
import type { Db, Executor } from "../db/database.js";
import { createClaims } from "../db/leases.js";
import { transaction } from "../db/transaction.js";
import { disableEndpoint, endTurn, releaseEndpoints } from "../db/webhook-endpoints.js";
import {
  claimTurns,
  type EventOutcome,
  recordAttempt,
  recordOutcome,
  releaseEvents,
  setOutcome,
  type Turn,
  type WebhookEvent,
} from "../db/webhook-events.js";
import { createLeasedJob, type Job, type JobLog, type LeaseState } from "./loop.js";

interface DispatchSettings {
  /** One attempt's bound: connecting, the answer's headers and its body. */
  timeoutMs: number;
  /** A failing endpoint's first wait (the breaker); each later one doubles, up to `retryMaxMs`, with a little jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A failing endpoint keeps being probed until it has failed for this long; then it is disabled. */
  retryForMs: number;
  /** How often the outbox is looked at besides the wakes (an outbox commit, a turn's end). */
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

/** Attempts under way at once in one process, each on its own: a slow receiver holds its slots, not the others. */
const SLOTS = 16;
/** Attempts under way at once per endpoint, across every instance (a turn's events); one while its breaker is open. */
const PER_ENDPOINT = 4;

/** The breaker's wait after `failures` failed turns in a row: doubling from the base up to the most, with a little jitter. */
function backoff(settings: Pick<DispatchSettings, "retryBaseMs" | "retryMaxMs">, failures: number): number {
  const step = Math.min(settings.retryBaseMs * 2 ** Math.min(failures - 1, 30), settings.retryMaxMs);
  return Math.round(step * (0.9 + Math.random() * 0.2));
}

/**
 * Records an attempt and what follows from it for the event, together: delivered; given up (a test event is
 * attempted once; an endpoint failing for longer than `retryForMs` is disabled); or waiting for the endpoint's
 * next turn. The attempt is recorded even when the claim no longer holds the event: it was made. Returns the
 * endpoint disabled by this record, to be told of, or null.
 */
async function record(
  db: Db,
  settings: DispatchSettings,
  event: WebhookEvent,
  attempt: { url: string; result: WebhookResult; now: Date; failingSince: string | null },
): Promise<{ url: string; reason: string } | null> {
  const { result, now } = attempt;
  const at = now.toISOString();
  const made = attemptRecord(attempt.url, result, at);
  const failingFor = attempt.failingSince === null ? 0 : now.getTime() - Date.parse(attempt.failingSince);
  // The common cases in one statement on PostgreSQL; giving up on an endpoint also disables it, in a transaction.
  const outcome = outcomeOf(event, result, at, failingFor < settings.retryForMs);
  if (outcome) {
    await recordOutcome(db, event, made, outcome);
    return null;
  }
  return transaction(db, async (trx) => {
    await recordAttempt(trx, event, made);
    return giveUp(trx, event, errorOf(result), at);
  });
}

/** What an attempt means for its event; null when it means giving up on the endpoint (failing for too long). */
function outcomeOf(event: WebhookEvent, result: WebhookResult, at: string, retrying: boolean): EventOutcome | null {
  if (succeeded(result)) return { delivered: at };
  if (event.test) return { givenUp: `${errorOf(result)} (a test event is attempted once, never retried)` };
  return retrying ? { retryAt: at, error: errorOf(result) } : null;
}

/** The event is failed for good and its endpoint disabled; only the update that did both returns it (told once). */
async function giveUp(trx: Executor, event: WebhookEvent, error: string, at: string) {
  if (!(await setOutcome(trx, event, { givenUp: error }))) return null;
  const reason = `event ${event.eventId} undelivered after ${event.attempts} attempts (${error})`;
  const url = await disableEndpoint(trx, event.accountId, { at, reason });
  return url === null ? null : { url, reason };
}

/** What this process's dispatch holds: its claims, the turns under way, the slots their attempts take, who hears of a disabling. */
function createDispatchState() {
  return {
    claims: { endpoints: createClaims(), events: createClaims() },
    turns: new Set<Promise<void>>(),
    /** Attempts under way in this process (the slots taken). */
    busy: 0,
    disabledListeners: [] as DisabledListener[],
  };
}

type DispatchState = ReturnType<typeof createDispatchState>;

/** One attempt of a claimed event; false when it failed. */
async function attempt(options: DispatchOptions, slots: DispatchState, event: WebhookEvent, turn: Turn, state: LeaseState): Promise<boolean> {
  const { db, clock, settings, log } = options;
  try {
    const sent = await options.send(event, event.attempts);
    // Handed back: attempts cut short record nothing (their events and endpoints are already ready again).
    if (!sent || state.handedBack) return true;
    const disabled = await record(db, settings, event, { now: clock.now(), failingSince: turn.failingSince, ...sent });
    if (disabled) for (const listener of slots.disabledListeners) listener(event.accountId, disabled.url, disabled.reason);
    return succeeded(sent.result);
  } catch (error) {
    // The claim lapses and the event comes due again: nothing is lost.
    log.warn({ eventId: event.eventId, err: error }, "webhook-dispatch could not record an attempt; it will be retried");
    return false;
  } finally {
    slots.claims.events.drop(event.id);
    slots.busy -= 1;
  }
}

/** A turn: its attempts at once, then the endpoint's breaker closed (all delivered) or opened further. */
async function take(options: DispatchOptions, slots: DispatchState, turn: Turn, state: LeaseState): Promise<void> {
  const { db, clock, settings, log } = options;
  const scope = options.scope ?? unnamed;
  const outcomes = await Promise.all(
    turn.events.map((event) => scope(`webhook-dispatch-${event.eventId}`, () => attempt(options, slots, event, turn, state))),
  );
  try {
    if (state.handedBack) return;
    const failed = outcomes.includes(false);
    const now = clock.now();
    const retryAt = new Date(now.getTime() + backoff(settings, turn.failures + 1)).toISOString();
    await endTurn(db, turn.accountId, { lease: turn.lease, at: now.toISOString(), failed, retryAt });
  } catch (error) {
    // The endpoint's lease lapses and it is ready again then: nothing is lost.
    log.warn({ accountId: turn.accountId, err: error }, "webhook-dispatch could not end a turn; the endpoint is ready again when its lease lapses");
  } finally {
    slots.claims.endpoints.drop(turn.accountId);
  }
}

/** Claims turns into the free slots until no endpoint is ready; each turn runs on its own, and its end wakes the job. */
async function pass(options: DispatchOptions, slots: DispatchState, state: LeaseState, wake: () => void): Promise<void> {
  const { db, clock, settings } = options;
  const leaseMs = settings.timeoutMs + 5_000;
  for (;;) {
    const free = SLOTS - slots.busy;
    if (free <= 0 || state.stopping) return;
    const now = clock.now();
    const claimed = await claimTurns(db, slots.claims, {
      now: now.toISOString(),
      until: new Date(now.getTime() + leaseMs).toISOString(),
      limit: free,
      perEndpoint: PER_ENDPOINT,
    });
    if (!claimed.length) return;
    for (const turn of claimed) {
      slots.busy += turn.events.length;
      const running: Promise<void> = take(options, slots, turn, state).finally(() => {
        slots.turns.delete(running);
        wake();
      });
      slots.turns.add(running);
    }
  }
}

/**
 * Dispatches the outbox fairly. Work is taken in turns per endpoint (db/webhook-events.ts `claimTurns`): the
 * endpoint ready longest gets the next turn, with up to PER_ENDPOINT of its oldest events sent at once, and is
 * leased meanwhile, so one instance at a time works on it. A turn with a failed attempt opens the endpoint's
 * breaker: it waits (doubling) and is then probed with one event, instead of each event retrying on its own;
 * a turn that succeeds closes it. So a hanging or dropping endpoint holds at most PER_ENDPOINT of the SLOTS,
 * and only until its first failure; every other endpoint keeps its turns. A process killed during a turn leaves
 * its leases to lapse and the events are sent again: at least once. Each order's events arrive in order.
 */
export function createWebhookDispatch(options: DispatchOptions) {
  const { db, clock, settings, log } = options;
  const slots = createDispatchState();
  const { claims, turns } = slots;

  const job = createLeasedJob({
    name: "webhook-dispatch",
    intervalMs: settings.pollMs,
    pass: (state) => pass(options, slots, state, () => job.wake()),
    failed: undefined,
    failure: "webhook-dispatch pass failed; the next one will try again",
    log,
    scope: options.scope,
    /** Events claimed and being sent now. */
    underWay: () => ({ webhookAttempts: claims.events.size }),
    /** After `stop`: events and endpoints still claimed (turns cut short) are made ready again now. */
    async release() {
      const now = clock.now().toISOString();
      await releaseEndpoints(db, claims.endpoints, now);
      return { webhookEvents: await releaseEvents(db, claims.events, now) };
    },
    // Stopping waits for the turns under way too (each attempt bounded by the timeout).
    settle: () => Promise.all([...turns]),
  });

  const dispatch = {
    ...job,
    /** Told when attempts gave up and the endpoint was disabled (the bot tells the owner). Must not throw. */
    onDisabled(listener: DisabledListener) {
      slots.disabledListeners.push(listener);
    },
  };
  return dispatch satisfies Job;
}
