import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { type BotApi, type Config, type ConfigProblem, type ProductName, providerUrl } from "../config.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN, SIMULATOR_RELOADLY_CREDENTIALS } from "../config/simulated-credentials.js";
import type { Funds, Ports } from "../core/ports.js";
import { formatUsdt } from "../core/model/money.js";
import { PREMIUM_STARS } from "../core/model/products.js";
import { withRequestId } from "../observability/context.js";
import type { UpstreamCall } from "../upstream/http.js";
import { PROTOCOL_PROVIDER } from "../upstream/products.js";

// `npm run admin -- preflight [--json]`: every check on every run, simulated or not (docs/decisions/0036). Each
// problem names the address asked and what was seen; a configuration problem is a line of its own and the rest is
// checked without it. Exit 0: ready, every product sells for real; 1: a check failed; 2: nothing failed, but some of
// it is simulated, a sandbox or not configured (a rehearsal passed).

/** `ok` real and answering, `sim` answering but simulated (or a sandbox), `warn` worth reading, `fail` stops a go-live. */
type Verdict = "ok" | "sim" | "warn" | "fail";
interface Line {
  verdict: Verdict;
  subject: string;
  text: string;
}

/** What keeps a run from real sales, other than a failure: `stars` `simulated`, `Crypto Pay` `testnet`, … */
interface NotReal {
  what: string;
  why: string;
}

const PREFLIGHT_EXIT = { ready: 0, failed: 1, rehearsal: 2 } as const;

/** How long the bot's and Crypto Pay's getMe may take here (the products' calls are bounded by UPSTREAM_TIMEOUT_MS). */
const GET_ME_TIMEOUT_MS = 10_000;
const EXCERPT_CHARS = 120;

/** A transport error as an operator reads it: refused, timed out, a name that does not resolve. */
function transportError(code: string | undefined, message: string, ms: number): string {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "ENOTFOUND":
      return "DNS: no such host (ENOTFOUND)";
    case "EAI_AGAIN":
      return "DNS lookup failed (EAI_AGAIN)";
    case "UND_ERR_CONNECT_TIMEOUT":
      return `connect timed out after ${Math.round(ms)} ms`;
    case "timeout":
      return `timed out after ${Math.round(ms)} ms`;
    default:
      return code ?? message;
  }
}

/** An error with what caused it, where it carries a cause (the database's 503 carries the engine's error). */
function withCause(error: unknown): string {
  const message = (error as Error).message;
  let cause = error as { cause?: unknown; code?: string; message?: string };
  while (cause.cause instanceof Error) cause = cause.cause as typeof cause;
  if (cause === error) return message;
  return `${message} (${transportError(cause.code, cause.message ?? "", 0)})`;
}

/** One recorded call as `METHOD address: what was seen`. */
function seenCall(call: UpstreamCall): string {
  const seen =
    call.statusCode !== null
      ? `HTTP ${call.statusCode}${call.refusal ? ` ${call.refusal}` : ""}`
      : transportError(call.error?.replace(/ \(after HTTP \d+\)$/, ""), call.error ?? "failed", call.durationMs);
  return `${call.method} ${call.origin}${call.path}: ${seen}`;
}

const isTrouble = (call: UpstreamCall) => call.statusCode === null || call.statusCode < 200 || call.statusCode >= 300;

/** A plain request of preflight's own (getMe), answered as status and a short body, or a transport error. */
async function ask(url: string, init: RequestInit): Promise<{ status: number; body: unknown; excerpt: string } | { error: string }> {
  const started = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(GET_ME_TIMEOUT_MS) });
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: the excerpt shows what it was.
    }
    return { status: response.status, body, excerpt: text.replace(/\s+/g, " ").slice(0, EXCERPT_CHARS) };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string } };
    const code = err.name === "TimeoutError" ? "timeout" : err.cause?.code;
    return {
      error: transportError(code, err.cause ? String((err.cause as Error).message ?? err.message) : err.message, performance.now() - started),
    };
  }
}

const getMeAnswer = z.object({ ok: z.literal(true), result: z.object({ username: z.string() }) });

/** The bot's own getMe: whether Telegram (or the server at TELEGRAM_API_ROOT) takes its token. */
async function botCheck(bot: BotApi): Promise<Line> {
  const shown = `POST ${bot.apiRoot.replace(/\/+$/, "")}/bot<token>/getMe`;
  const answer = await ask(`${bot.apiRoot.replace(/\/+$/, "")}/bot${bot.token}/getMe`, { method: "POST" });
  if ("error" in answer) return { verdict: "fail", subject: "bot", text: `the Bot API does not answer: ${shown}: ${answer.error}` };
  const me = getMeAnswer.safeParse(answer.body);
  if (!me.success)
    return {
      verdict: "fail",
      subject: "bot",
      text: `the Bot API refused BOT_TOKEN (take it again from @BotFather): ${shown}: HTTP ${answer.status} ${answer.excerpt}`,
    };
  return {
    verdict: bot.emulator ? "sim" : "ok",
    subject: "bot",
    text: `@${me.data.result.username} at ${new URL(bot.apiRoot).origin}${bot.emulator ? " (the Bot API emulator)" : ""}`,
  };
}

/** Crypto Pay's getMe with the app's token: the address answers and takes CRYPTO_PAY_TOKEN. */
async function cryptoPayCheck(cryptoPay: { url: string; token: string }, simulated: boolean): Promise<Line> {
  const url = `${cryptoPay.url.replace(/\/+$/, "")}/api/getMe`;
  const answer = await ask(url, {
    method: "POST",
    headers: { "content-type": "application/json", "crypto-pay-api-token": cryptoPay.token },
    body: "{}",
  });
  const subject = "crypto pay";
  if ("error" in answer) return { verdict: "fail", subject, text: `does not answer: POST ${url}: ${answer.error}` };
  const ok = z.object({ ok: z.literal(true), result: z.object({ app_id: z.number() }) }).safeParse(answer.body);
  if (!ok.success)
    return { verdict: "fail", subject, text: `refuses CRYPTO_PAY_TOKEN or answers oddly: POST ${url}: HTTP ${answer.status} ${answer.excerpt}` };
  return {
    verdict: simulated ? "sim" : "ok",
    subject,
    text: `answers at ${new URL(url).origin} (app ${ok.data.result.app_id})${simulated ? " (simulated)" : ""}`,
  };
}

const shownFunds = (funds: Funds) => (funds.unit === "stars" ? `${funds.amount} stars` : `${funds.amount.toFixed(2)} USD`);

interface Checking {
  config: Config;
  ports: Ports;
  /** The calls each check made, by its request id. */
  calls: Map<string, UpstreamCall[]>;
  /** Products and the rates whose address the simulator filled in for this run. */
  simulatedAddress: (product: ProductName | "rates") => boolean;
  unchecked: Partial<Record<ProductName, string>>;
}

/** Runs one check under its own request id, so the calls it made (and what they saw) are told apart. */
async function recorded<T>(checking: Checking, id: string, work: () => Promise<T>) {
  checking.calls.set(id, []);
  const value = await withRequestId(id, work);
  return { value, calls: checking.calls.get(id)! };
}

/** What the last troubled call of a check saw, or the error when no call shows it. */
function why(calls: UpstreamCall[], error?: unknown): string {
  const trouble = calls.filter(isTrouble).at(-1);
  if (trouble) return seenCall(trouble);
  return error ? (error as Error).message : "no call was made";
}

const origins = (calls: UpstreamCall[]) => [...new Set(calls.map((call) => call.origin))].join(" and ");

/** Whether a product's backend is simulated (or a sandbox): what it does not sell for real, or null. */
function notRealOf(checking: Checking, product: ProductName): string | null {
  const backend = checking.config.products[product];
  if (backend.kind === "protocol") return checking.simulatedAddress(product) ? "simulated" : null;
  if (backend.kind === "telegram") return backend.bot.emulator ? "simulated" : null;
  const publicIds: string[] = Object.values(SIMULATOR_RELOADLY_CREDENTIALS).map((pair) => pair.clientId);
  if (backend.credentials && publicIds.includes(backend.credentials.clientId)) return "simulated";
  return backend.environment === "sandbox" ? "on Reloadly's sandbox" : null;
}

/**
 * One line per product and its backend (stars and Premium apart, whatever backs each): the backend answers, its
 * catalogue reads, and a balance it pays from covers the alert line.
 */
async function productCheck(checking: Checking, product: ProductName): Promise<{ line: Line; notReal: string | null }> {
  const { config, ports } = checking;
  const port = ports[product];
  const chosen = checking.unchecked[product];
  if (chosen)
    return {
      line: { verdict: "fail", subject: `${product} (${chosen})`, text: "not checked: its backend lacks a variable it needs (see config)" },
      notReal: "not checked",
    };
  const subject = `${product} (${port.backend})`;
  if (!port.configured)
    return {
      line: { verdict: "warn", subject, text: `not configured: set ${providerUrl(PROTOCOL_PROVIDER[product])} to sell it (it answers 503)` },
      notReal: "not configured",
    };
  const threshold = config.alerts.fundsBelow;
  const reads: Partial<Record<ProductName, () => Promise<string>>> = {
    store: async () => `limits read (fee ${(await ports.store.limits()).feePpm / 10_000}%)`,
    games: async () => `${(await ports.games.list()).length} games`,
    giftcards: async () => `${(await ports.giftcards.brands()).length} brands`,
    gifts: async () => `${(await ports.gifts.catalogue()).length} gifts on sale`,
  };
  const read = reads[product];
  const { value: line, calls } = await recorded(checking, `preflight-${product}`, async (): Promise<Line> => {
    const found: string[] = [];
    let low: number | null = null;
    const calls = () => checking.calls.get(`preflight-${product}`)!;
    // A backend paying from its own balance: its credentials and funds first, the clearest reason when empty.
    if (port.funds && port.backend !== "protocol") {
      let funds: Funds;
      try {
        funds = await port.funds();
      } catch (error) {
        return { verdict: "fail", subject, text: `its balance does not read: ${why(calls(), error)}` };
      }
      found.push(`balance ${shownFunds(funds)}`);
      if (funds.amount <= 0) return { verdict: "fail", subject, text: `${found.join(", ")}: it cannot pay for a single delivery (fund it)` };
      if (funds.amount < threshold[funds.unit]) low = threshold[funds.unit];
    }
    if (!(await port.ready())) return { verdict: "fail", subject, text: `does not answer its health check: ${why(calls())}` };
    try {
      if (read) found.unshift(await read());
    } catch (error) {
      return { verdict: "fail", subject, text: `a read failed: ${why(calls(), error)}` };
    }
    if (low !== null) return { verdict: "warn", subject, text: `${found.join(", ")}: under the alert line of ${low} (fund it before selling)` };
    return { verdict: "ok", subject, text: found.join(", ") || "answers" };
  });
  const notReal = notRealOf(checking, product);
  if (line.verdict === "fail") return { line, notReal };
  const text = `${line.text}; at ${origins(calls)}`;
  if (product === "store" && !config.sales.storeEnabled)
    return { line: { verdict: "warn", subject, text: `STORE_ENABLED=false: answers 503 disabled (${text})` }, notReal: "switched off" };
  return {
    line: { ...line, verdict: line.verdict === "ok" && notReal ? "sim" : line.verdict, text: notReal ? `${text} (${notReal})` : text },
    notReal,
  };
}

/** The TON rate's source: it answers and gives a rate. */
async function ratesCheck(checking: Checking): Promise<{ line: Line; notReal: string | null }> {
  const port = checking.ports.rates;
  const subject = `rates (${port.backend})`;
  if (!port.configured)
    return {
      line: { verdict: "warn", subject, text: `not configured: set ${providerUrl("rates")} for prices in TON (shown without)` },
      notReal: null,
    };
  const { value: line, calls } = await recorded(checking, "preflight-rates", async (): Promise<Line> => {
    const calls = () => checking.calls.get("preflight-rates")!;
    if (!(await port.ready())) return { verdict: "fail", subject, text: `does not answer its health check: ${why(calls())}` };
    try {
      return { verdict: "ok", subject, text: `1 TON = ${(await port.tonUsd()).toFixed(2)} USD` };
    } catch (error) {
      return { verdict: "fail", subject, text: `the TON rate does not read: ${why(calls(), error)}` };
    }
  });
  const notReal = checking.simulatedAddress("rates") ? "simulated" : null;
  if (line.verdict === "fail") return { line, notReal };
  return { line: { ...line, verdict: notReal ? "sim" : "ok", text: `${line.text}; at ${origins(calls)}${notReal ? ` (${notReal})` : ""}` }, notReal };
}

/** One product's margin: its tariff less what its Stars cost, in USDT and as a share of the tariff. */
function margin(subject: string, priceMicro: number, costMicro: number, what: string): Line {
  const percent = ((priceMicro - costMicro) / priceMicro) * 100;
  return {
    verdict: "ok",
    subject,
    text: `${formatUsdt(priceMicro)} USDT ${what}, its Stars cost ${formatUsdt(costMicro)}: margin ${formatUsdt(priceMicro - costMicro)} USDT (${percent.toFixed(1)}%)`,
  };
}

/** Each product the bot pays from its Stars, its margin at STAR_COST_USDT (the configuration refuses a loss). */
function marginChecks(config: Config): Line[] {
  const cost = config.sales.starCostMicro;
  if (cost === null) return [];
  const { tariffs } = config.sales;
  return [
    ...(config.products.gifts.kind === "telegram" ? [margin("margin gifts", tariffs.usdtPerStarMicro, cost, "a star")] : []),
    ...(config.products.premium.kind === "telegram"
      ? ([3, 6, 12] as const).map((months) =>
          margin(
            `margin premium ${months} months`,
            tariffs.premiumMicro[months],
            PREMIUM_STARS[months]! * cost,
            `for ${PREMIUM_STARS[months]} stars`,
          ),
        )
      : []),
  ];
}

/** The database's address as printed: a SQLite file, or a PostgreSQL URL without its password. */
function shownDatabase(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url)) return url;
  const parsed = new URL(url);
  parsed.password = "";
  return parsed.toString();
}

/** `stars, store simulated; Crypto Pay testnet`: what is not real, grouped by why, in the order met. */
function notRealSummary(notReal: NotReal[]): string {
  const groups = new Map<string, string[]>();
  for (const { what, why } of notReal) groups.set(why, [...(groups.get(why) ?? []), what]);
  return [...groups].map(([why, what]) => `${what.join(", ")} ${why}`).join("; ");
}

/** The environment this run checks, and the configuration read from it: under UPSTREAM=simulator, a simulator of its own fills the unset addresses. */
async function simulatedEnvironment(env: Record<string, string | undefined>) {
  const { loadConfigForChecks } = await import("../config.js");
  const read = loadConfigForChecks(env);
  if (read.config.upstream.source !== "simulator") return { env, read, filled: new Set<string>(), simulator: null };
  // On a free port: the service may be running with its own simulator on SIMULATOR_PORT.
  const { startSimulator } = await import("../simulator/server.js");
  const { simulatedEnv } = await import("../simulator/settings.js");
  const simulator = await startSimulator(0, { timeScale: 0.01 });
  const filled = simulatedEnv(simulator.url, env);
  const filledEnv = { ...env, ...filled };
  return { env: filledEnv, read: loadConfigForChecks(filledEnv), filled: new Set(Object.keys(filled)), simulator };
}

/**
 * `npm run admin -- preflight [--json]`: the configuration, the database, the bot's token, every product and its
 * backend (credentials, balance, catalogue), the rates, Crypto Pay and the public addresses, one line each, and a
 * summary. Opens the service's own root, so it sees what the service would (the database is migrated to the latest
 * schema, as by any admin command).
 */
export async function preflight(env: Record<string, string | undefined>, out: (line: string) => void, argv: string[] = []): Promise<number> {
  const json = argv.includes("--json");
  const unknown = argv.filter((arg) => arg !== "--json");
  if (unknown.length) {
    out(`preflight takes only --json, got ${unknown.join(" ")}`);
    return PREFLIGHT_EXIT.failed;
  }
  const { openCore } = await import("../root.js");
  const environment = await simulatedEnvironment(env);
  const { config, problems, unchecked } = environment.read;
  const lines: Line[] = problems.map((problem: ConfigProblem) => ({
    verdict: "fail",
    subject: "config",
    text: `${problem.variable}: ${problem.message}`,
  }));
  const notReal: NotReal[] = [];
  const calls = new Map<string, UpstreamCall[]>();
  const onProviderCall = (call: UpstreamCall) => {
    if (call.requestId) calls.get(call.requestId)?.push(call);
  };
  if (environment.simulator)
    lines.push({
      verdict: "sim",
      subject: "upstream",
      text: `UPSTREAM=simulator: checked against a simulator started for this run at ${environment.simulator.url}`,
    });
  // Preflight seals no code: a missing CODES_KEY (reported above) must not keep the database from being checked.
  const codesKey = config.database.codesKey ?? (problems.some((p) => p.variable === "CODES_KEY") ? randomBytes(32).toString("base64") : null);
  const quiet = { ...config, logLevel: "fatal" as const, database: { ...config.database, codesKey } };
  let opened: Awaited<ReturnType<typeof openCore>>;
  let scratch: string | null = null;
  try {
    opened = await openCore(quiet, { onProviderCall });
    const health = await opened.service.core.health.probe();
    lines.push(
      health.databaseReady
        ? { verdict: "ok", subject: "database", text: `${shownDatabase(config.database.url)} answers, schema current` }
        : { verdict: "fail", subject: "database", text: `${shownDatabase(config.database.url)} does not answer` },
    );
  } catch (error) {
    lines.push({ verdict: "fail", subject: "database", text: `${shownDatabase(config.database.url)}: ${withCause(error)}` });
    // The backends are still checked, through a scratch database of this run's (nothing of it is kept).
    scratch = mkdtempSync(join(tmpdir(), "preflight-"));
    try {
      opened = await openCore({ ...quiet, database: { ...quiet.database, url: join(scratch, "scratch.db"), codesKey: null } }, { onProviderCall });
    } catch (scratchError) {
      await environment.simulator?.app.close();
      rmSync(scratch, { recursive: true, force: true });
      throw scratchError;
    }
  }
  try {
    const checking: Checking = {
      config,
      ports: opened.ports,
      calls,
      unchecked,
      simulatedAddress: (product) => environment.filled.has(providerUrl(PROTOCOL_PROVIDER[product])),
    };
    if (config.bot) lines.push(await botCheck(config.bot.api));
    else lines.push({ verdict: "warn", subject: "bot", text: "BOT_TOKEN unset: no bot, no Mini App, no alerts to administrators" });
    const products = Object.keys(config.products) as ProductName[];
    const checked = await Promise.all([...products.map((product) => productCheck(checking, product)), ratesCheck(checking)]);
    checked.forEach(({ line, notReal: why }, i) => {
      lines.push(line);
      if (why) notReal.push({ what: products[i] ?? "rates", why });
    });
    if (config.bot?.api.emulator) notReal.push({ what: "bot", why: "emulated" });
    lines.push(...marginChecks(config));
    const cryptoPay = config.topups.cryptoPay;
    if (!cryptoPay)
      lines.push({ verdict: "warn", subject: "crypto pay", text: "CRYPTO_PAY_URL unset: top-ups only by transfers an administrator approves" });
    else {
      const simulated = cryptoPay.token === SIMULATOR_CRYPTO_PAY_TOKEN;
      lines.push(await cryptoPayCheck(cryptoPay, simulated));
      if (simulated) notReal.push({ what: "Crypto Pay", why: "simulated" });
      else if (new URL(cryptoPay.url).hostname.startsWith("testnet-")) notReal.push({ what: "Crypto Pay", why: "on testnet" });
    }
    if (config.bot?.updates.kind === "polling")
      lines.push({ verdict: "warn", subject: "bot updates", text: "long polling (set BOT_WEBHOOK_URL and BOT_WEBHOOK_SECRET for a webhook)" });
    if (config.bot && !config.bot.miniApp.url)
      lines.push({ verdict: "warn", subject: "mini app", text: "MINIAPP_URL unset: the bot does not offer the shop" });
  } finally {
    await opened.service.close();
    await environment.simulator?.app.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }

  const failed = lines.filter((line) => line.verdict === "fail");
  const notRealText = notRealSummary(notReal);
  const outcome = failed.length ? "failed" : notReal.length ? "rehearsal" : "ready";
  const summary =
    outcome === "failed"
      ? `not ready: ${failed.length} check(s) failed (${[...new Set(failed.map((line) => line.subject))].join(", ")})${notRealText ? `; besides, ${notRealText}` : ""}`
      : outcome === "rehearsal"
        ? `rehearsal passed, not ready for real sales: ${notRealText}`
        : "ready: every product sells for real, nothing failed";
  if (json) {
    out(
      JSON.stringify(
        {
          outcome,
          exit_code: PREFLIGHT_EXIT[outcome],
          summary,
          not_real: notReal,
          checks: lines,
        },
        null,
        2,
      ),
    );
  } else {
    for (const line of lines) out(`${line.verdict.padEnd(4)}  ${line.subject}  ${line.text}`);
    out(summary);
  }
  return PREFLIGHT_EXIT[outcome];
}
