import { afterAll, afterEach, describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";
import { FAST_WEBHOOKS, type Receiver, refusalOf, startReceiver } from "../support/receiver.js";

let h: Harness;
let receiver: Receiver;
useHarness({ env: FAST_WEBHOOKS, books: true }, async (started) => {
  h = started;
  receiver = await startReceiver();
});
afterEach(() => {
  receiver.behaviour = () => ({ status: 200 });
});
afterAll(async () => receiver.close());

/** A funded key with its endpoint set to the receiver; returns the secret shown once. */
async function subscribed(usdt = 20) {
  const { key, telegramId } = await h.newKey(usdt);
  const set = await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } });
  expect(set.status).toBe(200);
  return { key, telegramId, secret: set.body.secret as string };
}

describe("setting the endpoint", () => {
  it("shows the secret once, keeps it when the URL changes, and shows the endpoint without it", async () => {
    const { key } = await h.newKey();
    expect((await h.call("GET", "/v1/webhook", { key })).body).toEqual({ success: true, webhook: null });
    const first = await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } });
    expect(first.body).toMatchObject({ success: true, secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) });
    expect(first.body.webhook).toMatchObject({ url: receiver.url, enabled: true, pending_events: 0, disabled_reason: null });
    const again = await h.call("POST", "/v1/webhook", { key, body: { url: `${receiver.url}/v2` } });
    expect(again.body.secret).toBeUndefined();
    expect(again.body.webhook.url).toBe(`${receiver.url}/v2`);
    const shown = await h.call("GET", "/v1/webhook", { key });
    expect(JSON.stringify(shown.body)).not.toContain("whsec_");
    expect(shown.body.webhook.url).toBe(`${receiver.url}/v2`);
    expect((await h.call("DELETE", "/v1/webhook", { key })).body).toEqual({ success: true, removed: true });
    expect((await h.call("GET", "/v1/webhook", { key })).body.webhook).toBeNull();
  });

  it("refuses URLs that are not HTTPS to a public host, with 400 and nothing stored", async () => {
    const { key } = await h.newKey();
    for (const url of [
      "ftp://example.com/hook",
      "not a url",
      "https://user:pass@example.com/hook",
      "https://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[fd00::1]/hook",
      "https://[64:ff9b::a00:1]/hook",
      "https://[2002:a00:1::1]/hook",
      "http://example.com/hook",
      `https://example.com/${"a".repeat(2100)}`,
    ]) {
      const refused = await h.call("POST", "/v1/webhook", { key, body: { url } });
      expect(refused.status, url).toBe(400);
      expect(refused.body.success, url).toBe(false);
    }
    for (const body of [{}, { url: 5 }, { url: "" }, []]) {
      expect((await h.call("POST", "/v1/webhook", { key, body })).status).toBe(400);
    }
    expect((await h.call("GET", "/v1/webhook", { key })).body.webhook).toBeNull();
    expect((await h.call("POST", "/v1/webhook/ping", { key })).status).toBe(404);
    expect((await h.call("POST", "/v1/webhook/secret", { key })).status).toBe(404);
  });
});

/** Waits until no event (of the order, or at all) waits in the outbox: each was delivered (received first) or given up. */
async function settledOutbox(orderId?: number) {
  await eventually(async () => {
    let waiting = h.service.db.selectFrom("webhook_events").select("id").where("status", "=", "pending");
    if (orderId !== undefined) waiting = waiting.where("order_id", "=", orderId);
    return (await waiting.execute()).length ? undefined : true;
  });
}

describe("events", () => {
  it("delivers a completed order once, signed, with the body of the order's status endpoint", async () => {
    const { key, secret } = await subscribed();
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key: "wh-1" } });
    expect(bought.status).toBe(200);
    const delivery = await receiver.waitFor((r) => r.json.data?.order?.order_id === bought.body.order_id);
    expect(delivery.json).toMatchObject({ id: expect.stringMatching(/^evt_/), type: "order.completed", test: false });
    expect(delivery.headers["x-webhook-id"]).toBe(delivery.json.id);
    expect(delivery.headers["x-webhook-type"]).toBe("order.completed");
    expect(refusalOf(delivery, secret)).toBeNull();
    expect(refusalOf({ ...delivery, body: delivery.body.replace("alice", "alicf") }, secret)).toBe("forged");
    const status = await h.call("GET", `/v1/orders/${bought.body.order_id}`, { key });
    expect(delivery.json.data.order).toEqual(status.body);
    // A replay of the purchase is not a new event.
    await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100, idempotency_key: "wh-1" } });
    // Every event of the order sent (a second one would be received by then).
    await settledOutbox(bought.body.order_id);
    expect(receiver.received.filter((r) => r.json.data?.order?.order_id === bought.body.order_id)).toHaveLength(1);
  });

  it("reports a failed, refunded order, and an administrator's credit", async () => {
    const { key, telegramId, secret } = await subscribed(10);
    const failed = await h.call("POST", "/v1/stars", { key, body: { username: "fail_bob", stars: 100 } });
    expect(failed.status).toBe(502);
    const event = await receiver.waitFor((r) => r.json.data?.order?.order_id === failed.body.order_id);
    expect(event.json).toMatchObject({ type: "order.failed", data: { order: { status: "failed", usdt_charged: 1.5, balance_remaining_usdt: 10 } } });
    await h.service.core.admin.credit(telegramId, micro(2_500_000), "admin:1", { note: "invoice 77" });
    const credit = await receiver.waitFor((r) => r.json.type === "balance.changed" && refusalOf(r, secret) === null);
    expect(credit.json.data).toEqual({ kind: "credit", amount_usdt: 2.5, balance_usdt: 12.5, note: "invoice 77" });
  });

  it("says a gift card order's codes are ready but never carries them", async () => {
    const { key } = await subscribed(50);
    const placed = await h.call("POST", "/v1/giftcards/psn-us/order", { key, body: { card_id: "psn-us-10", quantity: 2 } });
    expect(placed.status).toBe(202);
    const event = await receiver.waitFor((r) => r.json.data?.order?.order_id === placed.body.order_id, 20_000);
    expect(event.json).toMatchObject({ type: "order.completed", data: { codes_ready: true, order: { status: "completed", codes_count: 2 } } });
    const status = await h.call("GET", `/v1/giftcards/orders/${placed.body.order_id}`, { key });
    expect(status.body.codes).toHaveLength(2);
    // The status endpoint's body, but for the codes themselves.
    const { codes: _codes, ...withoutCodes } = status.body;
    expect(event.json.data.order).toEqual(withoutCodes);
    for (const code of status.body.codes) expect(event.body).not.toContain(code);
    expect(event.json.data.order.codes).toBeUndefined();
  });

  it("sends sandbox calls as test events, and nothing at all to a key without an endpoint", async () => {
    const { key } = await subscribed();
    const sandbox = await h.call("POST", "/test/v1/stars", { key, body: { username: "alice", stars: 77 } });
    expect(sandbox.status).toBe(200);
    const event = await receiver.waitFor((r) => r.json.test === true && r.json.data?.order?.stars === 77);
    expect(event.json).toMatchObject({ type: "order.completed", data: { order: { test: true, order_id: 0 } } });
    // Every product's sandbox alike (the store's too): the answer itself is the event's order.
    const store = await h.call("POST", "/test/v1/store", { key, body: { login: "gabe", amount_usd: 10, idempotency_key: "sandbox-store" } });
    expect(store.status).toBe(200);
    const storeEvent = await receiver.waitFor((r) => r.json.test === true && r.json.data?.order?.product_type === "store");
    expect(storeEvent.json).toMatchObject({ type: "order.completed", test: true });
    expect(storeEvent.json.data).toEqual({ order: store.body });

    const { key: plain } = await h.newKey(5);
    const before = receiver.received.length;
    const bought = await h.call("POST", "/v1/stars", { key: plain, body: { username: "alice", stars: 50 } });
    expect(bought.status).toBe(200);
    const rows = await h.service.db.selectFrom("webhook_events").select("id").where("order_id", "=", bought.body.order_id).execute();
    expect(rows).toEqual([]);
    // Nothing left to send at all (none was written for it; one sent anyway would be received by then).
    await settledOutbox();
    expect(receiver.received.slice(before).some((r) => r.json.data?.order?.order_id === bought.body.order_id)).toBe(false);
  });
});

describe("delivery", () => {
  it("retries a failing and a slow receiver with backoff until it answers 2xx, then lists every attempt", async () => {
    const { key } = await subscribed();
    let calls = 0;
    receiver.behaviour = () => {
      calls += 1;
      if (calls === 1) return { status: 500 };
      if (calls === 2) return { status: 200, delayMs: 900 }; // past the 400 ms bound: a timeout
      return { status: 200 };
    };
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 60 } });
    const deliveries = await eventually(async () => {
      const seen = receiver.received.filter((r) => r.json.data?.order?.order_id === bought.body.order_id);
      return seen.length >= 3 ? seen : undefined;
    });
    expect(new Set(deliveries.map((d) => d.json.id)).size).toBe(1);
    expect(new Set(deliveries.map((d) => d.body)).size).toBe(1);
    expect(deliveries.map((d) => d.headers["x-webhook-attempt"])).toEqual(["1", "2", "3"]);
    const attempts = await eventually(async () => {
      const listed = await h.call("GET", "/v1/webhook/attempts", { key });
      return listed.body.count === 3 ? listed.body.attempts : undefined;
    });
    expect(attempts.map((a: any) => [a.status_code, a.succeeded])).toEqual([
      [200, true],
      [null, false],
      [500, false],
    ]);
    expect(attempts[1].error).toContain("no answer within 400 ms");
    expect(attempts[2].error).toBe("HTTP 500");
    const page = await h.call("GET", `/v1/webhook/attempts?limit=2`, { key });
    expect(page.body.next_before).toBe(attempts[1].attempt_id);
    const older = await h.call("GET", `/v1/webhook/attempts?limit=2&before=${page.body.next_before}`, { key });
    expect(older.body.attempts.map((a: any) => a.attempt_id)).toEqual([attempts[2].attempt_id]);
    expect(older.body.next_before).toBeNull();
    for (const query of ["limit=0", "limit=101", "limit=x", "before=0", "before=-1", "before=abc"]) {
      expect((await h.call("GET", `/v1/webhook/attempts?${query}`, { key })).status, query).toBe(400);
    }
  });

  it("holds events while the receiver is down and delivers them when it is back", async () => {
    const { key } = await subscribed();
    await receiver.down();
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 70 } });
    const failedAttempt = await eventually(async () => {
      const listed = await h.call("GET", "/v1/webhook/attempts", { key });
      return listed.body.attempts.find((a: any) => a.order_id === bought.body.order_id && !a.succeeded);
    });
    // Refused, or (a kept-alive connection the receiver cut) closed under the request: no answer either way.
    expect(failedAttempt.error).toMatch(/^(ECONNREFUSED|UND_ERR_SOCKET)$/);
    expect((await h.call("GET", "/v1/webhook", { key })).body.webhook.pending_events).toBe(1);
    await receiver.up();
    await receiver.waitFor((r) => r.json.data?.order?.order_id === bought.body.order_id);
    await eventually(async () => ((await h.call("GET", "/v1/webhook", { key })).body.webhook.pending_events === 0 ? true : undefined));
  });

  it("gives up after the retry period, disables the endpoint, and resumes when the URL is set again", async () => {
    const { key } = await subscribed();
    receiver.behaviour = () => ({ status: 503 });
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 80 } });
    // Two attempts fail, then the service's clock is moved past the retry period (4 s in the fast settings)
    // instead of waiting it out: the next failure gives up.
    await eventually(async () => {
      const { attempts } = await h.service.db
        .selectFrom("webhook_events")
        .select("attempts")
        .where("order_id", "=", bought.body.order_id)
        .executeTakeFirstOrThrow();
      return attempts >= 2 ? true : undefined;
    });
    h.clock.advance(Number(FAST_WEBHOOKS.WEBHOOK_RETRY_FOR_MS));
    const disabled = await eventually(async () => {
      const shown = (await h.call("GET", "/v1/webhook", { key })).body.webhook;
      return shown.enabled ? undefined : shown;
    }, 15_000).finally(() => h.clock.reset());
    expect(disabled.disabled_reason).toContain("HTTP 503");
    const event = await h.service.db.selectFrom("webhook_events").selectAll().where("order_id", "=", bought.body.order_id).executeTakeFirstOrThrow();
    expect(event.status).toBe("failed");
    // The first failure opened the breaker (the streak's start); an attempt after the period gives up.
    expect(event.attempts).toBeGreaterThanOrEqual(2);

    // While disabled, new events wait; setting the URL again enables it and they go out.
    receiver.behaviour = () => ({ status: 200 });
    const next = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 90 } });
    // Nothing is sent to a disabled endpoint over several whole passes (the poll or a wake runs them).
    await h.service.jobs.webhookDispatch.afterPasses(3);
    expect(receiver.received.some((r) => r.json.data?.order?.order_id === next.body.order_id)).toBe(false);
    expect((await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } })).body.webhook.enabled).toBe(true);
    await receiver.waitFor((r) => r.json.data?.order?.order_id === next.body.order_id);
  });

  it("pings on demand and reports the receiver's answer, whether it is up or down", async () => {
    const { key, secret } = await subscribed();
    const ping = await h.call("POST", "/v1/webhook/ping", { key });
    expect(ping.body).toMatchObject({ success: true, delivered: true, status_code: 200, error: null });
    const got = receiver.of(ping.body.event_id);
    expect(got).toHaveLength(1);
    expect(got[0].json).toMatchObject({ type: "ping", test: true });
    expect(refusalOf(got[0], secret)).toBeNull();
    await receiver.down();
    try {
      const refused = await h.call("POST", "/v1/webhook/ping", { key });
      expect(refused.body).toMatchObject({ success: true, delivered: false, status_code: null });
      expect(refused.body.error).toMatch(/^(ECONNREFUSED|UND_ERR_SOCKET)$/);
    } finally {
      await receiver.up();
    }
    const listed = (await h.call("GET", "/v1/webhook/attempts", { key })).body.attempts;
    expect(listed.map((a: any) => [a.event_type, a.succeeded])).toEqual([
      ["ping", false],
      ["ping", true],
    ]);
  });

  it("signs with both secrets during a rotation's overlap", async () => {
    const { key, secret: old } = await subscribed();
    const rotated = await h.call("POST", "/v1/webhook/secret", { key });
    expect(rotated.body).toMatchObject({ success: true, secret: expect.stringMatching(/^whsec_/) });
    expect(Date.parse(rotated.body.previous_secret_until) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    const ping = await h.call("POST", "/v1/webhook/ping", { key });
    const [got] = receiver.of(ping.body.event_id);
    expect(String(got.headers["x-webhook-signature"]).match(/v1=/g)).toHaveLength(2);
    expect(refusalOf(got, fresh)).toBeNull();
    expect(refusalOf(got, old)).toBeNull();
    expect(refusalOf(got, "whsec_someone_else")).toBe("forged");
    // A delivery replayed outside the tolerance is refused by the receiver's check.
    expect(refusalOf(got, fresh, { nowMs: Date.now() + 301_000 })).toBe("stale");

    // The old secret revoked at once: from now on only the new one signs.
    const revoked = await h.call("DELETE", "/v1/webhook/secret/previous", { key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.webhook).toMatchObject({ previous_secret_until: null });
    const after = await h.call("POST", "/v1/webhook/ping", { key });
    const [signed] = receiver.of(after.body.event_id);
    expect(String(signed.headers["x-webhook-signature"]).match(/v1=/g)).toHaveLength(1);
    expect(refusalOf(signed, fresh)).toBeNull();
    expect(refusalOf(signed, old)).toBe("forged");
    const other = await h.newKey();
    expect((await h.call("DELETE", "/v1/webhook/secret/previous", { key: other.key })).status).toBe(404);
  });
});

describe("retention", () => {
  it("deletes delivered and given-up events past the retention with their attempts, never a pending one", async () => {
    const { key } = await subscribed();
    const ping = await h.call("POST", "/v1/webhook/ping", { key });
    expect(ping.body.delivered).toBe(true);
    const db = h.service.db;
    // An event waiting for its next attempt (not due within the test, so no retry gives it up meanwhile).
    await receiver.down();
    const bought = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 55 } });
    const waiting = await eventually(async () => {
      const row = await db.selectFrom("webhook_events").selectAll().where("order_id", "=", bought.body.order_id).executeTakeFirst();
      return row && row.attempts >= 1 && row.status === "pending" ? row : undefined;
    });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await db.updateTable("webhook_events").set({ next_attempt_at: later }).where("id", "=", waiting.id).execute();
    await receiver.up();

    const longAgo = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await db.updateTable("webhook_events").set({ created_at: longAgo }).where("event_id", "in", [ping.body.event_id, waiting.event_id]).execute();
    expect(await h.service.jobs.purges.webhookEvents()).toBeGreaterThanOrEqual(1);
    expect(await db.selectFrom("webhook_events").select("id").where("event_id", "=", ping.body.event_id).execute()).toEqual([]);
    const listed = (await h.call("GET", "/v1/webhook/attempts", { key })).body.attempts;
    expect(listed.some((a: any) => a.event_id === ping.body.event_id)).toBe(false);
    const kept = await db.selectFrom("webhook_events").select("status").where("id", "=", waiting.id).execute();
    expect(kept).toEqual([{ status: "pending" }]);

    // Due again (with its own age back), it is delivered.
    const now = new Date().toISOString();
    await db.updateTable("webhook_events").set({ created_at: now, next_attempt_at: now }).where("id", "=", waiting.id).execute();
    await receiver.waitFor((r) => r.json.id === waiting.event_id);
  });
});
