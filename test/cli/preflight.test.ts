import { readFileSync } from "node:fs";
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

async function preflight(env: Record<string, string | undefined>, ...flags: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runAdmin(["preflight", ...flags], { env, out: (line) => lines.push(...line.split("\n")), err: (line) => lines.push(line) });
  return { code, lines };
}

/** An address nothing listens on: every call to it is refused. */
async function closedPort(): Promise<string> {
  const closed = await startEmulator();
  await closed.app.close();
  return closed.url;
}

/** Sets one of the simulator's faults (`down`: its provider answers 503) for the length of `work`. */
async function withFault<T>(provider: string, work: () => Promise<T>): Promise<T> {
  const set = (mode: string) =>
    fetch(`${simulator.url}/control/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ provider, mode }),
    });
  await set("down");
  try {
    return await work();
  } finally {
    await set("ok");
  }
}

/** What sells for real here: every protocol product at an address of its own, the bot on a Bot API server, no simulated credential. */
const real = () => ({
  DATABASE_URL: database.url,
  ...database.env,
  UPSTREAM: "external",
  ...allProvidersAt(simulator.url),
  PREMIUM_BACKEND: "telegram",
  GIFTS_BACKEND: "telegram",
  STAR_COST_USDT: "0.01",
  BOT_TOKEN: TEST_BOT_TOKEN,
  // A Bot API server on this machine not marked as the emulator: a real bot, as a self-hosted server would be.
  TELEGRAM_API_ROOT: emulator.url,
});

const PRODUCT_SUBJECTS = ["stars", "premium", "store", "games", "giftcards", "gifts"];
/** The line whose subject (between the verdict and the text, each set off by two spaces) is `subject`. */
const line = (lines: string[], subject: string) => lines.find((l) => /^\w+\s+(.+?)  /.exec(l)?.[1] === subject) ?? "";

describe("preflight", () => {
  it("says ready only when every product sells for real", async () => {
    await stars.setBalance(5_000);
    const { code, lines } = await preflight(real());
    expect(lines.filter((l) => /^(fail|sim)/.test(l))).toEqual([]);
    expect(code).toBe(0);
    expect(line(lines, "premium (telegram)")).toMatch(/^ok .*balance 5000 stars; at http:\/\/127\.0\.0\.1:\d+$/);
    expect(line(lines, "rates (protocol)")).toMatch(/^ok\s+rates \(protocol\)  1 TON = 5\.40 USD; at http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines.at(-1)).toBe("ready: every product sells for real, nothing failed");
  });

  it("on the defaults checks every product, the rates and Crypto Pay against a simulator, and says it is a rehearsal", async () => {
    const { code, lines } = await preflight({ DATABASE_URL: database.url, ...database.env });
    for (const product of PRODUCT_SUBJECTS)
      expect(line(lines, `${product} (protocol)`), product).toMatch(/^sim .*; at http:\/\/127\.0\.0\.1:\d+ \(simulated\)$/);
    expect(line(lines, "rates (protocol)")).toMatch(/^sim .*1 TON = 5\.40 USD/);
    // The simulated Crypto Pay is in use, and said so (not "unset").
    expect(line(lines, "crypto pay")).toMatch(/^sim .*\(simulated\)$/);
    expect(lines.some((l) => l.startsWith("ready"))).toBe(false);
    expect(lines.at(-1)).toBe(
      "rehearsal passed, not ready for real sales: stars, premium, store, games, giftcards, gifts, rates, Crypto Pay simulated",
    );
    expect(code).toBe(2);
  });

  it("under UPSTREAM=simulator rehearses the bot's Star balance on the emulator", async () => {
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      PREMIUM_BACKEND: "telegram",
      STAR_COST_USDT: "0.01",
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: emulator.url,
      TELEGRAM_API_EMULATOR: "true",
    };
    await stars.setBalance(3_000);
    const funded = await preflight(env);
    expect(line(funded.lines, "premium (telegram)")).toMatch(/^sim .*balance 3000 stars; at http:\/\/127\.0\.0\.1:\d+ \(simulated\)$/);
    expect(line(funded.lines, "bot")).toMatch(/^sim .*the Bot API emulator/);
    expect(funded.lines.at(-1)).toMatch(/^rehearsal passed, not ready for real sales: stars, premium, .*, Crypto Pay simulated; bot emulated$/);
    expect(funded.code).toBe(2);
    await stars.setBalance(0);
    const empty = await preflight(env);
    expect(line(empty.lines, "premium (telegram)")).toMatch(/^fail .*balance 0 stars: it cannot pay for a single delivery/);
    expect(empty.code).toBe(1);
  });

  it("tells a backend answering 503 from a closed port, naming the address asked and what was seen", async () => {
    await stars.setBalance(5_000);
    const gone = await closedPort();
    const { code, lines } = await withFault("store", () => preflight({ ...real(), GAMES_URL: gone }));
    expect(code).toBe(1);
    expect(line(lines, "store (protocol)")).toMatch(
      new RegExp(`^fail .*: GET ${simulator.url}/store/health: HTTP 503 \\{"error":"store unavailable \\(simulated\\)"\\}$`),
    );
    expect(line(lines, "games (protocol)")).toBe(
      `fail  games (protocol)  does not answer its health check: GET ${gone}/games/health: connection refused`,
    );
    expect(line(lines, "stars (protocol)")).toMatch(/^ok/);
    expect(lines.at(-1)).toBe("not ready: 2 check(s) failed (store (protocol), games (protocol))");
  });

  it("lists a configuration problem and a backend that is down together, and checks the rest", async () => {
    const gone = await closedPort();
    const { code, lines } = await preflight({ ...real(), TOPUP_MIN_USDT: "lots", GAMES_URL: gone, CRYPTO_PAY_URL: `${gone}/cryptopay` });
    expect(code).toBe(1);
    expect(line(lines, "config")).toMatch(/^fail\s+config  TOPUP_MIN_USDT: must be a USDT amount/);
    // Once, for what it is: not again by the checks across variables, which would read its raw text.
    expect(lines.filter((l) => l.includes("TOPUP_MIN_USDT"))).toHaveLength(1);
    // CRYPTO_PAY_URL without its token is a problem of its own: reported, and Crypto Pay left out rather than guessed.
    expect(lines).toContain("fail  config  CRYPTO_PAY_TOKEN: and CRYPTO_PAY_URL are set together (invoices need both) or not at all");
    expect(line(lines, "games (protocol)")).toMatch(/connection refused$/);
    expect(line(lines, "database")).toMatch(/^ok/);
    expect(line(lines, "stars (protocol)")).toMatch(/^ok/);
    expect(line(lines, "rates (protocol)")).toMatch(/^ok/);
    expect(lines.at(-1)).toMatch(/^not ready: \d check\(s\) failed \(config, games \(protocol\)\)/);
  });

  it("reports a database it cannot reach and still checks every backend", async () => {
    const gone = new URL(await closedPort());
    const { code, lines } = await preflight({
      ...real(),
      DATABASE_URL: `postgres://postgres:pw@${gone.host}/preflight`,
      CODES_KEY: "A".repeat(43) + "=",
    });
    expect(code).toBe(1);
    expect(line(lines, "database")).toBe(
      `fail  database  postgres://postgres@${gone.host}/preflight: The database cannot be reached: retry later (connection refused)`,
    );
    for (const product of ["stars (protocol)", "store (protocol)", "games (protocol)", "premium (telegram)", "rates (protocol)"])
      expect(line(lines, product), product).toMatch(/^(ok|warn) /);
  });

  it("answers in JSON with --json", async () => {
    const { code, lines } = await preflight({ DATABASE_URL: database.url, ...database.env }, "--json");
    const answer = JSON.parse(lines.join("\n")) as {
      outcome: string;
      exit_code: number;
      summary: string;
      not_real: Array<{ what: string; why: string }>;
      checks: Array<{ verdict: string; subject: string; text: string }>;
    };
    expect(code).toBe(2);
    expect(answer).toMatchObject({ outcome: "rehearsal", exit_code: 2 });
    expect(answer.summary).toMatch(/^rehearsal passed/);
    expect(answer.not_real).toContainEqual({ what: "Crypto Pay", why: "simulated" });
    expect(answer.checks.map((check) => check.subject)).toEqual(
      expect.arrayContaining(["database", "bot", "rates (protocol)", "crypto pay", ...PRODUCT_SUBJECTS.map((p) => `${p} (protocol)`)]),
    );
  });

  it("fails on a bot with no Stars and on refused Reloadly credentials, and warns under an alert line", async () => {
    await stars.setBalance(0);
    const broken = await preflight({ ...live(), RELOADLY_CLIENT_SECRET: "not-the-right-secret" });
    expect(broken.code).toBe(1);
    expect(line(broken.lines, "gifts (telegram)")).toMatch(/^fail .*balance 0 stars: it cannot pay for a single delivery/);
    // Premium from the bot's empty Stars fails on its own line; stars, on the gateway that answers, stay ok.
    expect(line(broken.lines, "premium (telegram)")).toMatch(/^fail .*balance 0 stars: it cannot pay for a single delivery/);
    expect(line(broken.lines, "stars (protocol)")).toMatch(/^ok\s+stars \(protocol\)  answers; at http:\/\/127\.0\.0\.1:\d+$/);
    expect(line(broken.lines, "giftcards (reloadly)")).toMatch(/^fail .*: POST http:\/\/127\.0\.0\.1:\d+\/reloadly\/auth\/oauth\/token: HTTP 401/);
    expect(broken.lines.at(-1)).toMatch(/^not ready: 3 check\(s\) failed/);
    await stars.setBalance(1_800);
    const low = await preflight(live());
    expect(low.code).toBe(2);
    expect(line(low.lines, "gifts (telegram)")).toMatch(/^warn .*under the alert line of 2500/);
    expect(low.lines.at(-1)).toBe("rehearsal passed, not ready for real sales: premium, giftcards, gifts, Crypto Pay simulated; bot emulated");
  });

  it("prints each Star-paid product's margin, and refuses a tariff at or below what its Stars cost", async () => {
    await stars.setBalance(5_000);
    const { code, lines } = await preflight({ ...live(), STAR_COST_USDT: "0.0105" });
    expect(code).toBe(2);
    expect(line(lines, "margin gifts")).toBe("ok    margin gifts  0.015 USDT a star, its Stars cost 0.0105: margin 0.0045 USDT (30.0%)");
    expect(line(lines, "margin premium 3 months")).toBe(
      "ok    margin premium 3 months  11.99 USDT for 1000 stars, its Stars cost 10.50: margin 1.49 USDT (12.4%)",
    );
    expect(line(lines, "margin premium 6 months")).toMatch(/15\.99 USDT for 1500 stars, its Stars cost 15\.75: margin 0\.24 USDT \(1\.5%\)$/);
    expect(line(lines, "margin premium 12 months")).toMatch(/28\.99 USDT for 2500 stars, its Stars cost 26\.25: margin 2\.74 USDT \(9\.5%\)$/);
    const loss = await preflight({ ...live(), STAR_COST_USDT: "0.012" });
    expect(loss.code).toBe(1);
    for (const name of ["PREMIUM_USDT_3", "PREMIUM_USDT_6", "PREMIUM_USDT_12"])
      expect(loss.lines).toContainEqual(expect.stringMatching(new RegExp(`^fail  config  ${name}: \\(`)));
    expect(loss.lines.join("\n")).not.toContain("STARS_USDT_PER_STAR");
    const unset = await preflight({ ...live(), STAR_COST_USDT: undefined });
    expect(unset.lines.join("\n")).toContain("STAR_COST_USDT: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram");
  });

  it("prints no secret when the Bot API, Reloadly and Crypto Pay cannot be reached", async () => {
    const gone = await closedPort();
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
    expect(line(lines, "bot")).toBe(`fail  bot  the Bot API does not answer: POST ${gone}/bot<token>/getMe: connection refused`);
    expect(line(lines, "gifts (telegram)")).toBe(
      `fail  gifts (telegram)  its balance does not read: POST ${gone}/bot<token>/getMyStarBalance: connection refused`,
    );
    expect(line(lines, "premium (telegram)")).toMatch(/^fail .*connection refused$/);
    expect(line(lines, "crypto pay")).toBe(`fail  crypto pay  does not answer: POST ${gone}/cryptopay/api/getMe: connection refused`);
    expect(line(lines, "stars (protocol)")).toMatch(/^ok/);
    const printed = lines.join("\n");
    for (const [name, secret] of Object.entries(secrets)) {
      expect(printed, name).not.toContain(secret);
      // Nor the part after the bot id, which is the secret half of a bot token.
      expect(printed, name).not.toContain(secret.split(":").at(-1));
    }
  });

  it("names the variable a chosen backend lacks, and checks everything else", async () => {
    const { code, lines } = await preflight({ ...live(), BOT_TOKEN: undefined, RELOADLY_CLIENT_ID: undefined });
    expect(code).toBe(1);
    expect(lines.join("\n")).toContain("BOT_TOKEN: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram");
    expect(lines.join("\n")).toContain("RELOADLY_CLIENT_ID: is required by GIFTCARDS_BACKEND=reloadly");
    for (const [product, backend] of [
      ["premium", "telegram"],
      ["gifts", "telegram"],
      ["giftcards", "reloadly"],
    ])
      expect(line(lines, `${product} (${backend})`)).toMatch(/^fail .*not checked: its backend lacks a variable it needs \(see config\)$/);
    expect(line(lines, "stars (protocol)")).toMatch(/^ok/);
    expect(line(lines, "rates (protocol)")).toMatch(/^ok/);
  });

  it("prints what docs/go-live.md shows", async () => {
    const guide = readFileSync("docs/go-live.md", "utf8");
    const shown = (name: string) => /```text\n([^]*?)\n```/.exec(guide.slice(guide.indexOf(`<!-- preflight:${name} -->`)))![1]!.split("\n");
    // Ports are picked per run and the database is the test's own: the rest is the command's output as printed.
    const same = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>").replace(database.url, "./data/partner.db");
    const defaults = await preflight({ DATABASE_URL: database.url, ...database.env });
    expect(defaults.lines.map(same)).toEqual(shown("defaults").map(same));
    await stars.setBalance(5_000);
    const gone = await closedPort();
    const failures = await withFault("store", () => preflight({ ...real(), TOPUP_MIN_USDT: "lots", GAMES_URL: gone }));
    expect(failures.lines.map(same)).toEqual(expect.arrayContaining(shown("failures").map(same)));
    expect(same(failures.lines.at(-1)!)).toBe(same(shown("failures").at(-1)!));
  });
});
