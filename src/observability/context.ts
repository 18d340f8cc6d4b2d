import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/**
 * The id of the request, bot update or background pass under way, for the log and for provider calls. It
 * follows the work through every await (AsyncLocalStorage), so code that runs because of a request (the
 * core's provider calls, its warnings) carries the id without being handed it. The core never reads it.
 */
const current = new AsyncLocalStorage<string>();

/** What a client may choose as its request id: 1 to 64 of these characters (it is logged and echoed as is). */
const SANE_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** A client that sends its key or a webhook secret as the id must not get it logged. */
const SECRET_SHAPED = /sj_|whsec_/i;

/** The client's `X-Request-Id` when it is sane, else null (never logged when it is not). */
export function saneRequestId(header: unknown): string | null {
  return typeof header === "string" && SANE_ID.test(header) && !SECRET_SHAPED.test(header) ? header : null;
}

export const newRequestId = (): string => randomUUID();

/** Runs `work` (and everything it starts) under `id`. */
export function withRequestId<T>(id: string, work: () => T): T {
  return current.run(id, work);
}

/** The id of the work under way, or null outside any request, update or pass. */
export function currentRequestId(): string | null {
  return current.getStore() ?? null;
}
