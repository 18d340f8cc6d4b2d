import { randomUUID } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromUsd } from "../../src/core/model/money.js";
import type { UpstreamOutcome, UpstreamStatus } from "../../src/core/ports.js";
import { SIMULATOR_RELOADLY_CREDENTIALS as CREDENTIALS } from "../../src/config/simulated-credentials.js";
import { startSimulator } from "../../src/simulator/server.js";
import type { UpstreamCall } from "../../src/upstream/http.js";
import { createReloadlyAdapter, type ReloadlyGiftcards, type ReloadlyOptions } from "../../src/upstream/reloadly.js";

// The Reloadly adapter (src/upstream/reloadly.ts) against the simulated Reloadly (docs/providers/reloadly-simulator.md)
// over HTTP: the port's operations as the service calls them.

let simulator: Awaited<ReturnType<typeof startSimulator>>;
const adapters: ReloadlyGiftcards[] = [];
const calls: UpstreamCall[] = [];

/** A sandbox adapter on the simulator; `recipientEmail` picks the simulator's outcome. */
function adapter(change: Partial<ReloadlyOptions> = {}): ReloadlyGiftcards {
  const made = createReloadlyAdapter({
    environment: "sandbox",
    clientId: CREDENTIALS.sandbox.clientId,
    clientSecret: CREDENTIALS.sandbox.clientSecret,
    authUrl: `${simulator.url}/reloadly/auth`,
    giftcardsUrl: `${simulator.url}/reloadly/giftcards-sandbox`,
    timeoutMs: 5_000,
    senderName: "Test shop",
    recipientEmail: "buyer@example.com",
    onCall: (call) => calls.push(call),
    ...change,
  });
  adapters.push(made);
  return made;
}

async function control(path: string, body: unknown = {}) {
  const answer = await request(`${simulator.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(answer.statusCode, path).toBe(200);
  await answer.body.dump();
}

/** Asks until the lookup says something other than pending. */
async function settled(status: () => Promise<UpstreamStatus>): Promise<UpstreamStatus> {
  for (let i = 0; i < 200; i++) {
    const now = await status();
    if (now.kind !== "pending") return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("still pending");
}

const AMAZON_US = "120";
const order = (reference = randomUUID(), cardId = "25", quantity = 1, categoryId = AMAZON_US) => ({ reference, categoryId, cardId, quantity });
const codesOf = (outcome: UpstreamOutcome | UpstreamStatus) => (outcome.kind === "completed" ? outcome.codes : undefined);

beforeAll(async () => {
  simulator = await startSimulator(0, { timeScale: 0.01 });
});

afterAll(async () => {
  await Promise.all(adapters.map((made) => made.close()));
  await simulator.app.close();
});

describe("the catalogue", () => {
  it("lists every product as a brand, with its redeem instructions as notes", async () => {
    const brands = await adapter().brands();
    expect(brands).toEqual(
      expect.arrayContaining([
        { categoryId: "120", name: "Amazon US", notes: expect.stringContaining("amazon.com/redeem") },
        { categoryId: "18597", name: "Virtual MasterCard International USD US", notes: expect.any(String) },
        { categoryId: "2", name: "Amazon UK", notes: expect.any(String) },
        { categoryId: "3501", name: "Steam UK", notes: expect.any(String) },
      ]),
    );
    expect(brands).toHaveLength(4);
  });

  it("lists a FIXED product's denominations, priced in USD with fee and discount", async () => {
    const cards = await adapter().catalogue(AMAZON_US);
    expect(cards!.map((card) => card.cardId)).toEqual(["10", "25", "50", "100"]);
    expect(cards![1]).toEqual({ cardId: "25", name: "25 USD", costMicro: fromUsd(25 + 0.5 - 0.225), stock: 10, minQuantity: 1, maxQuantity: 10 });
    // A card in pounds costs its sender denomination in USD.
    const uk = await adapter().catalogue("2");
    expect(uk!.find((card) => card.cardId === "20")).toMatchObject({ name: "20 GBP", costMicro: fromUsd(27 + 0.5 - 0.189) });
  });

  it("offers a RANGE product as its bounds and the round steps between", async () => {
    const steam = await adapter().catalogue("3501");
    expect(steam!.map((card) => card.cardId)).toEqual(["5", "10", "15", "20", "25", "30", "50", "75", "100", "150", "200"]);
    expect(steam!.find((card) => card.cardId === "50")!.costMicro).toBe(fromUsd(63.5 + 0.3 + 0.635));
  });

  it("knows no unknown product", async () => {
    expect(await adapter().catalogue("999999")).toBeNull();
    expect(await adapter().catalogue("not-a-product")).toBeNull();
  });
});

describe("orders", () => {
  it("completes an order with one code per card, charged what the catalogue said", async () => {
    const reloadly = adapter();
    const before = await reloadly.balance();
    expect(before.currencyCode).toBe("USD");
    const cost = (await reloadly.catalogue(AMAZON_US))!.find((card) => card.cardId === "25")!.costMicro;
    const done = await reloadly.order(order(undefined, "25", 2));
    expect(done).toMatchObject({ kind: "completed", providerStatus: "SUCCESSFUL", providerOrderId: expect.stringMatching(/^\d+$/) });
    expect(codesOf(done)).toHaveLength(2);
    expect(codesOf(done)![0]).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){3} PIN \d{6}$/);
    const after = await reloadly.balance();
    expect(fromUsd(before.amount - after.amount)).toBe(2 * cost);
  });

  it("orders a RANGE card at its face value", async () => {
    expect(await adapter().order(order(undefined, "50", 1, "3501"))).toMatchObject({ kind: "completed", codes: [expect.any(String)] });
  });

  it("reports a failed order as failed, and a refused one as failed without an order", async () => {
    const failing = adapter({ recipientEmail: "fail_buyer@example.com" });
    const reference = randomUUID();
    expect(await failing.order(order(reference))).toMatchObject({ kind: "failed", providerStatus: "FAILED", reason: "provider_error" });
    expect(await failing.status(reference)).toMatchObject({ kind: "failed", providerStatus: "FAILED" });
    // A price the product does not sell: Reloadly's 400, nothing taken.
    const refused = randomUUID();
    expect(await adapter().order(order(refused, "26"))).toMatchObject({
      kind: "failed",
      reason: "provider_error",
      error: expect.stringContaining("Invalid price"),
    });
    expect(await adapter().status(refused)).toEqual({ kind: "not_found" });
  });

  it("says a short wallet is the provider's balance", async () => {
    const reloadly = adapter();
    const { amount } = await reloadly.balance();
    await control("/reloadly/control/balance", { environment: "sandbox", balance: 1 });
    try {
      expect(await reloadly.order(order())).toMatchObject({ kind: "failed", reason: "provider_balance" });
    } finally {
      await control("/reloadly/control/balance", { environment: "sandbox", balance: amount });
    }
  });

  it("leaves a processing order pending until its codes are ready", async () => {
    const slow = adapter({ recipientEmail: "slow_buyer@example.com" });
    const reference = randomUUID();
    expect(await slow.order(order(reference))).toMatchObject({ kind: "pending", providerStatus: "PROCESSING" });
    const done = await settled(() => slow.status(reference));
    expect(done).toMatchObject({ kind: "completed", providerStatus: "SUCCESSFUL", codes: [expect.any(String)] });
  });

  it("follows a pending order to its end, whichever it is", async () => {
    const pending = adapter({ recipientEmail: "pending_buyer@example.com" });
    const ok = randomUUID();
    const first = await pending.order(order(ok));
    expect(first).toMatchObject({ kind: "pending", providerStatus: "PENDING" });
    expect(await pending.status(ok)).toMatchObject({ kind: "pending" });
    await control(`/reloadly/control/transactions/${(first as { providerOrderId: string }).providerOrderId}/settle`, { status: "SUCCESSFUL" });
    expect(await pending.status(ok)).toMatchObject({ kind: "completed", codes: [expect.any(String)] });

    const refunded = randomUUID();
    const second = await pending.order(order(refunded));
    await control(`/reloadly/control/transactions/${(second as { providerOrderId: string }).providerOrderId}/settle`, { status: "REFUNDED" });
    expect(await pending.status(refunded)).toMatchObject({ kind: "failed", providerStatus: "REFUNDED" });
  });

  it("never orders twice for one reference: a repeat answers the first order", async () => {
    const reloadly = adapter();
    const reference = randomUUID();
    const first = await reloadly.order(order(reference));
    const before = await reloadly.balance();
    const again = await reloadly.order(order(reference));
    expect(again).toEqual(first);
    expect((await reloadly.balance()).amount).toBe(before.amount);
  });

  it("reports a lost answer as unknown, then finds the order by its reference", async () => {
    const reloadly = adapter({ timeoutMs: 500 });
    const before = await reloadly.balance();
    await control("/control/faults", { provider: "reloadly", mode: "hang_after_accept" });
    const reference = randomUUID();
    expect(await reloadly.order(order(reference))).toMatchObject({ kind: "unknown" });
    const found = await reloadly.status(reference);
    expect(found).toMatchObject({ kind: "completed", codes: [expect.any(String)] });
    // Charged once, and a repeat by the same reference does not order again.
    const charged = (await reloadly.balance()).amount;
    expect(charged).toBeLessThan(before.amount);
    expect(await reloadly.order(order(reference))).toEqual(found);
    expect((await reloadly.balance()).amount).toBe(charged);
  });

  it("reports a dropped order as unknown, and then as never received", async () => {
    const reloadly = adapter({ timeoutMs: 500 });
    await control("/control/faults", { provider: "reloadly", mode: "drop_next" });
    const reference = randomUUID();
    expect(await reloadly.order(order(reference))).toMatchObject({ kind: "unknown" });
    expect(await reloadly.status(reference)).toEqual({ kind: "not_found" });
  });

  it("fails an order Reloadly cannot be reached for, and knows no reference it never got", async () => {
    const reloadly = adapter();
    await control("/control/faults", { provider: "reloadly", mode: "down" });
    try {
      expect(await reloadly.order(order())).toMatchObject({ kind: "failed", reason: "provider_unavailable" });
      expect(await reloadly.ready()).toBe(false);
    } finally {
      await control("/control/faults", { provider: "reloadly", mode: "ok" });
    }
    expect(await reloadly.status(randomUUID())).toEqual({ kind: "not_found" });
  });
});

describe("the token", () => {
  const tokenCalls = () => calls.filter((call) => call.path.endsWith("/oauth/token")).length;

  it("is fetched once and reused, then fetched again when Reloadly says it expired", async () => {
    const reloadly = adapter();
    const start = tokenCalls();
    await reloadly.balance();
    await reloadly.catalogue(AMAZON_US);
    expect(tokenCalls() - start).toBe(1);
    await control("/reloadly/control/tokens/expire");
    expect(await reloadly.catalogue(AMAZON_US)).toHaveLength(4);
    expect(tokenCalls() - start).toBe(2);
    expect(await reloadly.order(order())).toMatchObject({ kind: "completed" });
    expect(tokenCalls() - start).toBe(2);
  });

  it("is fetched again shortly before expires_in runs out", async () => {
    let now = 0;
    const reloadly = adapter({ now: () => now });
    const start = tokenCalls();
    await reloadly.balance();
    now = (5_184_000 - 10 * 60) * 1000;
    await reloadly.balance();
    expect(tokenCalls() - start).toBe(1);
    now = (5_184_000 - 60) * 1000;
    await reloadly.balance();
    expect(tokenCalls() - start).toBe(2);
  });

  it("is refused for wrong credentials: reads fail, orders fail without being sent", async () => {
    const wrong = adapter({ clientSecret: "wrong" });
    await expect(wrong.balance()).rejects.toThrow(/INVALID_CREDENTIALS/);
    expect(await wrong.ready()).toBe(false);
    expect(await wrong.order(order())).toMatchObject({ kind: "failed", reason: "provider_unavailable" });
  });
});

describe("the balance", () => {
  it("reads the wallet of the adapter's environment and makes it ready", async () => {
    await control("/reloadly/control/balance", { environment: "production", balance: 12.5 });
    const live = adapter({
      environment: "production",
      clientId: CREDENTIALS.production.clientId,
      clientSecret: CREDENTIALS.production.clientSecret,
      giftcardsUrl: `${simulator.url}/reloadly/giftcards`,
    });
    expect(await live.balance()).toEqual({ amount: 12.5, currencyCode: "USD" });
    expect(await live.ready()).toBe(true);
    expect((await adapter().balance()).amount).toBeGreaterThan(12.5);
  });
});
