import { sql } from "kysely";
import { type Db, isPostgres, withoutStatementBound } from "./database.js";

export interface Role {
  /** Called once this instance holds the lock; the role runs until `resign`. */
  take(): Promise<void>;
  resign(): Promise<void>;
  /** False once the role has stopped working by itself (a poller that died): it is resigned and contended for again. */
  working(): boolean;
}

/** How long a held lock's liveness check may take before the session counts as lost. */
const HEARTBEAT_TIMEOUT_MS = 5_000;

/** `work`, or a rejection once `ms` pass first (lifecycle.ts's `within` instead tells whether it settled in time). */
const failAfter = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);

export interface LeaderLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Runs `role` on one instance at a time among all that share the database. On PostgreSQL the holder keeps a
 * session advisory lock on one pinned connection: when the process dies the connection closes and the lock
 * goes with it, and another instance (retrying every `retryMs`) takes the role within seconds. A single
 * SQLite instance simply takes it. `started` settles after the first round (the role taken, or held
 * elsewhere; on SQLite it rejects when taking failed); `stop` resolves once the role is resigned and released.
 */
export function holdRole(db: Db, name: string, role: Role, log: LeaderLog, retryMs = 2000) {
  let stopped = false;
  let stopNow: () => void = () => {};
  const stopping = new Promise<void>((resolve) => {
    stopNow = resolve;
  });
  /** Waits `ms`, or less when `stop` is called. */
  const pause = (ms: number) => Promise.race([stopping, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);

  let firstRound: (error?: unknown) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    firstRound = (error) => (error === undefined ? resolve() : reject(error));
  });

  async function contend(): Promise<void> {
    if (!isPostgres(db)) {
      try {
        await role.take();
        firstRound();
      } catch (error) {
        firstRound(error);
        return;
      }
      await stopping;
      await role.resign();
      return;
    }
    while (!stopped) {
      try {
        await db.connection().execute(async (connection) => {
          const { rows } = await sql<{ held: boolean }>`select pg_try_advisory_lock(hashtext(${name})) as held`.execute(connection);
          if (!rows[0]?.held) return;
          try {
            if (stopped) return;
            log.info({ role: name }, "this instance took the role");
            await role.take();
            firstRound();
            // The lock lives as long as this session: check it now and then (in bounded time, so a silent
            // network cannot keep a lost lock's holder working), and give the role up when either fails.
            while (!stopped) {
              await pause(retryMs);
              if (!role.working()) throw new Error("the role stopped working");
              await failAfter(HEARTBEAT_TIMEOUT_MS, sql`select 1`.execute(connection));
            }
          } finally {
            try {
              await role.resign();
            } finally {
              await failAfter(HEARTBEAT_TIMEOUT_MS, sql`select pg_advisory_unlock(hashtext(${name}))`.execute(connection)).catch(() => undefined);
            }
          }
        });
      } catch (error) {
        log.warn({ role: name, err: error }, "lost the role or could not contend for it; retrying");
      }
      firstRound();
      if (!stopped) await pause(retryMs);
    }
  }

  const running = contend();
  return {
    started,
    async stop() {
      stopped = true;
      stopNow();
      await running;
    },
  };
}

/**
 * Runs `work` while holding the lock named `key` across every instance on the database, so two holders of
 * one key never run side by side (PostgreSQL: a transaction-scoped advisory lock on one pooled connection).
 * At most `slots` are held at once per process, so the rest of the pool stays free for the work itself.
 * A single SQLite instance needs no lock across processes: `work` runs as it is.
 */
export function keyedLock(db: Db, slots: number) {
  if (!isPostgres(db)) return <T>(_key: string, work: () => Promise<T>) => work();
  let held = 0;
  const queue: Array<() => void> = [];
  const acquire = () => (held < slots ? (held++, Promise.resolve()) : new Promise<void>((resolve) => queue.push(resolve)));
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else held--;
  };
  return async <T>(key: string, work: () => Promise<T>): Promise<T> => {
    await acquire();
    try {
      return await db.transaction().execute(async (trx) => {
        // Waits as long as the holder's work takes, by design: no statement bound (database.ts).
        await withoutStatementBound(() => sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx));
        return work();
      });
    } finally {
      release();
    }
  };
}
