import { type Health, type HealthBoard, PROBE_ROUND_MS } from "../core/health.js";
import type { BackgroundScope } from "../core/ports.js";
import type { Clock } from "../core/model/clock.js";
import type { Db } from "../db/database.js";
import { claimProbe, databaseAnswers, lastProbe, storeProbe } from "../db/health.js";
import { createLoop, type Job, type JobLog } from "./loop.js";

export interface HealthProbeOptions {
  db: Db;
  clock: Clock;
  health: HealthBoard;
  /** How often a round of probes runs, for every instance together. */
  intervalMs: number;
  log: JobLog;
  scope?: BackgroundScope;
}

/**
 * One round: the last round read from the database; a stale one claimed (by one instance) and probed anew, else
 * the one read published.
 */
async function probeRound({ db, clock, health, intervalMs }: HealthProbeOptions): Promise<void> {
  const now = clock.now();
  let last: { result: string | null; probedAt: string };
  try {
    last = await lastProbe(db);
  } catch {
    health.publish(health.unreachable(), now);
    return;
  }
  const staleBefore = new Date(now.getTime() - intervalMs).toISOString();
  if (last.probedAt < staleBefore) {
    const until = new Date(now.getTime() + intervalMs + PROBE_ROUND_MS).toISOString();
    if (await claimProbe(db, { now: now.toISOString(), staleBefore, until })) {
      const round = await health.probe();
      const probedAt = clock.now();
      await storeProbe(db, { result: JSON.stringify(round), probedAt: probedAt.toISOString() });
      health.publish(round, probedAt);
      return;
    }
  }
  // Another instance's round (being made now, or fresh): this instance read the database, so it is ready.
  if (last.result) health.publish({ ...(JSON.parse(last.result) as Health), databaseReady: true }, new Date(last.probedAt));
}

/**
 * This instance's own check of the database, on a loop of its own. The database is checked twice per interval,
 * each check bounded by half of it: one that stops answering is reported not ready within one interval (250 ms
 * at the least, so a busy machine does not flap).
 */
function databaseCheckLoop(options: HealthProbeOptions) {
  const { db, clock, health, intervalMs } = options;
  const checkMs = Math.max(250, Math.floor(intervalMs / 2));
  let outstanding: Promise<boolean> | null = null;
  async function checkDatabase(): Promise<void> {
    // A check still unanswered is not joined by another statement (each would hold a connection until its bound).
    outstanding ??= databaseAnswers(db).finally(() => {
      outstanding = null;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), checkMs);
    });
    const ready = await Promise.race([outstanding, late]).finally(() => clearTimeout(timer));
    health.databaseChecked(ready, clock.now());
  }
  return createLoop({
    name: "health-probe-database",
    intervalMs: checkMs,
    run: checkDatabase,
    failed: undefined,
    failure: "health-probe database check failed; the next one will try again",
    log: options.log,
    scope: options.scope,
  });
}

/**
 * Probes on its own schedule, shared by every instance: each interval, an instance reads the last round from
 * the database; the one that claims a stale round (db/leases.ts's claim) probes the providers and stores it.
 * Whatever it read or made is published to the health board that GET /v1/health answers from. A database that
 * cannot be read is published as not ready.
 */
export function createHealthProbe(options: HealthProbeOptions) {
  const databaseLoop = databaseCheckLoop(options);
  const loop = createLoop({
    name: "health-probe",
    intervalMs: options.intervalMs,
    run: () => probeRound(options),
    failed: undefined,
    failure: "health-probe round failed; the next one will try again",
    log: options.log,
    scope: options.scope,
  });

  const job = {
    name: "health-probe",
    runOnce: loop.runOnce,
    /** Rounds (not database checks) completed, for a test that waits whole rounds. */
    passes: loop.passes,
    afterPasses: loop.afterPasses,
    /** Checks the database now (the round's own schedule aside). */
    checkDatabase: databaseLoop.runOnce,
    /** Resolves once the first round and the first database check are done: GET /v1/health answers from them. */
    async start() {
      loop.start();
      databaseLoop.start();
      await Promise.all([loop.runOnce(), databaseLoop.runOnce()]);
    },
    async stop() {
      await Promise.all([loop.stop(), databaseLoop.stop()]);
    },
    underWay: () => ({}),
    handBack: async () => ({}),
  };
  return job satisfies Job;
}
