import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_BOT_TOKEN } from "../support/harness.js";
import { testDatabase, type TestDatabase } from "../support/databases.js";
import { startEmulator } from "../../src/emulator/server.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const exec = promisify(execFile);
let database: TestDatabase | undefined;
let service: ServiceProcess | undefined;
let emulator: Awaited<ReturnType<typeof startEmulator>> | undefined;
afterAll(async () => {
  if (service) await kill(service.proc);
  await emulator?.app.close();
  await database?.drop();
});

describe("the production start", () => {
  // The build itself is made once per run, before any file, by test/support/global-setup.ts (a failed build
  // fails the run); this runs what it made.
  it("builds to JavaScript and runs it: the API, the in-process simulator and the bot (with its locales)", async () => {
    database = await testDatabase();
    emulator = await startEmulator();
    const port = await freePort();
    service = await startServiceProcess(
      {
        DATABASE_URL: database.url,
        ...database.env,
        SIMULATOR_PORT: "0",
        LOG_LEVEL: "warn",
        BOT_TOKEN: TEST_BOT_TOKEN,
        TELEGRAM_API_ROOT: emulator.url,
        TELEGRAM_API_EMULATOR: "true",
      },
      port,
      true,
    );
    const health = await http("GET", `${service.base}/v1/health`);
    expect(health.body).toMatchObject({ success: true, db_ready: true, gateway_ready: true });
    const chat = new EmulatedChat(emulator.url, { id: 880_000_001, first_name: "Compiled", language_code: "ru" });
    expect((await chat.reply("/start", (t) => t.includes("sj_"))).text).toContain("Добро пожаловать");
  }, 150_000);
});

describe("nothing simulated beside a real credential", () => {
  it("refuses to start the embedded simulator beside a real bot token, saying why, and never listens", async () => {
    const refused = await exec(process.execPath, ["dist/src/main.js"], {
      env: { ...process.env, DATABASE_URL: join(tmpdir(), "never-made.db"), BOT_TOKEN: "7000000001:AAreal-looking-token-from-botfather", PORT: "0" },
      timeout: 30_000,
    }).then(
      () => ({ code: 0, stdout: "", stderr: "" }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused.code).toBe(1);
    // One JSON line on the log's stream, naming every bad variable.
    expect(refused.stderr).toBe("");
    const [line, ...more] = refused.stdout.trim().split("\n");
    expect(more).toEqual([]);
    const said = JSON.parse(line) as { level: number; msg: string; problems: string[] };
    expect(said).toMatchObject({ level: 60, msg: "not started: invalid configuration" });
    expect(said.problems.join("\n")).toContain("BOT_TOKEN: is a real bot's");
    expect(said.problems.join("\n")).toContain("anyone could forge a payment");
  });
});

const dir = mkdtempSync(join(tmpdir(), "partner-bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The benchmark is not a test; this only keeps it working, running every part of it for a moment, on the
// build the global setup made.
describe("npm run bench -- --smoke", () => {
  it("measures every row beside the ceiling, the growth, the reconciler, the bot and the Mini App's first goods, and writes the table and its JSON twin", async () => {
    // `npm run bench` is the build (made by the global setup) and then this.
    const { stdout } = await exec(process.execPath, ["--import", "tsx", "bench/run.ts", "--smoke"], {
      env: { ...process.env, BENCH_RESULTS_DIR: dir, DATABASE_URL: "" },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain("| GET /v1/balance |");
    const files = readdirSync(dir);
    expect(files.filter((f) => f.endsWith(".md"))).toHaveLength(1);
    const result = JSON.parse(
      readFileSync(
        join(
          dir,
          files.find((f) => f.endsWith(".json"))!,
        ),
        "utf8",
      ),
    );
    expect(result.rows.map((r: { name: string }) => r.name)).toEqual([
      "floor: key hashed + one indexed read",
      "GET /v1/health",
      "GET /v1/balance",
      "GET /v1/pricing",
      "POST /test/v1/stars",
      "POST /v1/stars",
      "POST /v1/stars, replayed",
      "GET /v1/orders?limit=20",
      "GET /v1/orders/{id}",
      "POST /v1/store (instant upstream)",
      "POST /v1/giftcards/{brand}/order",
      "gift card order + status",
    ]);
    for (const row of result.rows) {
      expect(row.rps, row.name).toBeGreaterThan(0);
      expect(row.ceilingRps, row.name).toBeGreaterThan(0);
      expect(row.errors, row.name).toBe(0);
    }
    // Each row beside the floor, and the guard beside the committed run.
    expect(stdout).toMatch(/\| GET \/v1\/balance \| \d+ \| [\d.]+ % \| [\d.]+ % \|/);
    expect(stdout).toContain("Against the previous committed run");
    expect(result.growth).toHaveLength(2);
    expect(result.queryPlans.join(" ")).toMatch(/orders_account_newest/);
    expect(result.reconciler.perSecond).toBeGreaterThan(0);
    expect(result.bot.cpuPerUpdateMs).toBeGreaterThan(0);
    // The Mini App: its weight as sent (the build's brotli twins), and one first open timed to the first goods.
    expect(result.miniApp.brotliBytes).toBeGreaterThan(0);
    expect(result.miniApp.brotliBytes).toBeLessThan(result.miniApp.bytes / 2);
    expect(result.miniApp.networks).toMatchObject([{ network: "loopback", opens: 1 }]);
    expect(result.miniApp.networks[0].first.median).toBeGreaterThan(0);
    expect(stdout).toContain("First goods tile painted");
  }, 300_000);
});

// The A/B tool (bench/ab.ts), likewise only kept working: this build against itself, for a moment.
describe("npm run bench:ab -- --smoke", () => {
  it("measures two builds in alternating rounds on copies of one seeded database and prints each request's change", async () => {
    const { stdout } = await exec(
      process.execPath,
      ["--import", "tsx", "bench/ab.ts", ".", ".", "--smoke", "--paths", "GET /v1/orders/{id},POST /v1/stars"],
      {
        env: { ...process.env, DATABASE_URL: "" },
        timeout: 180_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    for (const request of ["GET /v1/orders/{id}", "POST /v1/stars"]) {
      for (const build of ["before", "after"]) {
        // req/s twice, CPU µs, p99, and no errors: every request answered 2xx (an order of the key's own, a purchase).
        expect(stdout).toMatch(
          new RegExp(`\\| ${request.replace(/[/{}]/g, "\\$&")} \\| ${build} \\| [1-9]\\d* \\| [1-9]\\d* \\| [1-9]\\d* \\| \\d+ \\| 0 \\|`),
        );
      }
      expect(stdout).toMatch(new RegExp(`\\| ${request.replace(/[/{}]/g, "\\$&")} \\| after vs before \\| [+-][\\d.]+ % \\|`));
    }
  }, 200_000);
});
