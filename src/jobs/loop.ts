import { type BackgroundScope, unnamed } from "../core/ports.js";

export interface JobLog {
  warn(obj: object, msg: string): void;
}

/**
 * What every job shows the composition root (the shape of a lifecycle resource): it starts, stops (resolving
 * once its work under way is done), says what it has under way, and hands its leases back after the stop.
 */
export interface Job {
  name: string;
  /** Starts its loop; a job whose first run the service should not start without resolves once it is done. */
  start(): void | Promise<void>;
  stop(): Promise<void>;
  /** Work under way holding leases, by kind (e.g. `reconcilerChecks`); {} for a job that holds none. */
  underWay(): Record<string, number>;
  /** After `stop`: leases still held (work cut short) made due again now; their ids by kind. */
  handBack(): Promise<Record<string, number[]>>;
}

export interface LoopOptions<T> {
  /** The job's name: each run is scoped as `<name>-<n>` (the log's id for it and for the provider calls it makes). */
  name: string;
  /** A run starts every `intervalMs` while started (and at once on `start`). */
  intervalMs: number;
  /** One run. Its result is what `runOnce` resolves to. */
  run: () => Promise<T>;
  /** What a failed run resolves to (it is logged, and the next interval tries again). */
  failed: T;
  /** The warning a failed run is logged with. */
  failure: string;
  log: JobLog;
  scope?: BackgroundScope;
}

/**
 * The one background loop: a named job run every interval, one run at a time (a run asked for during one joins
 * it; a `wake` during one runs again right after it), on unref'd timers so a loop never keeps the process alive.
 * A failed run is logged and the next interval tries again: it runs in the background, where a rejection would
 * end the process. `stop` clears the timer and waits for the run under way.
 */
export function createLoop<T>(options: LoopOptions<T>) {
  const scope = options.scope ?? unnamed;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<T> | undefined;
  let again = false;
  let stopped = true;
  let runs = 0;
  // Runs are one at a time, so the one ending is the last begun: `done` counts the completed ones.
  let done = 0;
  const waiting = new Set<{ at: number; resolve: () => void }>();

  function runOnce(): Promise<T> {
    running ??= scope(`${options.name}-${++runs}`, () =>
      options.run().catch((error: unknown) => {
        options.log.warn({ job: options.name, err: error }, options.failure);
        return options.failed;
      }),
    ).finally(() => {
      done = runs;
      for (const waiter of waiting) {
        if (done < waiter.at) continue;
        waiting.delete(waiter);
        waiter.resolve();
      }
      running = undefined;
      if (again) {
        again = false;
        if (!stopped) void runOnce();
      }
    });
    return running;
  }

  return {
    name: options.name,
    runOnce,
    /** Runs completed so far. */
    passes: () => done,
    /**
     * Resolves once `n` runs begun after this call have completed (a run under way now does not count), so a test
     * sees "nothing happens" over whole passes instead of sleeping. While stopped it waits for the next start.
     */
    afterPasses(n: number): Promise<void> {
      const at = runs + n;
      return new Promise((resolve) => waiting.add({ at, resolve }));
    },
    /** Runs now, or right after the run under way (new work arrived meanwhile); nothing while stopped. */
    wake() {
      if (stopped) return;
      if (running) again = true;
      else void runOnce();
    },
    /** True between `start` and `stop`. */
    get started() {
      return !stopped;
    },
    start() {
      stopped = false;
      timer ??= setInterval(() => void runOnce(), options.intervalMs);
      timer.unref();
      void runOnce();
    },
    /** Clears the timer and waits for the run under way. */
    async stop() {
      stopped = true;
      again = false;
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

/** What a leased job's pass reads: set by `stop` (claim no more) and by `handBack` (record nothing more). */
export interface LeaseState {
  /** Set by `stop`: the pass under way claims no more. */
  stopping: boolean;
  /** Set by `handBack`: work cut short records nothing more (its rows are already due again). */
  handedBack: boolean;
}

/** A job that is only a loop: it leases no rows, so it has nothing under way to hand back. */
export function createTimedJob<T>(options: LoopOptions<T>) {
  const loop = createLoop(options);
  return {
    name: options.name,
    /** Runs now (or joins the run under way). */
    runOnce: loop.runOnce,
    passes: loop.passes,
    afterPasses: loop.afterPasses,
    start: loop.start,
    stop: loop.stop,
    underWay: () => ({}),
    handBack: async () => ({}),
  } satisfies Job & { runOnce: unknown; passes: unknown; afterPasses: unknown };
}

export interface LeasedJobOptions<T> extends Omit<LoopOptions<T>, "run"> {
  /** One pass: claims rows (db/leases.ts `claim`) while `state.stopping` is false, and works on them. */
  pass: (state: LeaseState) => Promise<T>;
  /** The rows held now (claimed, being worked on), by kind. */
  underWay: () => Record<string, number>;
  /** Makes the rows still held due again now (guarded by the lease written); their ids by kind. */
  release: () => Promise<Record<string, number[]>>;
  /** Waited for by `stop` once the loop has stopped: work a pass left running on its own (webhook turns). */
  settle?: () => Promise<unknown>;
}

/**
 * The leased job, written once (the reconciler, the top-up poll, the webhook dispatch): a loop whose passes claim
 * rows of a shared table, so of several instances each row is worked on by the one that claimed it. `stop` stops
 * claiming and waits for the pass (and what it left running); `handBack`, after it, makes what is still held due
 * again at once instead of when its lease lapses.
 */
export function createLeasedJob<T>(options: LeasedJobOptions<T>) {
  const state: LeaseState = { stopping: false, handedBack: false };
  const { pass, underWay, release, settle, ...loopOptions } = options;
  const loop = createLoop({ ...loopOptions, run: () => pass(state) });

  const job = {
    name: options.name,
    /** Runs one pass now (or joins the one under way). */
    runOnce: loop.runOnce,
    passes: loop.passes,
    afterPasses: loop.afterPasses,
    /** Runs now, or right after the pass under way; nothing while stopped. */
    wake: loop.wake,
    start() {
      state.stopping = false;
      state.handedBack = false;
      loop.start();
    },
    /** Stops claiming (the pass under way ends after the rows it holds) and waits for that work. */
    async stop() {
      state.stopping = true;
      await loop.stop();
      await settle?.();
    },
    underWay,
    async handBack() {
      state.handedBack = true;
      return release();
    },
  };
  return job satisfies Job;
}
