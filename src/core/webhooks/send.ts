import type { Executor } from "../../db/database.js";
import { sendingEndpoint } from "../../db/webhook-endpoints.js";
import type { AttemptRecord } from "../../db/webhook-events.js";
import type { WebhookResult, WebhookSender } from "../ports.js";
import type { Clock } from "../model/clock.js";
import type { SealedSecrets } from "../model/webhook.js";
import { SIGNATURE_HEADER, signatureHeader } from "./signature.js";

export const succeeded = (result: WebhookResult) => result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
export const errorOf = (result: WebhookResult) => result.error ?? `HTTP ${result.statusCode}`;

interface SignedSend {
  sender: WebhookSender;
  clock: Clock;
  timeoutMs: number;
}

/** One signed POST of an event's stored body to `url`, signed by every live secret of the endpoint. */
function sendSigned(
  how: SignedSend,
  to: { url: string; secrets: string[] },
  event: { eventId: string; type: string; payload: string },
  attempt: number,
): Promise<WebhookResult> {
  const timestamp = Math.floor(how.clock.now().getTime() / 1000);
  return how.sender.send({
    url: to.url,
    body: event.payload,
    timeoutMs: how.timeoutMs,
    headers: {
      "content-type": "application/json",
      "user-agent": "partner-purchase-webhooks/1",
      "x-webhook-id": event.eventId,
      "x-webhook-type": event.type,
      "x-webhook-attempt": String(attempt),
      [SIGNATURE_HEADER]: signatureHeader(to.secrets, timestamp, event.payload),
    },
  });
}

export interface SendingOptions extends SignedSend {
  db: Executor;
  /** The secrets that sign now, from the endpoint's sealed ones. */
  secretsOf: (sealed: SealedSecrets) => string[];
}

/**
 * An attempt: the event's stored body, signed and sent to the account's endpoint as it is now (its URL and
 * secrets may have changed since the event was recorded). Null when the account has no endpoint any more.
 */
export function createSending(options: SendingOptions) {
  return async (event: { accountId: number; eventId: string; type: string; payload: string }, attempt: number) => {
    const endpoint = await sendingEndpoint(options.db, event.accountId);
    if (!endpoint) return null;
    const result = await sendSigned(options, { url: endpoint.url, secrets: options.secretsOf(endpoint) }, event, attempt);
    return { url: endpoint.url, result };
  };
}

export type Send = ReturnType<typeof createSending>;

/** What an attempt's result is recorded as. */
export const attemptRecord = (url: string, result: WebhookResult, at: string): AttemptRecord => ({
  url,
  at,
  statusCode: result.statusCode,
  error: succeeded(result) ? null : errorOf(result),
  durationMs: result.durationMs,
  succeeded: succeeded(result),
});
