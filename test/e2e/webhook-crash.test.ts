import { describe, expect, it } from "vitest";
import { assertBooks } from "../support/books.js";
import { eventually } from "../support/harness.js";
import { http, kill } from "../support/processes.js";
import { db, eventOf, receiver, setUp, start, subscriber, useWebhookProcesses } from "../support/webhook-processes.js";

useWebhookProcesses();

describe("a service killed in the middle of a delivery", () => {
  it("delivers the event again after restart: nothing lost, the same id and body", async () => {
    await setUp();
    const first = await start();
    const key = await subscriber(first.base, "5550001");
    // The receiver takes the first delivery and never answers: the service dies while the attempt is open.
    receiver.behaviour = (r) => (receiver.of(r.json.id).length === 1 ? "hang" : { status: 200 });
    const bought = await http("POST", `${first.base}/v1/stars`, key, { username: "alice", stars: 100 });
    expect(bought.status).toBe(200);
    const open = await receiver.waitFor((r) => r.json.data?.order?.order_id === bought.body.order_id);
    await kill(first.proc);
    const pending = await eventOf(bought.body.order_id);
    expect(pending.status).toBe("pending");
    // The killed attempt's leases (timeout + 5 s), the event's and its endpoint's turn, lapse while the service is
    // down: written as the time having passed, not waited for. The restarted service sends it again.
    expect(Date.parse(pending.next_attempt_at!)).toBeGreaterThan(Date.now());
    const lapsed = new Date().toISOString();
    await db.updateTable("webhook_events").set({ next_attempt_at: lapsed }).where("id", "=", pending.id).execute();
    await db.updateTable("webhook_endpoints").set({ ready_at: lapsed }).where("ready_at", ">", lapsed).execute();

    await start();
    const deliveries = await eventually(async () => {
      const seen = receiver.of(open.json.id);
      return seen.length >= 2 ? seen : undefined;
    }, 20_000);
    expect(deliveries[1].body).toBe(open.body);
    const event = await eventually(async () => {
      const row = await eventOf(bought.body.order_id);
      return row.status === "delivered" ? row : undefined;
    });
    expect(event.attempts).toBe(2);
    await assertBooks(db);
  });
});
