import { type Api, GrammyError } from "grammy";
import type { Update } from "grammy/types";

export interface PollerOptions {
  api: Api;
  /** Stores a batch durably. Telegram is told the batch was taken only by the next getUpdates, asked after this. */
  store(updates: Update[]): Promise<void>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Long poll length (Telegram holds the call this long when nothing comes). */
  timeoutSeconds?: number;
}

/** grammY types its signal with a polyfill's AbortSignal; Node's own is what it uses at run time. */
type ApiSignal = Parameters<Api["getUpdates"]>[1];

/** Refusals that polling again cannot mend: another poller took over (409), or the token is wrong (401). */
const FATAL = new Set([401, 409]);

/**
 * Long polling into the inbox. Each batch is stored before the next getUpdates moves the offset past it, so an
 * update Telegram counts as taken is always in the database: a poller that dies between the two leaves the batch
 * unconfirmed, and the next one fetches it again (the inbox ignores what it has).
 */
export function startPoller(options: PollerOptions) {
  const { api, log } = options;
  const controller = new AbortController();
  const { signal } = controller;
  let alive = true;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });

  const loop = (async () => {
    let offset = 0;
    let failures = 0;
    while (!signal.aborted) {
      try {
        const updates = await api.getUpdates({ offset, limit: 100, timeout: options.timeoutSeconds ?? 30 }, signal as ApiSignal);
        if (updates.length) {
          await options.store(updates);
          offset = updates[updates.length - 1].update_id + 1;
        }
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof GrammyError && FATAL.has(error.error_code)) {
          log.error({ err: error }, "polling stopped");
          break;
        }
        // The database or Telegram failing: the batch is fetched again (not confirmed), after a growing pause.
        failures += 1;
        log.warn({ err: error, failures }, "polling failed; retrying");
        await pause(Math.min(250 * 2 ** failures, 10_000));
      }
    }
    alive = false;
  })();

  return {
    working: () => alive,
    /** Ends the long poll at once; resolves after a batch being stored is committed. */
    async stop() {
      controller.abort();
      await loop;
    },
  };
}
