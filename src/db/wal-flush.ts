import { closeSync, fdatasync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";

// Group commit for SQLite. Commits run with `synchronous = NORMAL`: SQLite writes them to the WAL without waiting for
// the disk, so a power cut or an operating system crash could lose the last ones (a crash of this process cannot:
// the system holds them). A writer that needs its commit on disk then awaits `durable()`: one fdatasync of the WAL,
// on libuv's threads, covers every commit made before it began, so the writers of the same moment share one, and the
// event loop never waits for the disk (with `synchronous = FULL`, every commit held it for a whole disk flush).

/** One flush to disk: how long it took, and how many writers it made durable. */
export interface DiskFlush {
  seconds: number;
  writes: number;
}

export interface GroupCommit {
  /** Resolves once everything written before the call is on disk; rejects when the disk refuses (EIO). */
  durable(): Promise<void>;
  /** Resolves when no flush is under way or waiting. */
  settled(): Promise<void>;
}

/** Flushes by `sync`, one at a time: a writer that comes while one is under way waits for the next, shared by all who came. */
export function groupCommit(sync: () => Promise<void>, observe?: (flush: DiskFlush) => void): GroupCommit {
  let running: Promise<void> | null = null;
  let next: { promise: Promise<void>; writes: number } | null = null;
  const start = (writes: number): Promise<void> => {
    const began = performance.now();
    const flush: Promise<void> = sync().finally(() => {
      if (running === flush) running = null;
    });
    running = flush;
    if (observe)
      flush.then(
        () => observe({ seconds: (performance.now() - began) / 1000, writes }),
        () => {},
      );
    return flush;
  };
  return {
    durable() {
      if (!running) return start(1);
      // The flush under way may have begun before the caller's write: the caller needs the one after it.
      if (!next) {
        const queued: { promise: Promise<void>; writes: number } = { promise: Promise.resolve(), writes: 0 };
        queued.promise = running
          .catch(() => {})
          .then(() => {
            next = null;
            return start(queued.writes);
          });
        next = queued;
      }
      next.writes++;
      return next.promise;
    },
    async settled() {
      await Promise.allSettled([running, next?.promise]);
    },
  };
}

/** Puts a folder's entries on disk: a file made or linked in it survives a power cut under its name. */
export function syncDirectory(path: string): void {
  const directory = openSync(path, "r");
  try {
    fsyncSync(directory);
  } finally {
    closeSync(directory);
  }
}

/**
 * The group commit of the SQLite database at `path`, whose WAL file exists (a connection in WAL mode has read it),
 * and its closing. The directory is synced once here, so the file itself survives a power cut; SQLite deletes the
 * WAL only when its last connection closes, and the caller holds one while it uses this, so the file flushed stays
 * the one SQLite writes.
 */
export function walFlusher(path: string, observe?: (flush: DiskFlush) => void) {
  syncDirectory(dirname(path));
  const wal = openSync(`${path}-wal`, "r");
  const flusher = groupCommit(() => new Promise((resolve, reject) => fdatasync(wal, (error) => (error ? reject(error) : resolve()))), observe);
  return {
    ...flusher,
    async close() {
      await flusher.settled();
      closeSync(wal);
    },
  };
}

export type WalFlusher = ReturnType<typeof walFlusher>;
