import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_ARGS } from "../../bench/processes.js";
import { startEmulator } from "../../src/emulator/server.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { TEST_BOT_TOKEN, eventually } from "../support/harness.js";
import { slowTelegram } from "../support/bot-replies.js";
import { freePort, http, kill, startServiceProcess } from "../support/processes.js";

// The ordered start of the real service process: the jobs, the API's listener, the metrics' listener, the bot. A
// step that throws stops the steps begun, in reverse, and the process exits non-zero saying why.

let emulator: Awaited<ReturnType<typeof startEmulator>>;
let database: TestDatabase;
beforeAll(async () => {
  emulator = await startEmulator();
  database = await testDatabase();
});
afterAll(async () => {
  await emulator?.app.close();
  await database?.drop();
});

/** A listener on a free loopback port, standing for another program that holds it. */
async function listener(port = 0): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return server;
}

const closed = (server: Server) => new Promise((resolve) => server.close(resolve));

describe("the service's start", () => {
  it("with its PORT taken: says why, stops the jobs it had started, and exits 1, the bot never polling", async () => {
    const taken = await listener();
    const port = (taken.address() as { port: number }).port;
    const proc = spawn(process.execPath, START_ARGS, {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        ...database.env,
        PORT: String(port),
        METRICS_PORT: "0",
        SIMULATOR_PORT: "0",
        BOT_TOKEN: TEST_BOT_TOKEN,
        TELEGRAM_API_ROOT: emulator.url,
        TELEGRAM_API_EMULATOR: "true",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    proc.stdout.on("data", (chunk) => output.push(String(chunk)));
    proc.stderr.on("data", (chunk) => output.push(String(chunk)));
    try {
      const spawned = Date.now();
      const code = await new Promise<number | null>((resolve, reject) => {
        const late = setTimeout(() => reject(new Error(`still running after 20 s: ${output.join("")}`)), 20_000);
        proc.once("exit", (exitCode) => {
          clearTimeout(late);
          resolve(exitCode);
        });
      });
      const text = output.join("");
      expect(code, text).toBe(1);
      const lines = text
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; step?: string });
      const messages = lines.map((line) => line.msg);
      // The jobs started before the API's step failed; the failure names the step and the reason.
      const failed = lines.find((line) => line.step === "api");
      expect(failed?.msg, text).toBe("could not start api: stopping the steps started, in reverse");
      expect(text).toContain("EADDRINUSE");
      // The steps begun were stopped (the graceful stop, everything finished); the bot's step was never reached.
      expect(messages.indexOf("stopped: everything under way finished")).toBeGreaterThan(messages.indexOf(failed!.msg));
      expect(messages).not.toContain("bot polling");
      expect(text).toContain("not started: could not start api");
      console.log(`PORT taken: exited ${code} ${Date.now() - spawned} ms after the spawn`);
    } finally {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
      await closed(taken);
    }
  }, 30_000);

  it("with METRICS_PORT taken: says so at level error, naming the port, and serves the API without metrics", async () => {
    const taken = await listener();
    const metricsPort = (taken.address() as { port: number }).port;
    const service = await startServiceProcess(
      { DATABASE_URL: database.url, ...database.env, METRICS_PORT: String(metricsPort), SIMULATOR_PORT: "0" },
      await freePort(),
      true,
    );
    try {
      expect((await http("GET", `${service.base}/livez`)).status).toBe(200);
      const lines = () =>
        service.output
          .join("")
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as { level: number; msg: string; port?: number; metrics?: string });
      const refused = await eventually(async () => lines().find((line) => line.msg.startsWith("metrics not served")));
      expect(refused).toMatchObject({ level: 50, port: metricsPort });
      expect(refused.msg).toContain(`port ${metricsPort} is not available`);
      const started = await eventually(async () => lines().find((line) => line.msg === "started"));
      expect(started.metrics).toBe(`not served: port ${metricsPort} is not available`);
    } finally {
      await kill(service.proc);
      await closed(taken);
    }
  }, 30_000);

  it("with SIGTERM during a slow start (Telegram slow to answer getMe): stops what had begun and exits 0, never polling", async () => {
    await slowTelegram(emulator.url, 20_000, "getMe", "at-once");
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      SIMULATOR_PORT: "0",
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.url,
      TELEGRAM_API_EMULATOR: "true",
    };
    // The API's step comes before the bot's: it answers while the bot's step waits for getMe.
    const service = await startServiceProcess(env, await freePort(), true);
    try {
      const exited = new Promise<number | null>((resolve) => service.proc.once("exit", (code) => resolve(code)));
      service.proc.kill("SIGTERM");
      const code = await exited;
      const text = service.output.join("");
      expect(code, text).toBe(0);
      expect(text).toContain("stopping: no new requests or updates");
      expect(text).not.toContain("bot polling");
    } finally {
      await kill(service.proc);
      await slowTelegram(emulator.url, 0, "getMe");
    }
  }, 30_000);
});
