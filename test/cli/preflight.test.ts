import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin.js";
import { allProvidersAt, simulatedReloadly } from "../../src/config.js";
import { EmulatedStars } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { startSimulator } from "../../src/simulator/server.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { TEST_BOT_TOKEN } from "../support/harness.js";

// `npm run admin -- preflight` as an operator runs it before going live: every configured backend asked over HTTP
// (the simulator playing the protocol's providers, Reloadly and Crypto Pay; the emulator playing the Bot API).

let simulator: Awaited<ReturnType<typeof startSimulator>>;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let database: TestDatabase;
let stars: EmulatedStars;

beforeAll(async () => {
  simulator = await startSimulator(0, { timeScale: 0.01 });
  emulator = await startEmulator();
  database = await testDatabase();
  stars = new EmulatedStars(emulator.url);
});
afterAll(async () => {
  await database.drop();
  await simulator.app.close();
  await emulator.app.close();
});

const live = () => ({
  DATABASE_URL: database.url,
  ...database.env,
  UPSTREAM: "external",
  ...allProvidersAt(simulator.url),
  ...simulatedReloadly(simulator.url, "sandbox"),
  PREMIUM_BACKEND: "telegram",
  GIFTS_BACKEND: "telegram",
  GIFTCARDS_BACKEND: "reloadly",
  BOT_TOKEN: TEST_BOT_TOKEN,
  TELEGRAM_API_ROOT: emulator.url,
  CRYPTO_PAY_URL: `${simulator.url}/cryptopay`,
  CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN,
});

async function preflight(env: Record<string, string | undefined>): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runAdmin(["preflight"], { env, out: (line) => lines.push(...line.split("\n")), err: (line) => lines.push(line) });
  return { code, lines };
}
/** The line whose subject (between the verdict and the text, each set off by two spaces) is `subject`. */
const line = (lines: string[], subject: string) => lines.find((l) => /^\w+\s+(.+?)  /.exec(l)?.[1] === subject) ?? "";

describe("preflight", () => {
  it("passes with every backend answering and funded, and prints each balance", async () => {
    await stars.setBalance(5_000);
    const { code, lines } = await preflight(live());
    expect(code).toBe(0);
    expect(line(lines, "bot")).toMatch(/^ok\s+bot\s+@\w+/);
    expect(line(lines, "gifts (telegram)")).toMatch(/^ok .*7 gifts on sale, balance 5000 stars/);
    expect(line(lines, "premium (telegram)")).toMatch(/^ok .*balance 5000 stars/);
    expect(line(lines, "giftcards (reloadly)")).toMatch(/^ok .*\d+ brands, balance \d+\.\d\d USD/);
    expect(line(lines, "crypto pay")).toMatch(/^ok/);
    expect(lines.at(-1)).toBe("ready: nothing failed");
  });

  it("fails on a bot with no Stars and on refused Reloadly credentials, and warns under an alert line", async () => {
    await stars.setBalance(0);
    const broken = await preflight({ ...live(), RELOADLY_CLIENT_SECRET: "not-the-right-secret" });
    expect(broken.code).toBe(1);
    expect(line(broken.lines, "gifts (telegram)")).toMatch(/^fail .*balance 0 stars: it cannot pay for a single delivery/);
    expect(line(broken.lines, "giftcards (reloadly)")).toMatch(/^fail/);
    expect(broken.lines.at(-1)).toMatch(/check\(s\) failed: not ready to sell/);
    await stars.setBalance(1_800);
    const low = await preflight(live());
    expect(low.code).toBe(0);
    expect(line(low.lines, "gifts (telegram)")).toMatch(/^warn .*under the alert line of 2500/);
  });

  it("names the variable a chosen backend lacks, opening nothing", async () => {
    const { code, lines } = await preflight({ ...live(), BOT_TOKEN: undefined, RELOADLY_CLIENT_ID: undefined });
    expect(code).toBe(1);
    expect(lines.join("\n")).toContain("BOT_TOKEN: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram");
    expect(lines.join("\n")).toContain("RELOADLY_CLIENT_ID: is required by GIFTCARDS_BACKEND=reloadly");
  });
});
