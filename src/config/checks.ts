import type { z } from "zod";
import { formatUsdt } from "../core/model/money.js";
import { PREMIUM_STARS } from "../core/model/products.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN, SIMULATOR_RELOADLY_CREDENTIALS } from "./simulated-credentials.js";
import { PROVIDER_URLS, type Variables } from "./variables.js";

/** A host that only this machine reaches: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/** URLs a secret travels to or from: plain `http://` only on this machine, where nothing between can read it. */
const SECRET_URLS = [
  ["CRYPTO_PAY_URL", "the Crypto Pay token"],
  ["RELOADLY_AUTH_URL", "Reloadly's client secret"],
  ["RELOADLY_GIFTCARDS_URL", "Reloadly's access token and the cards' codes"],
  ["TELEGRAM_API_ROOT", "the bot's token in every path"],
  ["BOT_WEBHOOK_URL", "the webhook's secret in every update"],
  ["GIFTCARDS_URL", "the cards' redeem codes"],
] as const;

type TelegramBackend = "PREMIUM_BACKEND" | "GIFTS_BACKEND";

/**
 * What the bot pays in Stars is sold above what those Stars cost: gifts at STARS_USDT_PER_STAR a star, Premium at
 * PREMIUM_USDT_n for PREMIUM_STARS[n]. Only for the products the bot delivers from its own balance.
 */
function sellsAboveCost(
  c: { STAR_COST_USDT?: number; STARS_USDT_PER_STAR: number; PREMIUM_USDT_3: number; PREMIUM_USDT_6: number; PREMIUM_USDT_12: number },
  backends: TelegramBackend[],
  ctx: z.RefinementCtx,
): void {
  const cost = c.STAR_COST_USDT;
  if (cost === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["STAR_COST_USDT"],
      message: `is required by ${backends.map((name) => `${name}=telegram`).join(" and ")}: what one Star costs you in USDT, so that no tariff sells below it`,
    });
    return;
  }
  const priced: Array<{ name: string; micro: number; stars: number; what: string }> = [];
  if (backends.includes("GIFTS_BACKEND"))
    priced.push({ name: "STARS_USDT_PER_STAR", micro: c.STARS_USDT_PER_STAR, stars: 1, what: "a star of a gift" });
  if (backends.includes("PREMIUM_BACKEND"))
    for (const months of [3, 6, 12] as const)
      priced.push({
        name: `PREMIUM_USDT_${months}`,
        micro: c[`PREMIUM_USDT_${months}`],
        stars: PREMIUM_STARS[months]!,
        what: `${PREMIUM_STARS[months]} stars`,
      });
  for (const { name, micro, stars, what } of priced) {
    const costMicro = stars * cost;
    if (micro <= costMicro)
      ctx.addIssue({
        code: "custom",
        path: [name],
        message: `(${formatUsdt(micro)} USDT for ${what}) is at or below what it costs at STAR_COST_USDT=${formatUsdt(cost)} (${formatUsdt(costMicro)} USDT): set it above ${formatUsdt(costMicro)}`,
      });
  }
}

/**
 * The variables checked together where safety depends on more than one: secrets travel over https beyond this
 * machine, a chosen backend has its credentials, the bot's tariffs sell above their Stars' cost, and nothing
 * simulated runs beside a real credential.
 */
export function checkTogether(c: Variables, ctx: z.RefinementCtx): void {
  // Nothing simulated runs beside a real credential: the simulator's Crypto Pay token is public, so beside a
  // real bot (users paying real money) or a real provider anyone could sign a payment that never happened.
  // Only an explicitly marked emulator is simulated: a self-hosted Bot API server also listens on loopback.
  const realBot = c.BOT_TOKEN !== undefined && !c.TELEGRAM_API_EMULATOR;
  if (c.TELEGRAM_API_EMULATOR && (c.TELEGRAM_API_ROOT === undefined || !isLoopbackHost(new URL(c.TELEGRAM_API_ROOT).hostname))) {
    ctx.addIssue({
      code: "custom",
      path: ["TELEGRAM_API_EMULATOR"],
      message: "marks a local Bot API emulator: it needs TELEGRAM_API_ROOT on this machine (127.0.0.1, ::1 or localhost)",
    });
  }
  for (const [name, carries] of SECRET_URLS) {
    const value = c[name];
    if (value !== undefined && new URL(value).protocol !== "https:" && !isLoopbackHost(new URL(value).hostname))
      ctx.addIssue({ code: "custom", path: [name], message: `must be https:// beyond this machine: it carries ${carries}` });
  }
  const reloadly = c.GIFTCARDS_BACKEND === "reloadly";
  const realUrls = (["CRYPTO_PAY_URL", ...PROVIDER_URLS] as const).filter(
    (name) => c[name] !== undefined && !isLoopbackHost(new URL(c[name]!).hostname),
  ) as string[];
  // Reloadly's own hosts (unset under UPSTREAM=external) are a real Reloadly; unset under the simulator, its own.
  for (const name of ["RELOADLY_AUTH_URL", "RELOADLY_GIFTCARDS_URL"] as const) {
    const value = c[name];
    if (reloadly && (value === undefined ? c.UPSTREAM === "external" : !isLoopbackHost(new URL(value).hostname))) realUrls.push(name);
  }
  const telegramBackends = (["PREMIUM_BACKEND", "GIFTS_BACKEND"] as const).filter((name) => c[name] === "telegram");
  if (telegramBackends.length && c.BOT_TOKEN === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["BOT_TOKEN"],
      message: `is required by ${telegramBackends.map((name) => `${name}=telegram`).join(" and ")}: the bot delivers them from its own Star balance`,
    });
  }
  if (telegramBackends.length) sellsAboveCost(c, telegramBackends, ctx);
  if (reloadly && c.UPSTREAM === "external") {
    for (const name of ["RELOADLY_CLIENT_ID", "RELOADLY_CLIENT_SECRET"] as const) {
      if (c[name] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: "is required by GIFTCARDS_BACKEND=reloadly (Reloadly's dashboard: Developers, API settings)",
        });
    }
  }
  const simulatedReloadly = Object.values(SIMULATOR_RELOADLY_CREDENTIALS).some((pair) => pair.clientId === c.RELOADLY_CLIENT_ID);
  if (simulatedReloadly && (realBot || realUrls.length)) {
    ctx.addIssue({
      code: "custom",
      path: ["RELOADLY_CLIENT_ID"],
      message: "is the simulator's public client id: it never runs beside a real bot token or a real provider",
    });
  }
  if (c.UPSTREAM === "simulator" && realBot) {
    ctx.addIssue({
      code: "custom",
      path: ["BOT_TOKEN"],
      message:
        "is a real bot's (Telegram's own API) while UPSTREAM=simulator runs simulated providers and a simulated Crypto Pay whose token is public: anyone could forge a payment. Set UPSTREAM=external with real providers, or point TELEGRAM_API_ROOT at a local Bot API emulator",
    });
  }
  if (c.UPSTREAM === "simulator" && realUrls.length) {
    ctx.addIssue({
      code: "custom",
      path: [realUrls[0]],
      message: `names a real provider (${realUrls.join(", ")}) while UPSTREAM=simulator runs the others simulated: set UPSTREAM=external and every provider's URL`,
    });
  }
  if (c.CRYPTO_PAY_TOKEN === SIMULATOR_CRYPTO_PAY_TOKEN && (realBot || realUrls.length)) {
    ctx.addIssue({
      code: "custom",
      path: ["CRYPTO_PAY_TOKEN"],
      message: "is the simulator's public token: it never runs beside a real bot token or a real provider URL",
    });
  }
}
