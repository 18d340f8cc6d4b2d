import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PartnerServer, startPartnerServer } from "../../client/examples/partner-server.js";
import { eventually } from "../support/harness.js";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";

let s: ListeningHarness;
let partner: PartnerServer;
beforeAll(async () => {
  s = await startListeningHarness();
});
afterAll(async () => {
  await partner?.close();
  await s.close();
});

describe("client/examples/partner-server.ts", () => {
  it("buys stars for its customer once per invoice, and receives the order's webhook, verified", async () => {
    const { key, client } = await s.partner(10);
    partner = await startPartnerServer({ apiUrl: s.baseUrl, apiKey: key, webhookSecrets: [] });
    const { secret } = await client.setWebhook(`${partner.url}/webhooks`);
    partner.secrets.push(secret!);

    const buy = () =>
      fetch(`${partner.url}/buy-stars`, { method: "POST", body: JSON.stringify({ username: "alice", stars: 100, invoice: "1001" }) }).then((r) =>
        r.json(),
      );
    const first = (await buy()) as { order_id: number; status: string };
    expect(first.status).toBe("completed");
    expect(((await buy()) as { order_id: number }).order_id).toBe(first.order_id);
    expect((await client.balance()).balance_usdt).toBe(8.5);

    const event = await eventually(async () => partner.events.find((e) => e.type === "order.completed"));
    expect((event.data as { order: { order_id: number } }).order.order_id).toBe(first.order_id);

    const forged = await fetch(`${partner.url}/webhooks`, {
      method: "POST",
      headers: { "x-webhook-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}` },
      body: JSON.stringify(event),
    });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ error: "forged" });
  });
});
