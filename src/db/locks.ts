import { sql } from "kysely";
import { type Db, type Executor, isPostgres } from "./database.js";

/** How long a held lock's liveness check may take before the session counts as lost. */
const HEARTBEAT_TIMEOUT_MS = 5_000;

/** `work`, or a rejection once `ms` pass first (lifecycle.ts's `within` instead tells whether it settled in time). */
const failAfter = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

/** A session lock held on one pinned connection (PostgreSQL). */
export interface SessionLock {
  /** Resolves while the session answers (in bounded time, so a silent network cannot keep a lost lock's holder working). */
  alive(): Promise<void>;
  /** Unlocks (in bounded time) and lets the connection go back to the pool. */
  release(): Promise<void>;
}

/** One pooled connection kept out of the pool until `release`: a session lock lives as long as its session. */
function pinConnection(db: Db): Promise<{ connection: Executor; release(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    let letGo: () => void = () => {};
    const released = new Promise<void>((done) => {
      letGo = done;
    });
    const session = db.connection().execute(async (connection) => {
      resolve({
        connection,
        release: async () => {
          letGo();
          await session;
        },
      });
      await released;
    });
    session.catch(reject);
  });
}

/**
 * The lock named `name` across the instances sharing the database, taken when free (`tryTake` resolves null while
 * another session holds it); null on SQLite, where one instance is the only one and there is nothing to share.
 * On PostgreSQL it is a session advisory lock: when the process dies its connection closes and the lock goes with
 * it, so another instance can take it.
 */
export function sharedLock(db: Db, name: string): { tryTake(): Promise<SessionLock | null> } | null {
  return isPostgres(db) ? { tryTake: () => trySessionLock(db, name) } : null;
}

async function trySessionLock(db: Db, name: string): Promise<SessionLock | null> {
  const pinned = await pinConnection(db);
  let held = false;
  try {
    const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_lock(hashtext(${name})) as held`.execute(pinned.connection);
    held = rows[0]?.held === true;
  } finally {
    if (!held) await pinned.release();
  }
  if (!held) return null;
  return {
    alive: async () => void (await failAfter(HEARTBEAT_TIMEOUT_MS, sql`select 1`.execute(pinned.connection))),
    release: async () => {
      try {
        await failAfter(HEARTBEAT_TIMEOUT_MS, sql`select pg_advisory_unlock(hashtext(${name}))`.execute(pinned.connection)).catch(() => undefined);
      } finally {
        await pinned.release();
      }
    },
  };
}
