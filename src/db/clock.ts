import { sql } from "kysely";
import type { Clock } from "../core/model/clock.js";
import { type Db, isPostgres } from "./database.js";

/** How often the reading is taken again: the monotonic clock's drift from the database's stays a few ms. */
const CALIBRATE_EVERY_MS = 60_000;
/** Readings per calibration; the one with the shortest round trip is kept (its error bound is the smallest). */
const SAMPLES = 3;
/**
 * A later reading is taken when it is this good, or better than the one in use: a reading slowed by a busy pool
 * (its wait counts in the round trip) must not replace a sharper one.
 */
const GOOD_ENOUGH_MS = 25;
/** A new reading within this much of the running clock is absorbed by holding the clock, never by stepping it back. */
const HOLD_BACK_MAX_MS = 1000;

/** One reading of the database's clock: its time, and this process's monotonic time it stands for, ± errorMs. */
interface Reading {
  dbMs: number;
  monoMs: number;
  errorMs: number;
}

/**
 * Reads the database's clock. PostgreSQL's clock_timestamp() is the server's time as the statement runs; taken
 * at the midpoint of the round trip, it is off by at most half the round trip. SQLite is a file on this machine:
 * its clock is this machine's, read without a round trip.
 */
async function read(db: Db): Promise<Reading> {
  if (!isPostgres(db)) {
    const monoMs = performance.now();
    return { dbMs: Date.now(), monoMs, errorMs: 0 };
  }
  const sent = performance.now();
  const { rows } = await sql<{ ms: number }>`select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms`.execute(db);
  const received = performance.now();
  return { dbMs: Number(rows[0]!.ms), monoMs: (sent + received) / 2, errorMs: (received - sent) / 2 };
}

async function bestOf(db: Db): Promise<Reading> {
  let best: Reading | undefined;
  for (let i = 0; i < SAMPLES; i++) {
    const reading = await read(db);
    if (!best || reading.errorMs < best.errorMs) best = reading;
  }
  return best!;
}

export interface DatabaseClock extends Clock {
  /** How far the last calibration may be off the database's clock (half its round trip), in ms. */
  readonly errorMs: number;
  /** How far this machine's wall clock was from the database's at the last calibration (for the log only). */
  readonly skewMs: number;
  /** Takes a new reading now; keeps the last one when the database cannot be read. */
  calibrate(): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

/**
 * The one clock every instance on a database decides by: the database's. Read once before anything is decided
 * (this resolves only after a first reading), then every CALIBRATE_EVERY_MS; between readings the time is that
 * reading plus the monotonic time elapsed since (performance.now()), so this machine's wall clock is never read
 * for a decision and a step of it changes nothing. The clock never runs back by less than HOLD_BACK_MAX_MS: a
 * smaller correction is absorbed by holding it still (what it already answered stays in the past).
 */
export async function databaseClock(db: Db, onFailure: (error: unknown) => void = () => {}): Promise<DatabaseClock> {
  let reading = await bestOf(db);
  let offsetMs = reading.dbMs - reading.monoMs;
  let skewMs = Date.now() - (offsetMs + performance.now());
  let lastMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let calibrating: Promise<void> | undefined;

  const clock: DatabaseClock = {
    now() {
      const ms = offsetMs + performance.now();
      lastMs = ms < lastMs && lastMs - ms < HOLD_BACK_MAX_MS ? lastMs : ms;
      return new Date(Math.round(lastMs));
    },
    get errorMs() {
      return reading.errorMs;
    },
    get skewMs() {
      return skewMs;
    },
    calibrate() {
      calibrating ??= bestOf(db)
        .then((next) => {
          if (next.errorMs > Math.max(GOOD_ENOUGH_MS, reading.errorMs)) return;
          reading = next;
          offsetMs = next.dbMs - next.monoMs;
          skewMs = Date.now() - (offsetMs + performance.now());
        }, onFailure)
        .finally(() => (calibrating = undefined));
      return calibrating;
    },
    start() {
      timer ??= setInterval(() => void clock.calibrate(), CALIBRATE_EVERY_MS).unref();
    },
    async close() {
      clearInterval(timer);
      timer = undefined;
      await calibrating;
    },
  };
  return clock;
}
