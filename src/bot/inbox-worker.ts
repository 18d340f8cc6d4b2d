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

/** What the worker keeps on this instance: its claims' owner, the updates running here, and whether it pumps. */
function createWorkerState() {
  return {
    owner: randomUUID(),
    inFlight: new Set<number>(),
    running: false,
    pumping: false,
    /** Asked for again while a pump was under way: it goes round once more. */
    again: false,
    timers: [] as NodeJS.Timeout[],
  };
}

type WorkerState = ReturnType<typeof createWorkerState>;

/** Claims free updates into the room left and runs each; one pump at a time, a wake during it makes it go again. */
async function pump(options: InboxWorkerOptions, worker: WorkerState, scan = false): Promise<void> {
  const { inbox, leaseMs, log } = options;
  if (!worker.running) return;
  if (worker.pumping) {
    worker.again = true;
    return;
  }
  worker.pumping = true;
  try {
    do {
      worker.again = false;
      const room = options.maxInFlight - worker.inFlight.size;
      if (room <= 0) break;
      // A scan reads first: an idle instance takes no write lock (SQLite) to find nothing.
      if (scan && !(await inbox.anyFree())) break;
      scan = false;
      const claimed = await inbox.claim(worker.owner, room, leaseMs);
      for (const update of claimed) run(options, worker, update);
      if (claimed.length === room) worker.again = true;
    } while (worker.again && worker.running);
  } catch (error) {
    log.warn({ err: error }, "could not claim bot updates; trying again shortly");
  } finally {
    worker.pumping = false;
  }
}

/** Runs a claimed update on its own and marks it done; its end frees room for the next pump. */
function run(options: InboxWorkerOptions, worker: WorkerState, update: InboxUpdate) {
  const { inbox, log } = options;
  worker.inFlight.add(update.updateId);
  void (async () => {
    try {
      if (update.replied) log.info({ update: update.updateId, attempt: update.attempt }, "bot update not run again: its reply had gone out");
      else await options.handle(update);
      await inbox.done(update.updateId);
    } catch (error) {
      // Left leased: after the lease another instance takes it, and skips it if its reply was recorded.
      log.warn({ err: error, update: update.updateId }, "could not finish a bot update; it is taken again after its lease");
    } finally {
      worker.inFlight.delete(update.updateId);
      void pump(options, worker);
    }
  })();
}

/**
 * Handles the inbox's updates on this instance: claims the free head of each chat (so a chat's updates run one at
 * a time and in order, across every instance), runs it, and marks it done, which frees the chat's next one. An
 * update whose reply went out in an earlier attempt is marked done without running again. Woken at once when this
 * instance stores updates; otherwise it looks now and then.
 */
export function createInboxWorker(options: InboxWorkerOptions) {
  const { inbox, leaseMs, log } = options;
  const worker = createWorkerState();
  const { owner, inFlight } = worker;

  return {
    start() {
      if (worker.running) return;
      worker.running = true;
      worker.timers = [
        setInterval(() => void pump(options, worker, true), options.scanMs),
        // Leases of long updates (a purchase slow at the provider) are kept, so nobody else takes them meanwhile.
        setInterval(
          () => {
            inbox.renew(owner, [...inFlight], leaseMs).catch((error: unknown) => log.warn({ err: error }, "could not renew bot update leases"));
          },
          Math.max(100, Math.floor(leaseMs / 3)),
        ),
      ];
      for (const timer of worker.timers) timer.unref();
      void pump(options, worker, true);
    },
    /** Looks for free updates now (this instance stored some, or finished one). */
    wake: () => void pump(options, worker),
    /** Updates being handled here now. */
    underWay: () => inFlight.size,
    /**
     * Claims nothing more and resolves once the updates under way are done. Those not started stay free in the
     * inbox for another instance (or this one's restart); the leases of updates still running keep being renewed.
     */
    async stop() {
      worker.running = false;
      clearInterval(worker.timers[0]);
      while (inFlight.size > 0 || worker.pumping) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    /** Stops renewing: what is still leased here lapses to another instance. */
    close() {
      worker.running = false;
      for (const timer of worker.timers) clearInterval(timer);
    },
  };
}
