import { z } from "zod";
import { type BotApi, type Config, type ProductName, providerUrl } from "../config.js";
import type { Funds, Ports } from "../core/ports.js";
import { formatUsdt } from "../core/model/money.js";
import { PREMIUM_STARS } from "../core/model/products.js";
import { PROTOCOL_PROVIDER } from "../upstream/products.js";

/** One check's verdict: `fail` stops a go-live (exit 1), `warn` is worth reading, `ok` is ready. */
type Verdict = "ok" | "warn" | "fail";
interface Line {
  verdict: Verdict;
  subject: string;
  text: string;
}

/** How long the bot's getMe may take here (the providers' calls are bounded by UPSTREAM_TIMEOUT_MS). */
const GET_ME_TIMEOUT_MS = 10_000;

const getMeAnswer = z.object({ ok: z.literal(true), result: z.object({ username: z.string() }) });

/** The bot's own getMe: whether Telegram (or the server at TELEGRAM_API_ROOT) takes its token. */
async function botCheck(bot: BotApi): Promise<Line> {
  const root = bot.apiRoot;
  try {
    const response = await fetch(`${root}/bot${bot.token}/getMe`, { method: "POST", signal: AbortSignal.timeout(GET_ME_TIMEOUT_MS) });
    const answer = getMeAnswer.safeParse(await response.json());
    if (!answer.success)
      return {
        verdict: "fail",
        subject: "bot",
        text: `the Bot API refused BOT_TOKEN (HTTP ${response.status}): take the token again from @BotFather`,
      };
    return { verdict: "ok", subject: "bot", text: `@${answer.data.result.username} on ${new URL(root).host}` };
  } catch (error) {
    return { verdict: "fail", subject: "bot", text: `the Bot API at ${new URL(root).host} does not answer: ${(error as Error).message}` };
  }
}

const shownFunds = (funds: Funds) => (funds.unit === "stars" ? `${funds.amount} stars` : `${funds.amount.toFixed(2)} USD`);

/**
 * One line per product and its backend (stars and Premium apart, whatever backs each): the backend answers, its
 * catalogue reads, and a balance it pays from covers the alert line.
 */
async function productChecks(config: Config, ports: Ports): Promise<Line[]> {
  const threshold = config.alerts.fundsBelow;
  const reads: Partial<Record<ProductName, () => Promise<string>>> = {
    store: async () => `limits read (fee ${(await ports.store.limits()).feePpm / 10_000}%)`,
    games: async () => `${(await ports.games.list()).length} games`,
    giftcards: async () => `${(await ports.giftcards.brands()).length} brands`,
    gifts: async () => `${(await ports.gifts.catalogue()).length} gifts on sale`,
  };
  const products = Object.keys(config.products) as ProductName[];
  return Promise.all(
    products.map(async (product): Promise<Line> => {
      const port = ports[product];
      const read = reads[product];
      const subject = `${product} (${port.backend})`;
      if (!port.configured)
        return { verdict: "warn", subject, text: `not configured: set ${providerUrl(PROTOCOL_PROVIDER[product])} to sell it (it answers 503)` };
      const found: string[] = [];
      let low: number | null = null;
      try {
        // A backend paying from its own balance: its credentials and funds first, the clearest reason when empty.
        if (port.funds && port.backend !== "protocol") {
          const funds = await port.funds();
          found.push(`balance ${shownFunds(funds)}`);
          if (funds.amount <= 0) return { verdict: "fail", subject, text: `${found.join(", ")}: it cannot pay for a single delivery (fund it)` };
          if (funds.amount < threshold[funds.unit]) low = threshold[funds.unit];
        }
        if (!(await port.ready())) return { verdict: "fail", subject, text: "does not answer its health check: check its address and credentials" };
        if (read) found.unshift(await read());
      } catch (error) {
        return { verdict: "fail", subject, text: `a read failed: ${(error as Error).message}` };
      }
      if (low !== null) return { verdict: "warn", subject, text: `${found.join(", ")}: under the alert line of ${low} (fund it before selling)` };
      return { verdict: "ok", subject, text: found.join(", ") || "answers" };
    }),
  );
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

/**
 * `npm run admin -- preflight`: every configured backend's credentials and balance, the bot's token, Crypto Pay
 * and the public addresses, one line each; 0 when nothing fails. Opens the service's own root, so it sees what the
 * service would (the database is migrated to the latest schema, as by any admin command).
 */
export async function preflight(env: Record<string, string | undefined>, out: (line: string) => void): Promise<number> {
  const { loadConfig } = await import("../config.js");
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    out(`fail  configuration  ${(error as Error).message}`);
    return 1;
  }
  const lines: Line[] = [];
  if (config.upstream.source === "simulator") {
    lines.push({
      verdict: "warn",
      subject: "upstream",
      text: "UPSTREAM=simulator: every provider is simulated under npm start; set UPSTREAM=external to sell for real",
    });
  }
  const { openCore } = await import("../root.js");
  let opened: Awaited<ReturnType<typeof openCore>>;
  try {
    opened = await openCore({ ...config, logLevel: "fatal" });
  } catch (error) {
    out(`fail  database  ${(error as Error).message}`);
    return 1;
  }
  try {
    const health = await opened.service.core.health.probe();
    lines.push(
      health.databaseReady
        ? { verdict: "ok", subject: "database", text: "answers, schema current" }
        : { verdict: "fail", subject: "database", text: "does not answer" },
    );
    lines.push(
      config.bot
        ? await botCheck(config.bot.api)
        : { verdict: "warn", subject: "bot", text: "BOT_TOKEN unset: no bot, no Mini App, no alerts to administrators" },
    );
    if (config.upstream.source === "external") lines.push(...(await productChecks(config, opened.ports)));
    lines.push(...marginChecks(config));
    const cryptoPay = opened.cryptoPay;
    lines.push(
      !cryptoPay
        ? { verdict: "warn", subject: "crypto pay", text: "CRYPTO_PAY_URL unset: top-ups only by transfers an administrator approves" }
        : (await cryptoPay.ready())
          ? { verdict: "ok", subject: "crypto pay", text: `answers at ${new URL(config.topups.cryptoPay!.url).host}` }
          : { verdict: "fail", subject: "crypto pay", text: "does not answer or refuses CRYPTO_PAY_TOKEN" },
    );
    if (config.bot?.updates.kind === "polling")
      lines.push({ verdict: "warn", subject: "bot updates", text: "long polling (set BOT_WEBHOOK_URL and BOT_WEBHOOK_SECRET for a webhook)" });
    if (config.bot && !config.bot.miniApp.url)
      lines.push({ verdict: "warn", subject: "mini app", text: "MINIAPP_URL unset: the bot does not offer the shop" });
  } finally {
    await opened.service.close();
  }
  for (const line of lines) out(`${line.verdict.padEnd(4)}  ${line.subject}  ${line.text}`);
  const failed = lines.filter((line) => line.verdict === "fail").length;
  out(failed ? `${failed} check(s) failed: not ready to sell` : "ready: nothing failed");
  return failed ? 1 : 0;
}
