import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteHandlerMethod } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Core } from "../core/index.js";
import type { AnsweredRequest } from "../observability/metrics.js";
import type { MiniAppOptions } from "./miniapp/options.js";
import { miniAppPage, publicMiniAppPage } from "./miniapp/static.js";
import { auth } from "./plugins/auth.js";
import { encoding } from "./plugins/encoding.js";
import { errors } from "./plugins/errors.js";
import { metrics } from "./plugins/metrics.js";
import { openApi } from "./plugins/openapi.js";
import { proxyTrust, untrustedProxy } from "./plugins/proxy.js";
import { rateLimits } from "./plugins/rate-limit.js";
import { requestId, requestIdOptions } from "./plugins/request-id.js";
import { schemas } from "./plugins/schemas.js";
import { OneLinePerRequest } from "./request-log.js";
import { gameOrderRoutes, gamesRoutes } from "./routes/games.js";
import { giftcardRoutes } from "./routes/giftcards.js";
import { giftRoutes } from "./routes/gifts.js";
import { miniAppDeskActionRoutes, miniAppDeskRoutes } from "./routes/miniapp/desk.js";
import { miniAppUserRoutes } from "./routes/miniapp/user.js";
import { infoRoutes } from "./routes/info.js";
import { ledgerRoutes } from "./routes/ledger.js";
import { orderRoutes } from "./routes/orders.js";
import { probeRoutes } from "./routes/probes.js";
import { purchaseRoutes, purchaseSandboxRoutes } from "./routes/purchases.js";
import { quoteRoutes } from "./routes/quotes.js";
import { storeRoutes } from "./routes/store.js";
import { cryptoPayWebhookRoute, topupRoutes } from "./routes/topups.js";
import { webhookDeliveryRoutes, webhookRoutes, webhookSecretRoutes } from "./routes/webhooks.js";
import { keyRoutes } from "./routes/keys.js";
import type { Delivery } from "../wire/account.js";

export interface ApiOptions {
  core: Core;
  rateLimitPerMinute: number;
  bodyLimitBytes: number;
  /** `delivery_provider` and each product's backend, for /v1/health. */
  delivery: Delivery;
  logger: FastifyBaseLogger;
  /** Told of every answered request (metrics). */
  onAnswered?: (answer: AnsweredRequest) => void;
  /** Webhook mode: the handler of the bot's updates, mounted at POST /telegram/webhook (it checks Telegram's secret itself). */
  telegramWebhook?: RouteHandlerMethod;
  /** TRUST_PROXY: the proxies whose X-Forwarded-For names the client (addresses, CIDRs, presets or a hop count); none by default. */
  trustProxy?: string | number;
  /** RESPONSE_CHECK: every answer checked by zod against its schema (tests); else written by fast-json-stringify. */
  checkAnswers?: boolean;
  /** The Mini App's sign-in and sessions (with a bot: its token checks Telegram's init data). */
  miniApp?: MiniAppOptions;
  /** True once the service has begun to stop (GET /readyz says so). */
  stopping?: () => boolean;
}

const TELEGRAM_WEBHOOK_PATH = "/telegram/webhook";

/**
 * The partner HTTP API over the core: what every request goes through, as named plugins (src/api/plugins, in the
 * order their hooks run), then the routes, which translate HTTP to core calls and back, nothing more.
 */
export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const { core, miniApp } = options;
  const trust = options.trustProxy === undefined ? null : proxyTrust(options.trustProxy);
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new OneLinePerRequest(),
    bodyLimit: options.bodyLimitBytes,
    // Only a proxy named here is believed about the client's address; without one, X-Forwarded-For is ignored.
    ...(trust ? { trustProxy: trust } : {}),
    ...requestIdOptions,
  }).withTypeProvider<ZodTypeProvider>();

  await app.register(requestId);
  await app.register(untrustedProxy, { trust });
  await app.register(schemas, { checkAnswers: options.checkAnswers });
  await app.register(errors, { refusal: miniApp?.refusal });
  await app.register(openApi);
  // An API key, or (with the Mini App) a session token: the Mini App calls the API's own routes as its user.
  await app.register(auth, { accounts: core.accounts, sessions: miniApp?.sessions });
  // After auth: both refuse before the body is read, and a bad key is told as such (401/403) before its body's 415.
  await app.register(encoding);
  if (options.onAnswered) await app.register(metrics, { onAnswered: options.onAnswered });
  if (miniApp) await app.register(publicMiniAppPage);
  await app.register(rateLimits, { perMinute: options.rateLimitPerMinute, counter: core.sharedCounter });

  await app.register(probeRoutes, { core, delivery: options.delivery, stopping: options.stopping });
  await app.register(infoRoutes, { core });
  await app.register(purchaseRoutes, { core });
  await app.register(purchaseSandboxRoutes, { core });
  await app.register(orderRoutes, { core });
  await app.register(ledgerRoutes, { core });
  await app.register(storeRoutes, { core });
  await app.register(gamesRoutes, { core });
  await app.register(gameOrderRoutes, { core });
  await app.register(giftcardRoutes, { core });
  await app.register(giftRoutes, { core });
  await app.register(webhookRoutes, { core });
  await app.register(webhookSecretRoutes, { core });
  await app.register(webhookDeliveryRoutes, { core });
  await app.register(keyRoutes, { core });
  await app.register(quoteRoutes, { core });
  await app.register(topupRoutes, { core });
  // Crypto Pay's servers call this: no API key, no per-key limit; the signature authenticates them.
  await app.register(cryptoPayWebhookRoute, { core });
  if (miniApp) {
    await app.register(miniAppUserRoutes, { core, ...miniApp });
    await app.register(miniAppDeskRoutes, { core, ...miniApp });
    await app.register(miniAppDeskActionRoutes, { core, ...miniApp });
    await app.register(miniAppPage);
  }
  if (options.telegramWebhook) {
    // Telegram's own servers call this: no API key, no per-address limit; the secret token authenticates them.
    app.post(TELEGRAM_WEBHOOK_PATH, { config: { public: true, rateLimit: false }, schema: { hide: true } }, options.telegramWebhook);
  }
  return app;
}
