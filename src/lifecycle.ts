/**
 * The service's resources as steps, in the order they were added: started in that order, stopped in reverse. Each
 * says how it starts, how it stops taking work, what it has under way, what it hands back when its work was cut,
 * and how it lets go of what it holds.
 */
export interface Resource {
  name: string;
  /** Starts its work (a job's loop, a listener, the bot); a resource without one works from when it is built. */
  start?(): unknown;
  /** Stops taking new work; resolves once the work under way has finished. */
  stop?(): Promise<unknown>;
  /** Work under way now, by kind (requests, bot updates, provider calls, …). */
  underWay?(): Record<string, number>;
  /** After the stop: leases held for work cut short, made due again for another instance; their ids by kind. */
  handBack?(): Promise<Record<string, number[]>>;
  /** Past the bound: aborts outgoing calls, so the work waiting on them ends. */
  abort?(): Promise<unknown>;
  /** Lets go of connections, pools and listeners. */
  close?(): Promise<unknown>;
}

export interface StopReport {
  /** True when everything under way finished within the bound. */
  finished: boolean;
  ms: number;
  /** Under way when the stop began. */
  underWay: Record<string, number>;
  /** Still under way at the bound, and cut (null when everything finished). */
  cut: Record<string, number> | null;
  /** Made due again now for another instance. */
  released: Record<string, number[]>;
}

export interface StopLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A step that threw while the service started; what had started was stopped (its report). */
export class StartFailed extends Error {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
    readonly report: StopReport,
  ) {
    super(`could not start ${step}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/** Resolves true once `work` settles, or false after `ms`, whichever comes first. */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const settled = work.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Each resource's leases handed back in turn, their ids by kind; one that fails is logged, its leases left to lapse. */
async function handBack(resources: Resource[], log: StopLog): Promise<Record<string, number[]>> {
  const released: Record<string, number[]> = {};
  for (const resource of resources) {
    const handed: Record<string, number[]> = await (resource.handBack?.() ?? Promise.resolve({})).catch((error: unknown) => {
      log.error({ resource: resource.name, err: error }, "could not hand back leases; they lapse by themselves");
      return {};
    });
    for (const [kind, ids] of Object.entries(handed)) released[kind] = [...(released[kind] ?? []), ...ids].sort((a, b) => a - b);
  }
  return released;
}

/** Each resource closed in turn, given 2 s; one that takes longer is logged and left behind. */
async function closeAll(resources: Resource[], log: StopLog): Promise<void> {
  for (const resource of resources) {
    const closed = await within(2_000, resource.close?.() ?? Promise.resolve());
    if (!closed) log.error({ resource: resource.name }, "did not close within 2 s; left behind");
  }
}

/**
 * The service's steps: added in order, started once in that order, stopped once in reverse (later calls share the
 * first). A step that throws while starting stops the steps begun so far (itself included), in reverse.
 */
export function createLifecycle(log: StopLog) {
  const resources: Resource[] = [];
  /** Steps whose start was called (a step that threw half-way included): only these are stopped. */
  const begun = new Set<Resource>();
  let starting: Promise<void> | undefined;
  let stopping: Promise<StopReport> | undefined;

  /** Whether the resource has work to stop: it was started, or it works from when it was built. */
  const working = (resource: Resource) => !resource.start || begun.has(resource);
  const reversed = () => [...resources].reverse();
  const running = () => reversed().filter(working);
  const underWay = () => Object.assign({}, ...resources.filter(working).map((resource) => resource.underWay?.() ?? {})) as Record<string, number>;

  async function start(graceMs: number): Promise<void> {
    for (const resource of resources) {
      if (!resource.start || begun.has(resource)) continue;
      if (stopping) return;
      begun.add(resource);
      try {
        await resource.start();
      } catch (error) {
        log.error({ step: resource.name, err: error }, `could not start ${resource.name}: stopping the steps started, in reverse`);
        throw new StartFailed(resource.name, error, await (stopping ??= stop(graceMs, undefined)));
      }
    }
  }

  async function stop(graceMs: number, signal?: string): Promise<StopReport> {
    // A duration: the monotonic clock, which no step of the wall clock moves.
    const started = performance.now();
    const atStart = underWay();
    log.info({ signal, graceMs, underWay: atStart }, "stopping: no new requests or updates; finishing those under way");
    // 1. Every resource stops taking work at once, the last built first (the listener before the loops); 2. what
    // is under way finishes within the bound.
    const stops = running().map((resource) => resource.stop?.() ?? Promise.resolve());
    const finished = await within(graceMs, Promise.all(stops));
    const cut = finished ? null : underWay();
    // 3. Leases still held (work cut short) are handed back: due again now, for another instance. A webhook
    // attempt cut here may still land beside the next one: at least once, the receiver deduplicates on the id.
    const released = await handBack(running(), log);
    // 4. Past the bound, outgoing calls are aborted first (their requests then answer, the order as still
    // processing); then everything lets go, the database last.
    if (!finished) {
      for (const resource of running()) await resource.abort?.().catch(() => undefined);
      await within(1_000, Promise.all(stops));
    }
    await closeAll(reversed(), log);
    const report: StopReport = { finished, ms: Math.round(performance.now() - started), underWay: atStart, cut, released };
    if (finished) log.info(report, "stopped: everything under way finished");
    else log.error(report, `stopped past the ${graceMs} ms bound: work under way was cut (see cut); its leases were handed back`);
    return report;
  }

  return {
    add<R extends Resource>(resource: R): R {
      resources.push(resource);
      return resource;
    },
    underWay,
    /**
     * Starts the steps in order. When one throws, the steps begun are stopped in reverse (the graceful stop,
     * within `graceMs`) and it rejects with StartFailed. A second call answers the first one's start.
     */
    start: (graceMs: number) => (starting ??= start(graceMs)),
    /** The graceful stop; a second call answers the first one's report. */
    stop: (graceMs: number, signal?: string) => (stopping ??= stop(graceMs, signal)),
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
