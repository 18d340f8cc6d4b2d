import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDatabase, TEST_ENGINE, testDatabase } from "../support/databases.js";
import { eventually } from "../support/harness.js";
import { freePort, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// What an operator reads of an idle service: JSON lines only, the health probes' calls out of sight at info, one
// start line saying where the API, the metrics and the database are and what the start migrated, and a backend's
// state told once when it goes down and once when it is back.

interface Line {
  level: number;
  msg: string;
  [field: string]: unknown;
}

let database: TestDatabase;
beforeAll(async () => {
  database = await testDatabase();
});
afterAll(async () => {
  await database?.drop();
});

/** Every line the process printed (stdout and stderr), parsed; a line that is not JSON fails the test naming it. */
function linesOf(service: ServiceProcess): Line[] {
  return service.output
    .join("")
    .split("\n")
    .filter((text) => text.trim() !== "")
    .map((text) => {
      try {
        return JSON.parse(text) as Line;
      } catch {
        throw new Error(`a line that is not JSON: ${text}`);
      }
    });
}

/** Stops the process with SIGTERM (a graceful stop) and waits for it to exit. */
async function stop(service: ServiceProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => service.proc.once("exit", (code) => resolve(code)));
  service.proc.kill("SIGTERM");
  return exited;
}

async function simulator(url: string, path: string, body?: unknown) {
  const response = await fetch(
    `${url}${path}`,
    body ? { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {},
  );
  return (await response.json()) as { requests?: Record<string, number> };
}

const ENV = { SIMULATOR_PORT: "0", HEALTH_PROBE_MS: "100", LOG_LEVEL: "info" };

describe("the service's log, idle", () => {
  it("is JSON only, keeps probes at debug, says once where it started and what it migrated, and tells a backend's state changes", async () => {
    const port = await freePort();
    const service = await startServiceProcess({ DATABASE_URL: database.url, ...database.env, ...ENV }, port, true);
    try {
      const started = await eventually(async () => linesOf(service).find((line) => line.msg === "started"));
      expect(started.api).toBe(`http://127.0.0.1:${port}`);
      expect(started.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      if (TEST_ENGINE === "sqlite") expect(started.database).toEqual({ engine: "sqlite", file: database.url });
      else {
        const url = new URL(database.url);
        expect(started.database).toEqual({ engine: "postgresql", host: url.host, database: url.pathname.slice(1) });
      }
      // A new database: every migration is applied by this start, and named.
      expect(started.migrations).toEqual(expect.arrayContaining([expect.stringMatching(/^\d{4}/)]));
      const simulated = String(started.simulator);

      // Whole rounds of probes go by (counted where they land, the simulator), then a backend goes down and comes back.
      const probes = async () => (await simulator(simulated, "/control/requests")).requests?.["GET /store/health"] ?? 0;
      await eventually(async () => ((await probes()) >= 10 ? true : undefined));
      await simulator(simulated, "/control/faults", { provider: "store", mode: "down" });
      const down = await eventually(async () => linesOf(service).find((line) => line.msg.startsWith("backend down")));
      await simulator(simulated, "/control/faults", { provider: "store", mode: "ok" });
      const up = await eventually(async () => linesOf(service).find((line) => line.msg.startsWith("backend up again")));
      const afterUp = await probes();
      await eventually(async () => ((await probes()) >= afterUp + 5 ? true : undefined));
      expect(await stop(service)).toBe(0);

      const lines = linesOf(service);
      expect(lines.filter((line) => line.msg === "started")).toHaveLength(1);
      // No order was placed: no provider call at info (a probe's are at debug).
      expect(lines.filter((line) => line.msg === "provider call")).toEqual([]);
      expect(down).toMatchObject({ level: 40, products: ["store"], backend: "protocol", provider: "store", statusCode: 503 });
      expect(up).toMatchObject({ level: 30, products: ["store"], backend: "protocol" });
      expect(lines.filter((line) => line.msg.startsWith("backend "))).toHaveLength(2);
      // Idle, its whole log is a handful of lines however many probes ran.
      expect(lines.length, lines.map((line) => line.msg).join("\n")).toBeLessThan(15);
    } finally {
      await kill(service.proc);
    }

    // Started again on the same database: nothing to migrate, and it says so.
    const again = await startServiceProcess({ DATABASE_URL: database.url, ...database.env, ...ENV }, await freePort(), true);
    try {
      const started = await eventually(async () => linesOf(again).find((line) => line.msg === "started"));
      expect(started.migrations).toBe("schema up to date");
    } finally {
      await kill(again.proc);
    }
  }, 60_000);

  it("with the metrics off: the start line says so", async () => {
    const service = await startServiceProcess({ DATABASE_URL: database.url, ...database.env, ...ENV, METRICS_PORT: "off" }, await freePort(), true);
    try {
      const started = await eventually(async () => linesOf(service).find((line) => line.msg === "started"));
      expect(started.metrics).toBe("off");
    } finally {
      await kill(service.proc);
    }
  });
});
