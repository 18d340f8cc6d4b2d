import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { ATTACK_SETTINGS, droppingEndpoint, hangingReceiver, healthyReceiver, runWebhookAttack } from "../../bench/webhook-attack.js";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// Issue 19's attack, on both engines: keys with no balance feed a hanging and a dropping endpoint at their full
// rate; a healthy partner's events still arrive at once (milliseconds), never behind a hanging attempt.

let h: Harness;
useHarness({ env: ATTACK_SETTINGS }, (started) => (h = started));

async function subscribe(usdt: number, url: string) {
  const { key } = await h.newKey(usdt);
  expect((await h.call("POST", "/v1/webhook", { key, body: { url } })).status).toBe(200);
  return key;
}

describe("webhook delivery under attack", () => {
  it("delivers a healthy partner's events without waiting behind a hanging attempt while two keys flood endpoints that hang and drop", async () => {
    const [healthy, hanging, dropping] = await Promise.all([healthyReceiver(), hangingReceiver(), droppingEndpoint()]);
    try {
      const keys = {
        healthy: await subscribe(100, healthy.url),
        hanging: await subscribe(0, hanging.url),
        dropping: await subscribe(0, dropping.url),
      };
      const result = await runWebhookAttack({
        callers: [async (method, path, key, body) => h.call(method, path, { key, body })],
        keys,
        healthy,
        durationMs: 6000,
        attackPerSecond: 20,
        healthyEveryMs: 200,
      });
      // A flood: two keys at 20 calls a second for 6 s plan 240; a busy machine's timers drift, so at least half.
      expect(result.attackCalls).toBeGreaterThan(120);
      expect(result.purchases).toBeGreaterThan(10);
      expect(result.missing).toBe(0);
      // Never behind a hanging attempt (its 2 s timeout): measured here p50 under 10 ms and the slowest under 20 ms
      // (the bench prints p50 and p99), but a machine with 15 runnable processes for 2 cores took 1.1 s once.
      expect(result.max, JSON.stringify(result)).toBeLessThan(Number(ATTACK_SETTINGS.WEBHOOK_TIMEOUT_MS));

      // The hanging endpoint never had more than a turn's attempts open, and no test event was sent twice.
      expect(hanging.mostOpen).toBeLessThanOrEqual(4);
      expect(new Set(hanging.seen).size).toBe(hanging.seen.length);
      const attempts = await h.service.db.selectFrom("webhook_events").select("attempts").where("test_event", "=", true).execute();
      expect(Math.max(...attempts.map((a) => a.attempts))).toBe(1);

      // The partner sees its endpoint backed off, its waiting events at the cap, and what was dropped past it.
      for (const key of [keys.hanging, keys.dropping]) {
        // Once a turn has failed (its attempts time out after 2 s; later on a loaded machine).
        const shown = await eventually(async () => {
          const webhook = (await h.call("GET", "/v1/webhook", { key })).body.webhook;
          return webhook.failing_since !== null ? webhook : undefined;
        });
        expect(shown).toMatchObject({ enabled: true, pending_limit: 40 });
        expect(shown.retry_at).not.toBeNull();
        expect(shown.pending_events).toBeLessThanOrEqual(40);
        expect(shown.dropped_events).toBeGreaterThan(0);
        expect(shown.last_dropped_at).not.toBeNull();
      }
      await h.assertLedgerInvariant();
    } finally {
      await Promise.all([healthy.close(), hanging.close(), dropping.close()]);
    }
  });

  it("releases a backlog at a few events at a time when an endpoint is set again", async () => {
    let open = 0;
    let mostOpen = 0;
    const seen: string[] = [];
    const server = createServer((req, res) => {
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        seen.push(JSON.parse(Buffer.concat(chunks).toString("utf8")).id);
        // A slow endpoint (each answer 100 ms late), so attempts overlap and the turn's size shows.
        setTimeout(() => {
          open -= 1;
          res.writeHead(200).end("ok");
        }, 100);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    try {
      const { key, telegramId } = await h.newKey(100);
      // Events wait while the endpoint is disabled (as after a day of failures)...
      expect((await h.call("POST", "/v1/webhook", { key, body: { url } })).status).toBe(200);
      const account = await h.service.db.selectFrom("accounts").select("id").where("telegram_id", "=", telegramId).executeTakeFirstOrThrow();
      await h.service.db
        .updateTable("webhook_endpoints")
        .set({ disabled_at: new Date().toISOString(), disabled_reason: "test" })
        .where("account_id", "=", account.id)
        .execute();
      for (let i = 0; i < 20; i += 1) {
        expect((await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 + i } })).status).toBe(200);
      }
      // Nothing is sent to a disabled endpoint over two whole passes (the poll or a wake runs them).
      await h.service.jobs.webhookDispatch.afterPasses(2);
      expect(seen).toEqual([]);
      // ...and setting it again sends them a turn at a time, never all at once.
      expect((await h.call("POST", "/v1/webhook", { key, body: { url } })).body.webhook.enabled).toBe(true);
      await eventually(async () => (seen.length >= 20 ? true : undefined));
      expect(mostOpen).toBeGreaterThan(1);
      expect(mostOpen).toBeLessThanOrEqual(4);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
