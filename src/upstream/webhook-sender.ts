import { lookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import type { Agent } from "undici";
import type { WebhookRequest, WebhookResult, WebhookSender } from "../core/ports.js";
import { addressAllowed } from "../core/webhooks/addresses.js";
import { loadUndici } from "./http.js";

/** What a receiver's answer may weigh: the rest is not read (only its status matters). */
const ANSWER_LIMIT = 64 * 1024;

/**
 * Partners' endpoints over HTTPS with undici. Every address a host name resolves to is checked before the
 * connection is made (so DNS cannot point a delivery into our own network), redirects are not followed, and
 * each attempt is bounded as a whole by its timeout.
 */
export function createWebhookSender(options: {
  allowLoopback: boolean;
  /**
   * The attempts' bound (WEBHOOK_TIMEOUT_MS), also as the connection's: an abort signal does not cut short a connect
   * whose packets are dropped, which would wait out undici's own 10 s and outlast the attempt's lease.
   */
  timeoutMs: number;
}): WebhookSender & { close(): Promise<void>; destroy(): Promise<void> } {
  const guarded: LookupFunction = (hostname, lookupOptions, callback) => {
    lookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const allowed = addresses.filter((a) => addressAllowed(a.address, options.allowLoopback));
      if (!allowed.length) {
        const refused = Object.assign(new Error(`${hostname} resolves only to addresses that may not receive webhooks`), { code: "EADDRNOTALLOWED" });
        return callback(refused, "", 0);
      }
      if (lookupOptions.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
  // Opened at the first attempt (see loadUndici).
  let opened: Agent | null = null;
  const agent = () => (opened ??= new (loadUndici().Agent)({ connect: { lookup: guarded, timeout: options.timeoutMs }, keepAliveTimeout: 10_000 }));

  return {
    async send(webhook: WebhookRequest): Promise<WebhookResult> {
      const started = performance.now();
      const took = () => performance.now() - started;
      const host = new URL(webhook.url).hostname.replace(/^\[(.*)\]$/, "$1");
      if (isIP(host) && !addressAllowed(host, options.allowLoopback)) {
        return { statusCode: null, error: `${host} may not receive webhooks`, durationMs: took() };
      }
      try {
        const response = await loadUndici().request(webhook.url, {
          method: "POST",
          headers: webhook.headers,
          body: webhook.body,
          dispatcher: agent(),
          signal: AbortSignal.timeout(webhook.timeoutMs),
          headersTimeout: webhook.timeoutMs,
          bodyTimeout: webhook.timeoutMs,
        });
        await response.body.dump({ limit: ANSWER_LIMIT }).catch(() => undefined);
        return { statusCode: response.statusCode, error: null, durationMs: took() };
      } catch (error) {
        const err = error as Error & { code?: string; cause?: { code?: string; message?: string } };
        const timedOut = err.name === "TimeoutError" || err.name === "AbortError";
        const detail = timedOut ? `no answer within ${webhook.timeoutMs} ms` : (err.cause?.code ?? err.code ?? err.cause?.message ?? err.message);
        return { statusCode: null, error: detail, durationMs: took() };
      }
    },
    close: async () => opened?.close(),
    /** Aborts the attempts under way (a stop past its bound). */
    destroy: async () => opened?.destroy(),
  };
}
