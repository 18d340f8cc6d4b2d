import type { Db } from "../../db/database.js";
import { finishPing, insertPing, listAttempts, pendingEvents } from "../../db/webhook-events.js";
import type { WebhookAttempt } from "../model/webhook.js";
import type { Caller } from "../accounts.js";
import { notFound } from "../model/errors.js";
import type { WebhookSender } from "../ports.js";
import type { Clock } from "../model/clock.js";
import type { Vault } from "../vault.js";
import { createEndpoints, type EndpointPolicy } from "./endpoints.js";
import { createOutbox, type EventWriter } from "./outbox.js";
import { attemptRecord, createSending } from "./send.js";

export interface WebhooksOptions {
  db: Db;
  clock: Clock;
  vault: Vault;
  sender: WebhookSender;
  /** One attempt's bound (a ping's, and each dispatch attempt's). */
  timeoutMs: number;
  /** Events an account may have waiting; past it new ones are dropped and counted. */
  pendingMax: number;
  policy: EndpointPolicy;
  /** What each event says on the wire (src/wire/events.ts, handed in at the composition root). */
  events: EventWriter;
}

const NO_ENDPOINT = "No webhook endpoint: set one first (POST /v1/webhook)";

/**
 * Signed webhooks: an account's endpoint, the outbox its events go into, and the signed send an attempt makes.
 * The background dispatch of the outbox is a job (src/jobs/webhook-dispatch.ts).
 */
export function createWebhooks(options: WebhooksOptions) {
  const { db, clock } = options;
  const outbox = createOutbox({ clock, events: options.events, pendingMax: options.pendingMax });
  const endpoints = createEndpoints({ db, clock, vault: options.vault, policy: options.policy });
  const send = createSending({ db, clock, sender: options.sender, timeoutMs: options.timeoutMs, secretsOf: endpoints.secretsOf });

  return {
    outbox,
    /** The signed send of one attempt (the dispatch job makes its attempts with it). */
    send,
    get: endpoints.get,
    set: endpoints.set,
    rotateSecret: endpoints.rotateSecret,
    revokePreviousSecret: endpoints.revokePreviousSecret,
    remove: endpoints.remove,

    /** Events not yet delivered (waiting, or due for a retry). */
    pending: (accountId: number): Promise<number> => pendingEvents(db, accountId),
    /** The most events an account may have waiting. */
    pendingLimit: options.pendingMax,

    /** A `ping` event sent now, once, whether or not the endpoint is enabled; recorded like any attempt, never retried. */
    async ping(accountId: number) {
      if (!(await endpoints.get(accountId))) throw notFound(NO_ENDPOINT);
      const at = clock.now().toISOString();
      const envelope = options.events.envelope(options.events.ping(), at, true);
      const event = await insertPing(db, { eventId: envelope.id, accountId, payload: JSON.stringify(envelope), at });
      const sent = await send(event, 1);
      if (!sent) throw notFound(NO_ENDPOINT);
      const record = attemptRecord(sent.url, sent.result, clock.now().toISOString());
      await finishPing(db, event, record);
      return { eventId: envelope.id, url: sent.url, delivered: record.succeeded, ...sent.result };
    },

    /**
     * A sandbox call's answer as a test event, marked `test`: attempted once, never retried. Null without an
     * endpoint (or when dropped); nothing more is read when the caller's key read found none (Caller.hasEndpoint).
     */
    async testEvent(caller: Caller, answer: object) {
      if (caller.hasEndpoint === false) return null;
      const event = await outbox.record(db, caller.account.id, options.events.sandbox(answer), { test: true });
      if (event) outbox.committed();
      return event?.eventId ?? null;
    },

    /** Delivery attempts, newest first; `before` is the id of the last attempt of the previous page. */
    attempts: (accountId: number, page: { limit: number; before?: number }): Promise<WebhookAttempt[]> => listAttempts(db, accountId, page),
  };
}
