import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PartnerClient, verifyWebhook } from "../../client/src/index.js";
import { eventually } from "../support/harness.js";
import { refusal } from "../support/receiver.js";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";

interface Delivery {
  body: Buffer;
  headers: IncomingHttpHeaders;
}

let s: ListeningHarness;
let receiver: Server;
let receiverUrl: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  s = await startListeningHarness();
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      deliveries.push({ body: Buffer.concat(chunks), headers: request.headers });
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await s.close();
});

async function pinged(client: PartnerClient): Promise<Delivery> {
  const { event_id, delivered } = await client.pingWebhook();
  expect(delivered).toBe(true);
  return eventually(async () => deliveries.find((d) => d.headers["x-webhook-id"] === event_id));
}

describe("webhooks received and verified with the client", () => {
  let client: PartnerClient;
  let secret: string;

  it("verifies a delivered order event and returns it typed", async () => {
    ({ client } = await s.partner(10));
    const set = await client.setWebhook(receiverUrl);
    secret = set.secret!;
    expect(secret).toMatch(/^whsec_/);
    expect((await client.webhook()).webhook?.url).toBe(receiverUrl);
    const order = await client.buyStars({ username: "alice", stars: 100 });
    const delivery = await eventually(async () =>
      deliveries.find((d) => d.headers["x-webhook-type"] === "order.completed" && d.body.includes(`"order_id":${order.order_id},`)),
    );
    const event = verifyWebhook(delivery.body, delivery.headers, secret);
    expect(event.type).toBe("order.completed");
    if (event.type === "order.completed") expect((event.data.order as { order_id: number }).order_id).toBe(order.order_id);
    expect(event.id).toBe(delivery.headers["x-webhook-id"]);
    // A fetch Headers and a string body are taken too.
    expect(
      verifyWebhook(delivery.body.toString("utf8"), new Headers({ "X-Webhook-Signature": String(delivery.headers["x-webhook-signature"]) }), secret)
        .id,
    ).toBe(event.id);
    expect((await client.webhookAttempts({ limit: 5 })).attempts.length).toBeGreaterThan(0);
  });

  it("refuses a forged delivery: another body, another secret, a made-up signature, none", async () => {
    const delivery = await pinged(client);
    const body = delivery.body.toString("utf8");
    expect(verifyWebhook(body, delivery.headers, secret).type).toBe("ping");
    expect(refusal(() => verifyWebhook(body.replace('"ping":true', '"ping":false'), delivery.headers, secret))).toBe("forged");
    expect(refusal(() => verifyWebhook(body, delivery.headers, "whsec_another"))).toBe("forged");
    const t = Math.floor(Date.now() / 1000);
    const madeUp = { "x-webhook-signature": `t=${t},v1=${createHmac("sha256", "guess").update(`${t}.${body}`).digest("hex")}` };
    expect(refusal(() => verifyWebhook(body, madeUp, secret))).toBe("forged");
    expect(refusal(() => verifyWebhook(body, {}, secret))).toBe("missing_signature");
    expect(refusal(() => verifyWebhook(body, { "x-webhook-signature": "v1=zz" }, secret))).toBe("malformed_signature");
  });

  it("refuses a stale delivery: a captured one replayed later, or one signed long ago", async () => {
    const delivery = await pinged(client);
    expect(refusal(() => verifyWebhook(delivery.body, delivery.headers, secret, { nowMs: Date.now() + 6 * 60_000 }))).toBe("stale");
    expect(
      refusal(() => verifyWebhook(delivery.body, delivery.headers, secret, { nowMs: Date.now() + 6 * 60_000, toleranceSeconds: 600 })),
    ).toBeNull();
    const old = Math.floor(Date.now() / 1000) - 301;
    const signedLongAgo = {
      "x-webhook-signature": `t=${old},v1=${createHmac("sha256", secret).update(`${old}.`).update(delivery.body).digest("hex")}`,
    };
    expect(refusal(() => verifyWebhook(delivery.body, signedLongAgo, secret))).toBe("stale");
  });

  it("verifies with either secret during a rotation's overlap, and only the new one once the old is revoked", async () => {
    const rotated = await client.rotateWebhookSecret();
    const next = rotated.secret;
    expect(next).not.toBe(secret);
    const during = await pinged(client);
    expect(String(during.headers["x-webhook-signature"]).match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhook(during.body, during.headers, secret).type).toBe("ping");
    expect(verifyWebhook(during.body, during.headers, next).type).toBe("ping");
    expect(verifyWebhook(during.body, during.headers, [secret, next]).type).toBe("ping");

    await client.revokePreviousWebhookSecret();
    const after = await pinged(client);
    expect(refusal(() => verifyWebhook(after.body, after.headers, secret))).toBe("forged");
    expect(verifyWebhook(after.body, after.headers, [secret, next]).type).toBe("ping");
    expect((await client.removeWebhook()).removed).toBe(true);
  });
});
