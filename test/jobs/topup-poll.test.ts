import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CryptoPayPort } from "../../src/core/ports.js";
import { createTopupPoll } from "../../src/jobs/topup-poll.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { createCryptoPay } from "../../src/upstream/crypto-pay.js";
import { type Harness, startHarness } from "../support/harness.js";

// The poll's promise: every open invoice is asked about in every pass, so a payment whose webhook was lost is
// credited within one TOPUP_POLL_MS (it was every other pass: passes start an interval apart, and an invoice
// was due an interval after the end of its look).

let h: Harness;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  // The service's own poll looks once at start and then not for ten minutes: the passes below are this test's.
  h = await startHarness({ TOPUP_POLL_MS: "600000" });
});
afterAll(async () => {
  for (const close of closers) await close();
  await h.close();
});

/** The real adapter, each look taking `delayMs` (a slow provider), counting the invoices asked about. */
function slowCryptoPay(delayMs: number) {
  const real = createCryptoPay({ baseUrl: `${h.simulatorUrl}/cryptopay`, token: SIMULATOR_CRYPTO_PAY_TOKEN, timeoutMs: 5000, log: console });
  closers.push(real.close);
  const asked: number[] = [];
  const port: CryptoPayPort = {
    ...real,
    async invoices(ids) {
      asked.push(...ids);
      // Kept on purpose: the provider's slowness is what the test is about.
      await sleep(delayMs);
      return real.invoices(ids);
    },
  };
  return { port, asked };
}

describe("the top-up poll", () => {
  it("asks about every open invoice in every pass, passes starting one interval apart", async () => {
    const { key } = await h.newKey(0);
    const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 4 } })).body;
    const intervalMs = 10_000;
    const { port, asked } = slowCryptoPay(300);
    const poll = createTopupPoll({
      db: h.service.db,
      clock: h.clock,
      topups: h.service.core.topups,
      cryptoPay: port,
      intervalMs,
      leaseMs: 5000,
      log: console,
    });
    for (let pass = 0; pass < 3; pass += 1) {
      const started = Date.now();
      await poll.runOnce();
      // The next pass starts one interval after this one started, as the loop's timer starts them.
      h.clock.advance(intervalMs - (Date.now() - started));
    }
    expect(asked.filter((id) => id === topup.invoice_id)).toHaveLength(3);
  });
});
