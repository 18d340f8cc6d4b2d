import pino from "pino";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { allProvidersAt } from "../../src/simulator/settings.js";
import { createHealth } from "../../src/core/health.js";
import { createHealthProbe } from "../../src/jobs/health-probe.js";
import { openUpstream } from "../../src/upstream/products.js";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

// GET /v1/health answers from the last round of probes, made on a schedule and shared by every instance
// through the database: a flood of health requests costs the providers nothing (issue 19).

let h: Harness;
useHarness({ env: { HEALTH_PROBE_MS: "1000" } }, (started) => (h = started));

/** Every product's port at the harness's simulator, as another instance would open them. */
function openPorts(log: pino.Logger) {
  const config = loadConfig({ UPSTREAM: "external", ...allProvidersAt(h.simulatorUrl) });
  const telegram = { find: async () => null };
  return openUpstream({ ...config, rates: config.rates.backend, formerOrders: [], telegram, timeoutMs: 1000, log, onCall: () => {} });
}

/** How many health probes the simulated gateway has answered. */
async function gatewayProbes(): Promise<number> {
  const response = await request(`${h.simulatorUrl}/control/requests`);
  const { requests } = (await response.body.json()) as { requests: Record<string, number> };
  return requests["GET /gateway/health"] ?? 0;
}

describe("health", () => {
  it("answers 50 requests in a row from the last round: the providers are probed on a schedule, not per request", async () => {
    expect((await h.call("GET", "/v1/health")).body.gateway_ready).toBe(true);
    const before = await gatewayProbes();
    const started = Date.now();
    for (let i = 0; i < 50; i += 1) expect((await h.call("GET", "/v1/health")).status).toBe(200);
    const rounds = (await gatewayProbes()) - before;
    // At most the rounds the schedule (one a second) made meanwhile, and never one per request.
    expect(rounds).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / 1000) + 1);
    expect(rounds).toBeLessThan(5);
  });

  it("shows a provider going down, and back, within a few seconds", async () => {
    await h.fault("gateway", "down");
    try {
      await eventually(async () => ((await h.call("GET", "/v1/health")).body.gateway_ready === false ? true : undefined), 5000);
    } finally {
      await h.fault("gateway", "ok");
    }
    await eventually(async () => ((await h.call("GET", "/v1/health")).body.gateway_ready === true ? true : undefined), 5000);
  });

  it("reports nothing ready once its last round is too old to answer from", async () => {
    let now = new Date("2026-01-01T00:00:00.000Z");
    const log = pino({ level: "silent" });
    const { ports, close } = openPorts(log);
    try {
      const board = createHealth({ db: h.service.db, ports, storeEnabled: true, staleAfterMs: 5000, now: () => now });
      board.publish(await board.probe(), now);
      now = new Date(now.getTime() + 5000);
      expect(await board.current()).toMatchObject({ databaseReady: true, ready: { stars: true, premium: true } });
      now = new Date(now.getTime() + 1);
      expect(await board.current()).toMatchObject({ databaseReady: false, ready: { stars: false, store: false } });
    } finally {
      await close();
    }
  });

  it("makes one round per interval for every instance sharing the database", async () => {
    // A second instance's board and job, with providers of its own, over the same database.
    const log = pino({ level: "silent" });
    const { ports, close } = openPorts(log);
    const second = createHealth({ db: h.service.db, ports, storeEnabled: true, staleAfterMs: 10_000, now: () => h.clock.now() });
    const jobs = [
      createHealthProbe({ db: h.service.db, clock: h.clock, health: h.service.core.health, intervalMs: 1000, log }),
      createHealthProbe({ db: h.service.db, clock: h.clock, health: second, intervalMs: 1000, log }),
    ];
    try {
      const before = await gatewayProbes();
      // Each step is a new interval; both instances' passes run at once in each.
      for (let step = 1; step <= 4; step += 1) {
        h.clock.advance(1_500);
        await Promise.all(jobs.map((job) => job.runOnce()));
      }
      // The service's own job may have made a round meanwhile too; never one per instance per interval.
      expect((await gatewayProbes()) - before).toBeGreaterThanOrEqual(4);
      expect((await gatewayProbes()) - before).toBeLessThanOrEqual(6);
      expect((await second.current()).ready.stars).toBe(true);
    } finally {
      h.clock.reset();
      await close();
    }
  });
});
