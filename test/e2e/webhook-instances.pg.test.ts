import { describe, expect, it } from "vitest";
import { ATTACK_SETTINGS, droppingEndpoint, hangingReceiver, healthyReceiver, runWebhookAttack } from "../../bench/webhook-attack.js";
import { assertBooks } from "../support/books.js";
import { eventually } from "../support/harness.js";
import { http } from "../support/processes.js";
import { db, receiver, setUp, start, subscriber, useWebhookProcesses } from "../support/webhook-processes.js";

// PostgreSQL only: several instances deliver from one outbox.
useWebhookProcesses();

describe("two instances sharing one outbox", () => {
  it("make each attempt once, not once per instance", async () => {
    await setUp();
    const [a, b] = await Promise.all([start(), start()]);
    receiver.behaviour = () => ({ status: 200 });
    const keys = await Promise.all(Array.from({ length: 6 }, (_, i) => subscriber(i % 2 ? a.base : b.base, String(5560000 + i))));
    const orders: number[] = [];
    await Promise.all(
      keys.flatMap((key, i) =>
        Array.from({ length: 5 }, async (_, j) => {
          const via = (i + j) % 2 ? a : b;
          const bought = await http("POST", `${via.base}/v1/stars`, key, { username: "alice", stars: 50 + j });
          expect(bought.status).toBe(200);
          orders.push(bought.body.order_id);
        }),
      ),
    );
    const ids = await eventually(async () => {
      const rows = await db.selectFrom("webhook_events").select(["event_id", "status"]).where("order_id", "in", orders).execute();
      return rows.length === orders.length && rows.every((r) => r.status === "delivered") ? rows.map((r) => r.event_id) : undefined;
    }, 20_000);
    for (const id of ids) expect(receiver.of(id), id).toHaveLength(1);
    const attempts = await db.selectFrom("webhook_attempts").select("id").execute();
    expect(attempts).toHaveLength(orders.length);
    await assertBooks(db);
  });

  it("keep a healthy partner's events from waiting behind a hanging attempt while two keys flood a hanging and a dropping endpoint through both", async () => {
    await setUp({ ...ATTACK_SETTINGS, LOG_LEVEL: "error" });
    const [a, b] = await Promise.all([start(), start()]);
    const [healthy, hanging, dropping] = await Promise.all([healthyReceiver(), hangingReceiver(), droppingEndpoint()]);
    try {
      const keys = {
        healthy: await subscriber(a.base, "5570001", { url: healthy.url }),
        hanging: await subscriber(b.base, "5570002", { usdt: 0, url: hanging.url }),
        dropping: await subscriber(a.base, "5570003", { usdt: 0, url: dropping.url }),
      };
      const result = await runWebhookAttack({
        callers: [a, b].map((instance) => (method, path, key, body) => http(method, `${instance.base}${path}`, key, body)),
        keys,
        healthy,
        durationMs: 6000,
        attackPerSecond: 20,
        healthyEveryMs: 200,
      });
      expect(result.missing, JSON.stringify(result)).toBe(0);
      // Never behind a hanging attempt (its timeout); well under a second when the machine is not overloaded.
      expect(result.max, JSON.stringify(result)).toBeLessThan(Number(ATTACK_SETTINGS.WEBHOOK_TIMEOUT_MS));
      // Both instances together kept to a turn's attempts on the hanging endpoint, each test event sent once.
      expect(hanging.mostOpen).toBeLessThanOrEqual(4);
      expect(new Set(hanging.seen).size).toBe(hanging.seen.length);
      await assertBooks(db);
    } finally {
      await Promise.all([healthy.close(), hanging.close(), dropping.close()]);
    }
  });
});
