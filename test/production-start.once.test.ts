import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_BOT_TOKEN } from "./harness.js";
import { testDatabase, type TestDatabase } from "./databases.js";
import { startEmulator } from "../src/emulator/server.js";
import { EmulatedChat } from "../src/emulator/client.js";
import { COMPILED, freePort, http, kill, type ServiceProcess, startServiceProcess } from "./processes.js";

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
  it("builds to JavaScript and runs it: the API, the in-process simulator and the bot (with its locales)", async () => {
    await exec("npm", ["run", "-s", "build"], { timeout: 120_000 });
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
      },
      port,
      true,
      COMPILED,
    );
    const health = await http("GET", `${service.base}/v1/health`);
    expect(health.body).toMatchObject({ success: true, db_ready: true, gateway_ready: true });
    const chat = new EmulatedChat(emulator.url, { id: 880_000_001, first_name: "Compiled", language_code: "ru" });
    expect((await chat.reply("/start", (t) => t.includes("sj_"))).text).toContain("Добро пожаловать");
  }, 150_000);
});
