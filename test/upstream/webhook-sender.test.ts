import { afterAll, describe, expect, it } from "vitest";
import { droppingEndpoint } from "../../bench/webhook-attack.js";
import { createWebhookSender } from "../../src/upstream/webhook-sender.js";

// A webhook attempt is bounded by its timeout even while connecting: an endpoint that drops packets (a connect that
// never completes) must not hold an attempt for undici's own 10 s connect timeout, past the attempt's lease.

const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 1000 });
afterAll(() => sender.close());

describe("the webhook sender", () => {
  it("ends attempts at an endpoint that drops packets within their timeout, however many are under way", async () => {
    const dropping = await droppingEndpoint();
    try {
      const attempts = await Promise.all(
        Array.from({ length: 4 }, () =>
          sender.send({ url: dropping.url, headers: { "content-type": "application/json" }, body: "{}", timeoutMs: 1000 }),
        ),
      );
      for (const attempt of attempts) {
        expect(attempt.statusCode).toBeNull();
        expect(attempt.error).not.toBeNull();
        // The bound, and undici's connect timer's tick beside it: far from its own 10 s.
        expect(attempt.durationMs).toBeLessThan(4000);
      }
    } finally {
      await dropping.close();
    }
  });
});
