import type { Reason } from "../core/model/reasons.js";
import type { UpstreamOutcome } from "../core/ports.js";
import { NotSentError } from "./http.js";

/**
 * The one policy every adapter applies to an order request (a delivery, a top-up, a card order, a gift, Premium):
 * what the transport and the answer's status say about whether the provider took it. Only a definite "not taken" is
 * a failure, refunded at once; whatever leaves it open is `unknown`, and the order waits for the status lookup by
 * our reference. An adapter reads its own bodies (what a refusal's reason is, what a success says); the classes are
 * these, written once:
 * - not sent: the request never left (a refused connection, an unresolvable host): failed, `provider_unavailable`;
 * - no answer: it may have arrived but nothing came back in time, or the answer was cut: unknown;
 * - not taken: the provider said it did not take it (unavailable or throttling): failed, `provider_unavailable`;
 * - refused: the provider refused this request itself: failed, with the adapter's reason;
 * - unknown: an answer that may follow the work done (a timeout status, a conflict, a server error, a success whose
 *   body does not read): unknown.
 */
export type Answered = "taken" | "not_taken" | "refused" | "unknown";

/** Where an HTTP status puts an order request. `notTaken`: the statuses this provider documents as "not taken". */
export function judgeStatus(status: number, notTaken: readonly number[] = [503, 429]): Answered {
  if (status >= 200 && status < 300) return "taken";
  if (notTaken.includes(status)) return "not_taken";
  if (status === 408 || status === 409 || status >= 500) return "unknown";
  return "refused";
}

/**
 * Where a Bot API answer that is not `ok` puts a request, by HTTP status or its error_code: a 5xx may come after the
 * work was done; 429 (flood control) was not taken; every other 4xx was refused.
 */
export function judgeBotApi(answer: { status: number; code: number }): Exclude<Answered, "taken"> {
  const answered = judgeStatus(Math.max(answer.status, answer.code), [429]);
  return answered === "taken" ? "unknown" : answered;
}

/** A call that threw before any answer: never sent (failed) or sent with no answer (unknown). */
export function noAnswer(error: unknown, who: string): UpstreamOutcome {
  if (error instanceof NotSentError) return { kind: "failed", error: `${who} is unreachable`, reason: "provider_unavailable" };
  return { kind: "unknown", error: (error as Error).message };
}

/** The outcome of an answer that did not take the order (`not_taken`, `refused`) or left it open (`unknown`). */
export function notTaken(answered: Exclude<Answered, "taken">, error: string, reason: Reason = "provider_error"): UpstreamOutcome {
  if (answered === "unknown") return { kind: "unknown", error };
  return { kind: "failed", error, reason: answered === "not_taken" ? "provider_unavailable" : reason };
}

/** A success whose body does not read: the order may be taken, so it waits for the lookup. */
export const unreadable = (error: string): UpstreamOutcome => ({ kind: "unknown", error });
