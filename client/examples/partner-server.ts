// A partner's server, as a small integration of @sj/partner-client: it sells stars to its own customers
// (POST /buy-stars) and receives the service's webhooks (POST /webhooks), verified before anything is believed.
//
//   PARTNER_API_URL=http://127.0.0.1:8080 PARTNER_API_KEY=sj_… WEBHOOK_SECRETS=whsec_… PORT=9900 \
//     npx tsx client/examples/partner-server.ts
//
// In your own code, import from "@sj/partner-client" instead of "../src/index.js".
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createClient, PartnerApiError, PartnerClientError, verifyWebhook, type WebhookEvent, WebhookVerificationError } from "../src/index.js";

export interface PartnerServerOptions {
  /** The purchase service, e.g. http://127.0.0.1:8080. */
  apiUrl: string;
  apiKey: string;
  /** The webhook secrets to accept: the current one, and the previous one during a rotation's overlap. */
  webhookSecrets: string[];
  port?: number;
  host?: string;
}

export interface PartnerServer {
  url: string;
  /** Every verified event, once each (deliveries are at least once: deduplicated on the event id). */
  events: WebhookEvent[];
  /** The secrets accepted now: change them in place when rotating. */
  secrets: string[];
  close(): Promise<void>;
}

async function rawBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function reply(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export async function startPartnerServer(options: PartnerServerOptions): Promise<PartnerServer> {
  const client = createClient({ baseUrl: options.apiUrl, apiKey: options.apiKey });
  const secrets = [...options.webhookSecrets];
  const events: WebhookEvent[] = [];
  const seen = new Set<string>();

  const server = createServer(async (request, response) => {
    try {
      if (request.method === "POST" && request.url === "/webhooks") {
        // Verify over the raw bytes, before parsing; a forged or replayed delivery is refused.
        const event = verifyWebhook(await rawBody(request), request.headers, secrets);
        if (!seen.has(event.id)) {
          seen.add(event.id);
          events.push(event);
          if (event.type === "order.completed" || event.type === "order.failed") {
            console.log(`order ${(event.data.order as { order_id: number }).order_id}: ${event.type}`);
          }
        }
        return reply(response, 200, { received: true });
      }
      if (request.method === "POST" && request.url === "/buy-stars") {
        const { username, stars, invoice } = JSON.parse((await rawBody(request)).toString("utf8")) as {
          username: string;
          stars: number;
          invoice: string;
        };
        // The partner's own invoice number as the idempotency key: a customer's double click buys once.
        const order = await client.buyStars({ username, stars, idempotency_key: `invoice-${invoice}` });
        return reply(response, 200, { order_id: order.order_id, status: order.status, charged_usdt: order.usdt_charged });
      }
      reply(response, 404, { error: "not found" });
    } catch (error) {
      if (error instanceof WebhookVerificationError) return reply(response, 400, { error: error.reason });
      if (error instanceof PartnerApiError)
        return reply(response, error.status === 402 ? 402 : 502, { error: error.error, error_code: error.errorCode });
      // No answer (connection, timeout): the invoice's key makes a later retry safe.
      if (error instanceof PartnerClientError) return reply(response, 503, { error: error.message, request_id: error.requestId });
      reply(response, 500, { error: "internal error" });
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    events,
    secrets,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startPartnerServer({
    apiUrl: process.env.PARTNER_API_URL ?? "http://127.0.0.1:8080",
    apiKey: process.env.PARTNER_API_KEY ?? "",
    webhookSecrets: (process.env.WEBHOOK_SECRETS ?? "").split(",").filter(Boolean),
    port: Number(process.env.PORT ?? 9900),
  });
  console.log(`partner server on ${server.url}: POST /buy-stars, webhooks at ${server.url}/webhooks`);
}
