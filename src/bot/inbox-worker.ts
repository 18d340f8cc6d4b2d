import { randomUUID } from "node:crypto";
import type { InboxUpdate } from "../core/model/inbox.js";

/** The bot's durable inbox, as the worker uses it (the composition root hands in the database's). */
export interface InboxPort {
  anyFree(): Promise<boolean>;
  claim(owner: string, limit: number, leaseMs: number): Promise<InboxUpdate[]>;
  renew(owner: string, updateIds: number[], leaseMs: number): Promise<void>;
  done(updateId: number): Promise<void>;
}

export interface InboxWorkerOptions {
  inbox: InboxPort;
  /** Runs one update to its end (its errors are the bot's to log). */
  handle(update: InboxUpdate): Promise<void>;
  /** How long a claim holds an update; renewed while it runs, so only a stopped instance's lapse. */
  leaseMs: number;
  /** How often an idle worker looks for updates it was not woken for (another instance's, or a lapsed lease). */
  scanMs: number;
  /** Updates handled at once (each of another chat). */
  maxInFlight: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/**
 * Handles the inbox's updates on this instance: claims the free head of each chat (so a chat's updates run one at
 * a time and in order, across every instance), runs it, and marks it done, which frees the chat's next one. An
 * update whose reply went out in an earlier attempt is marked done without running again. Woken at once when this
 * instance stores updates; otherwise it looks now and then.
 */
export function createInboxWorker(options: InboxWorkerOptions) {
  const { inbox, leaseMs, log } = options;
  const owner = randomUUID();
  const inFlight = new Set<number>();
  let running = false;
  let pumping = false;
  let again = false;
  let timers: NodeJS.Timeout[] = [];

  async function pump(scan = false): Promise<void> {
    if (!running) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const room = options.maxInFlight - inFlight.size;
        if (room <= 0) break;
        // A scan reads first: an idle instance takes no write lock (SQLite) to find nothing.
        if (scan && !(await inbox.anyFree())) break;
        scan = false;
        const claimed = await inbox.claim(owner, room, leaseMs);
        for (const update of claimed) run(update);
        if (claimed.length === room) again = true;
      } while (again && running);
    } catch (error) {
      log.warn({ err: error }, "could not claim bot updates; trying again shortly");
    } finally {
      pumping = false;
    }
  }

  function run(update: InboxUpdate) {
    inFlight.add(update.updateId);
    void (async () => {
      try {
        if (update.replied) log.info({ update: update.updateId, attempt: update.attempt }, "bot update not run again: its reply had gone out");
        else await options.handle(update);
        await inbox.done(update.updateId);
      } catch (error) {
        // Left leased: after the lease another instance takes it, and skips it if its reply was recorded.
        log.warn({ err: error, update: update.updateId }, "could not finish a bot update; it is taken again after its lease");
      } finally {
        inFlight.delete(update.updateId);
        void pump();
      }
    })();
  }

  return {
    start() {
      if (running) return;
      running = true;
      timers = [
        setInterval(() => void pump(true), options.scanMs),
        // Leases of long updates (a purchase slow at the provider) are kept, so nobody else takes them meanwhile.
        setInterval(
          () => {
            inbox.renew(owner, [...inFlight], leaseMs).catch((error: unknown) => log.warn({ err: error }, "could not renew bot update leases"));
          },
          Math.max(100, Math.floor(leaseMs / 3)),
        ),
      ];
      for (const timer of timers) timer.unref();
      void pump(true);
    },
    /** Looks for free updates now (this instance stored some, or finished one). */
    wake: () => void pump(),
    /** Updates being handled here now. */
    underWay: () => inFlight.size,
    /**
     * Claims nothing more and resolves once the updates under way are done. Those not started stay free in the
     * inbox for another instance (or this one's restart); the leases of updates still running keep being renewed.
     */
    async stop() {
      running = false;
      clearInterval(timers[0]);
      while (inFlight.size > 0 || pumping) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    /** Stops renewing: what is still leased here lapses to another instance. */
    close() {
      running = false;
      for (const timer of timers) clearInterval(timer);
    },
  };
}
