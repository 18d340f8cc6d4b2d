import type { Db } from "../db/database.js";
import { type SessionLock, sharedLock } from "../db/locks.js";
import { createLoop } from "./loop.js";

export interface Role {
  /** Called once this instance holds the lock; the role runs until `resign`. */
  take(): Promise<void>;
  resign(): Promise<void>;
  /** False once the role has stopped working by itself (a poller that died): it is resigned and contended for again. */
  working(): boolean;
}

export interface RoleLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** A single instance (SQLite) takes the role at once, and resigns it at the stop if taking it succeeded. */
function holdAlone(role: Role) {
  const taken = role.take();
  return {
    started: taken,
    async stop() {
      if (
        await taken.then(
          () => true,
          () => false,
        )
      )
        await role.resign();
    },
  };
}

/**
 * Runs `role` on one instance at a time among all that share the database. On PostgreSQL the holder keeps a
 * session advisory lock (db/locks.ts): when the process dies the lock goes with its connection, and another
 * instance takes the role within seconds. Each round of the loop (every `retryMs`) either contends for the lock,
 * or, while holding it, checks that the role still works and the session still answers, and gives both up when
 * either fails. A single SQLite instance simply takes the role. `started` settles after the first round (the role
 * taken, or held elsewhere; on SQLite it rejects when taking failed); `stop` resolves once the role is resigned
 * and released.
 */
export function holdRole(db: Db, name: string, role: Role, log: RoleLog, retryMs = 2000) {
  const shared = sharedLock(db, name);
  if (!shared) return holdAlone(role);

  const contended = shared;
  let lock: SessionLock | null = null;
  async function resign(): Promise<void> {
    const held = lock;
    lock = null;
    if (!held) return;
    try {
      await role.resign();
    } finally {
      await held.release();
    }
  }

  async function round(): Promise<void> {
    if (lock) {
      try {
        if (!role.working()) throw new Error("the role stopped working");
        await lock.alive();
      } catch (error) {
        await resign();
        throw error;
      }
      return;
    }
    const taken = await contended.tryTake();
    if (!taken) return;
    if (!loop.started) return taken.release();
    lock = taken;
    log.info({ role: name }, "this instance took the role");
    try {
      await role.take();
    } catch (error) {
      await resign();
      throw error;
    }
  }

  const loop = createLoop({
    name,
    intervalMs: retryMs,
    run: round,
    failed: undefined,
    failure: "lost the role or could not contend for it; retrying",
    log,
  });
  loop.start();
  return {
    started: loop.runOnce(),
    async stop() {
      await loop.stop();
      await resign();
    },
  };
}
