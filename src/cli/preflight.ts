import { z } from "zod";
import type { Config } from "../config.js";
import type { Funds, Providers } from "../core/ports.js";
import { formatUsdt } from "../core/model/money.js";
import { PREMIUM_STARS } from "../core/model/products.js";

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
async function botCheck(config: Config): Promise<Line> {
  const root = config.TELEGRAM_API_ROOT ?? "https://api.telegram.org";
  try {
    const response = await fetch(`${root}/bot${config.BOT_TOKEN}/getMe`, { method: "POST", signal: AbortSignal.timeout(GET_ME_TIMEOUT_MS) });
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

/** What each product needs read once: the backend answers, its catalogue reads, and its balance covers the alert line. */
async function productChecks(config: Config, providers: Providers): Promise<Line[]> {
  const threshold = { stars: config.ALERT_STARS_BELOW, USD: config.ALERT_RELOADLY_BELOW_USD };
  const products: Array<{ product: string; backend: string; provider: keyof Providers; read?: () => Promise<string> }> = [
    { product: "stars", backend: "protocol", provider: "gateway" },
    { product: "premium", backend: config.PREMIUM_BACKEND, provider: "gateway" },
    {
      product: "store",
      backend: "protocol",
      provider: "store",
      read: async () => `limits read (fee ${(await providers.store.limits()).feePpm / 10_000}%)`,
    },
    { product: "games", backend: "protocol", provider: "games", read: async () => `${(await providers.games.list()).length} games` },
    {
      product: "giftcards",
      backend: config.GIFTCARDS_BACKEND,
      provider: "giftcards",
      read: async () => `${(await providers.giftcards.brands()).length} brands`,
    },
    {
      product: "gifts",
      backend: config.GIFTS_BACKEND,
      provider: "gifts",
      read: async () => `${(await providers.gifts.catalogue()).length} gifts on sale`,
    },
  ];
  return Promise.all(
    products.map(async ({ product, backend, provider, read }): Promise<Line> => {
      const port = providers[provider];
      const subject = `${product} (${backend})`;
      if (!port.configured)
        return { verdict: "warn", subject, text: `not configured: set ${provider.toUpperCase()}_URL to sell it (it answers 503)` };
      const found: string[] = [];
      let low: number | null = null;
      try {
        // A backend paying from its own balance: its credentials and funds first, the clearest reason when empty.
        if (port.funds && backend !== "protocol") {
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
  const cost = config.STAR_COST_MICRO;
  if (cost === undefined) return [];
  return [
    ...(config.GIFTS_BACKEND === "telegram" ? [margin("margin gifts", config.STAR_PRICE_MICRO, cost, "a star")] : []),
    ...(config.PREMIUM_BACKEND === "telegram"
      ? ([3, 6, 12] as const).map((months) =>
          margin(
            `margin premium ${months} months`,
            config.PREMIUM_PRICE_MICRO[months],
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
  if (config.UPSTREAM === "simulator") {
    lines.push({
      verdict: "warn",
      subject: "upstream",
      text: "UPSTREAM=simulator: every provider is simulated under npm start; set UPSTREAM=external to sell for real",
    });
  }
  const { openCore } = await import("../root.js");
  let opened: Awaited<ReturnType<typeof openCore>>;
  try {
    opened = await openCore({ ...config, LOG_LEVEL: "fatal" });
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
      config.BOT_TOKEN
        ? await botCheck(config)
        : { verdict: "warn", subject: "bot", text: "BOT_TOKEN unset: no bot, no Mini App, no alerts to administrators" },
    );
    if (config.UPSTREAM === "external") lines.push(...(await productChecks(config, opened.providers)));
    lines.push(...marginChecks(config));
    const cryptoPay = opened.cryptoPay;
    lines.push(
      !cryptoPay
        ? { verdict: "warn", subject: "crypto pay", text: "CRYPTO_PAY_URL unset: top-ups only by transfers an administrator approves" }
        : (await cryptoPay.ready())
          ? { verdict: "ok", subject: "crypto pay", text: `answers at ${new URL(config.CRYPTO_PAY_URL!).host}` }
          : { verdict: "fail", subject: "crypto pay", text: "does not answer or refuses CRYPTO_PAY_TOKEN" },
    );
    if (config.BOT_TOKEN && !config.BOT_WEBHOOK_URL)
      lines.push({ verdict: "warn", subject: "bot updates", text: "long polling (set BOT_WEBHOOK_URL and BOT_WEBHOOK_SECRET for a webhook)" });
    if (config.BOT_TOKEN && !config.MINIAPP_URL)
      lines.push({ verdict: "warn", subject: "mini app", text: "MINIAPP_URL unset: the bot does not offer the shop" });
  } finally {
    await opened.service.close();
  }
  for (const line of lines) out(`${line.verdict.padEnd(4)}  ${line.subject}  ${line.text}`);
  const failed = lines.filter((line) => line.verdict === "fail").length;
  out(failed ? `${failed} check(s) failed: not ready to sell` : "ready: nothing failed");
  return failed ? 1 : 0;
}
