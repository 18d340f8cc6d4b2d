import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type VerifyOptions, verifyWebhook, type WebhookRefusal, WebhookVerificationError } from "../../client/src/index.js";
import { eventually } from "./harness.js";

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body, as the signature covers it. */
  body: string;
  json: any;
}

/** The reason the client package's verifyWebhook refuses with, or null when `run` passes. */
export function refusal(run: () => unknown): WebhookRefusal | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

/** A delivery checked as a partner checks it (the client package's verifyWebhook): why it is refused, or null. */
export const refusalOf = (delivery: Received, secrets: string | string[], options?: VerifyOptions) =>
  refusal(() => verifyWebhook(delivery.body, delivery.headers, secrets, options));

/** Short retries so a day of them fits in seconds (the schedule's shape is the same as in production); loopback allowed. */
export const FAST_WEBHOOKS = {
  WEBHOOK_ALLOW_LOOPBACK: "true",
  WEBHOOK_TIMEOUT_MS: "400",
  WEBHOOK_RETRY_BASE_MS: "100",
  WEBHOOK_RETRY_MAX_MS: "300",
  WEBHOOK_RETRY_FOR_MS: "4000",
  WEBHOOK_POLL_MS: "50",
};

/** What the receiver does with the next request: answer with a status, after a delay (or never). */
export type Behaviour = { status: number; delayMs?: number } | "hang";

/**
 * A partner's webhook receiver: a real HTTP server on a loopback port that records every request and answers as
 * told (fail, be slow, hang), and can go down and come back on the same port.
 */
export async function startReceiver(port = 0) {
  const received: Received[] = [];
  let behave: (request: Received) => Behaviour = () => ({ status: 200 });
  const hanging = new Set<() => void>();
  let server: Server;

  const listen = (at: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (chunk: Buffer) => chunks.push(chunk));
        req.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const entry: Received = { headers: req.headers, body, json: JSON.parse(body) };
          received.push(entry);
          const answer = behave(entry);
          if (answer === "hang") {
            hanging.add(() => res.destroy());
            return;
          }
          // The receiver's behaviour (a slow partner) as the test sets it, not a wait.
          setTimeout(() => res.writeHead(answer.status, { "content-type": "text/plain" }).end("ok"), answer.delayMs ?? 0);
        });
      });
      s.once("error", reject);
      s.listen(at, "127.0.0.1", () => resolve(s));
    });

  server = await listen(port);
  const actualPort = (server.address() as AddressInfo).port;

  const receiver = {
    url: `http://127.0.0.1:${actualPort}/hooks`,
    port: actualPort,
    received,
    set behaviour(fn: (request: Received) => Behaviour) {
      behave = fn;
    },
    /** Requests carrying this event id, in arrival order. */
    of: (eventId: string) => received.filter((r) => r.json.id === eventId),
    /** Waits for the first request matching `match`. */
    waitFor: (match: (r: Received) => boolean, timeoutMs = 10_000) => eventually(async () => received.find(match), timeoutMs),
    /** Down: the port refuses connections until `up`. */
    async down() {
      for (const cut of hanging) cut();
      hanging.clear();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    async up() {
      server = await listen(actualPort);
    },
    async close() {
      if (server.listening) await receiver.down();
    },
  };
  return receiver;
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
