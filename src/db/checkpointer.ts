import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on the connection that committed:
// it copies the WAL's pages into the database and waits for two disk flushes, holding the event loop for
// milliseconds (3.4 ms on average under a purchase load here, 28 ms at worst, once every ~80 purchases). Instead a
// worker thread checkpoints with a connection of its own, often and PASSIVE (it never waits for, nor blocks, a
// reader or a writer), and the next write after a checkpoint that copied everything starts the WAL afresh. The main
// connection keeps a threshold ten times SQLite's default: should the worker fail, or fall behind under a sustained
// load (the WAL then holds up to 10,000 pages, 40 MB), the main connection copies the rest itself, in a commit.

/** How often the worker checkpoints what the WAL holds. */
const INTERVAL_MS = 100;
/** The main connection's own threshold in pages (SQLite's default is 1,000). */
export const FALLBACK_CHECKPOINT_PAGES = 10_000;

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
let db;
try {
  db = new (require(workerData.driver))(workerData.path, { fileMustExist: true });
} catch (error) {
  parentPort.postMessage(error.message);
}
const checkpoint = db && db.prepare("pragma wal_checkpoint(PASSIVE)");
let failed = false;
const timer = checkpoint && setInterval(() => {
  try {
    checkpoint.run();
    failed = false;
  } catch (error) {
    if (!failed) parentPort.postMessage(error.message);
    failed = true;
  }
}, workerData.intervalMs);
parentPort.once("message", () => {
  clearInterval(timer);
  db?.close();
});
`;

export interface Checkpointer {
  close(): Promise<void>;
}

/** Checkpoints the SQLite database at `path` (in WAL mode) from a worker thread until closed; `onFailure` hears why it could not. */
export function startCheckpointer(path: string, onFailure: (message: string) => void): Checkpointer {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { path, driver: createRequire(import.meta.url).resolve("better-sqlite3"), intervalMs: INTERVAL_MS },
  });
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.on("message", onFailure);
  worker.on("error", (error) => onFailure(error.message));
  // A process that never closes its database must still be able to end.
  worker.unref();
  return {
    close() {
      // Held open until the worker has closed its connection, as the caller awaits it.
      worker.ref();
      worker.postMessage("close");
      return exited;
    },
  };
}
