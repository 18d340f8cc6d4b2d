import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin.js";
import { allProvidersAt, simulatedReloadly } from "../../src/simulator/settings.js";
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
  STAR_COST_USDT: "0.01",
  GIFTCARDS_BACKEND: "reloadly",
  BOT_TOKEN: TEST_BOT_TOKEN,
  TELEGRAM_API_ROOT: emulator.url,
  TELEGRAM_API_EMULATOR: "true",
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
    // Premium from the bot's empty Stars fails on its own line; stars, on the gateway that answers, stay ok.
    expect(line(broken.lines, "premium (telegram)")).toMatch(/^fail .*balance 0 stars: it cannot pay for a single delivery/);
    expect(line(broken.lines, "stars (protocol)")).toMatch(/^ok\s+stars \(protocol\)  answers$/);
    expect(line(broken.lines, "giftcards (reloadly)")).toMatch(/^fail/);
    expect(broken.lines.at(-1)).toMatch(/check\(s\) failed: not ready to sell/);
    await stars.setBalance(1_800);
    const low = await preflight(live());
    expect(low.code).toBe(0);
    expect(line(low.lines, "gifts (telegram)")).toMatch(/^warn .*under the alert line of 2500/);
  });

  it("prints each Star-paid product's margin, and refuses a tariff at or below what its Stars cost", async () => {
    await stars.setBalance(5_000);
    const { code, lines } = await preflight({ ...live(), STAR_COST_USDT: "0.0105" });
    expect(code).toBe(0);
    expect(line(lines, "margin gifts")).toBe("ok    margin gifts  0.015 USDT a star, its Stars cost 0.0105: margin 0.0045 USDT (30.0%)");
    expect(line(lines, "margin premium 3 months")).toBe(
      "ok    margin premium 3 months  11.99 USDT for 1000 stars, its Stars cost 10.50: margin 1.49 USDT (12.4%)",
    );
    expect(line(lines, "margin premium 6 months")).toMatch(/15\.99 USDT for 1500 stars, its Stars cost 15\.75: margin 0\.24 USDT \(1\.5%\)$/);
    expect(line(lines, "margin premium 12 months")).toMatch(/28\.99 USDT for 2500 stars, its Stars cost 26\.25: margin 2\.74 USDT \(9\.5%\)$/);
    const loss = await preflight({ ...live(), STAR_COST_USDT: "0.012" });
    expect(loss.code).toBe(1);
    expect(loss.lines.join("\n")).toMatch(/^fail  configuration  invalid configuration:/);
    for (const name of ["PREMIUM_USDT_3", "PREMIUM_USDT_6", "PREMIUM_USDT_12"]) expect(loss.lines.join("\n")).toContain(`${name}: (`);
    expect(loss.lines.join("\n")).not.toContain("STARS_USDT_PER_STAR");
    const unset = await preflight({ ...live(), STAR_COST_USDT: undefined });
    expect(unset.lines.join("\n")).toContain("STAR_COST_USDT: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram");
  });

  it("prints no secret when the Bot API, Reloadly and Crypto Pay cannot be reached", async () => {
    // A port nothing listens on: every call to it is refused.
    const closed = await startEmulator();
    const gone = closed.url;
    await closed.app.close();
    const secrets = {
      BOT_TOKEN: "123456:AAsecret-bot-token-never-printed",
      CRYPTO_PAY_TOKEN: "12345:AAcryptoPaySecretNeverPrinted",
      RELOADLY_CLIENT_SECRET: "reloadly-secret-never-printed",
      BOT_WEBHOOK_SECRET: "webhook-secret-never-printed",
      METRICS_TOKEN: "metrics-token-never-printed",
    };
    const { code, lines } = await preflight({
      ...live(),
      ...secrets,
      TELEGRAM_API_ROOT: gone,
      CRYPTO_PAY_URL: `${gone}/cryptopay`,
      RELOADLY_AUTH_URL: `${gone}/reloadly/auth`,
      RELOADLY_GIFTCARDS_URL: `${gone}/reloadly/giftcards-sandbox`,
      BOT_WEBHOOK_URL: `${gone}/telegram/webhook`,
    });
    expect(code).toBe(1);
    expect(line(lines, "bot")).toMatch(/^fail\s+bot\s+the Bot API at 127\.0\.0\.1:\d+ does not answer/);
    expect(line(lines, "gifts (telegram)")).toMatch(/^fail/);
    expect(line(lines, "premium (telegram)")).toMatch(/^fail/);
    expect(line(lines, "stars (protocol)")).toMatch(/^ok/);
    const printed = lines.join("\n");
    for (const [name, secret] of Object.entries(secrets)) {
      expect(printed, name).not.toContain(secret);
      // Nor the part after the bot id, which is the secret half of a bot token.
      expect(printed, name).not.toContain(secret.split(":").at(-1));
    }
  });

  it("names the variable a chosen backend lacks, opening nothing", async () => {
    const { code, lines } = await preflight({ ...live(), BOT_TOKEN: undefined, RELOADLY_CLIENT_ID: undefined });
    expect(code).toBe(1);
    expect(lines.join("\n")).toContain("BOT_TOKEN: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram");
    expect(lines.join("\n")).toContain("RELOADLY_CLIENT_ID: is required by GIFTCARDS_BACKEND=reloadly");
  });
});
