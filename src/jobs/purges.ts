import type { BackgroundScope } from "../core/ports.js";
import type { Clock } from "../core/model/clock.js";
import type { Db } from "../db/database.js";
import { purgeQuotes } from "../db/quotes.js";
import { purgeRequestCounts } from "../db/request-counts.js";
import { purgeContacts } from "../db/telegram-contacts.js";
import { purgeEvents } from "../db/webhook-events.js";
import { createLoop, type Job, type JobLog } from "./loop.js";

export interface PurgesOptions {
  db: Db;
  clock: Clock;
  /** Where shared request counts live (PostgreSQL), or none (SQLite counts in memory). */
  requestCounts?: { db: Db; windowMs: number };
  /** Delivered and given-up webhook events, with their attempts, are kept this long. */
  webhookRetentionMs: number;
  /** The bot's contacts not seen this long are deleted (CONTACTS_RETENTION_DAYS). */
  contactsRetentionMs: number;
  /** The bot's conversation state, when there is a bot: flows untouched this long are abandoned. */
  botSessions?: { purgeOlderThan(ms: number): Promise<number> };
  /** The bot's inbox, when there is a bot: handled updates are kept a while (Telegram may send one again), then go. */
  botInbox?: { purgeDone(ms: number): Promise<number> };
  log: JobLog;
  scope?: BackgroundScope;
}

/** Unused quotes stay this long past their expiry (so a late purchase hears `quote_expired`), then go. */
const KEEP_EXPIRED_QUOTES_MS = 60 * 60 * 1000;
/** Webhook events deleted at most per run. */
const WEBHOOK_PURGE_MAX = 5_000;
const ABANDONED_FLOW_MS = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
/** Telegram keeps an update it was not told was taken for 24 hours: a handled one is remembered twice that. */
const KEEP_HANDLED_UPDATES_MS = 48 * HOUR;

interface Purge {
  /** The purge's name: its runs are scoped `purges-<name>-<n>`. */
  name: string;
  everyMs: number;
  /** Deletes what is past keeping; resolves to how many rows (or events) went. */
  run: () => Promise<number>;
  failure: string;
}

/**
 * "Purge now and then", written once: each table that only grows (expired quotes, request counts of windows
 * gone, old webhook events, abandoned bot flows, handled bot updates, contacts not seen lately) is trimmed on a loop of its own. Every
 * instance purges; the deletes are idempotent, so instances sharing a database only repeat each other's work.
 */
export function createPurges(options: PurgesOptions) {
  const purges = purgesOf(options);
  const loops = new Map(
    purges.map((purge) => [
      purge.name,
      createLoop({
        name: `purges-${purge.name}`,
        intervalMs: purge.everyMs,
        run: purge.run,
        failed: 0,
        failure: purge.failure,
        log: options.log,
        scope: options.scope,
      }),
    ]),
  );
  const runNow = (name: string) => loops.get(name)?.runOnce() ?? Promise.resolve(0);

  const job = {
    name: "purges",
    /** Each purge now (or joins the run under way): how many rows went; a failed run is logged and counts 0. */
    quotes: () => runNow("quotes"),
    webhookEvents: () => runNow("webhook-events"),
    requestCounts: () => runNow("request-counts"),
    botSessions: () => runNow("bot-sessions"),
    contacts: () => runNow("contacts"),
    start() {
      for (const loop of loops.values()) loop.start();
    },
    /** Clears the timers and waits for the purges under way. */
    async stop() {
      await Promise.all([...loops.values()].map((loop) => loop.stop()));
    },
    /** A purge holds no lease. */
    underWay: () => ({}),
    handBack: async () => ({}),
  };
  return job satisfies Job;
}

/** The purges this service has: quotes and webhook events always, request counts and the bot's tables when there are. */
function purgesOf(options: PurgesOptions): Purge[] {
  const { db, clock } = options;
  const now = () => clock.now().getTime();
  const requestCounts = options.requestCounts;
  const botSessions = options.botSessions;

  const quotes: Purge = {
    name: "quotes",
    everyMs: 10 * 60 * 1000,
    run: () => purgeQuotes(db, new Date(now() - KEEP_EXPIRED_QUOTES_MS).toISOString()),
    failure: "could not purge expired quotes",
  };
  const webhookEvents: Purge = {
    name: "webhook-events",
    everyMs: HOUR,
    run: () => purgeEvents(db, { before: new Date(now() - options.webhookRetentionMs).toISOString(), max: WEBHOOK_PURGE_MAX }),
    failure: "could not delete old webhook events",
  };
  // Every instance, with a Telegram backend or not: contacts noted under an earlier configuration still age out.
  const contacts: Purge = {
    name: "contacts",
    everyMs: HOUR,
    run: () => purgeContacts(db, new Date(now() - options.contactsRetentionMs).toISOString()),
    failure: "could not purge old Telegram contacts",
  };
  const purges: Purge[] = [quotes, webhookEvents, contacts];
  if (requestCounts) {
    // Counts of windows that have ended: every window, the ones before the current one.
    purges.push({
      name: "request-counts",
      everyMs: requestCounts.windowMs,
      run: () => purgeRequestCounts(requestCounts.db, Math.floor(now() / requestCounts.windowMs) * requestCounts.windowMs),
      failure: "could not purge old request counts",
    });
  }
  const botInbox = options.botInbox;
  if (botInbox) {
    purges.push({
      name: "bot-inbox",
      everyMs: HOUR,
      run: () => botInbox.purgeDone(KEEP_HANDLED_UPDATES_MS),
      failure: "could not purge handled bot updates",
    });
  }
  if (botSessions) {
    purges.push({
      name: "bot-sessions",
      everyMs: HOUR,
      run: () => botSessions.purgeOlderThan(ABANDONED_FLOW_MS),
      failure: "could not purge abandoned flows",
    });
  }
  return purges;
}
