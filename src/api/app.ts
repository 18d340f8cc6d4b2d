import rateLimit from "@fastify/rate-limit";
import swagger from "@fastify/swagger";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RouteHandlerMethod } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { DomainError } from "../core/model/errors.js";
import type { AnsweredRequest } from "../observability/metrics.js";
import type { Core } from "../core/index.js";
import { isMiniAppCaller, rateLimitKey, registerAuth } from "./auth.js";
import { errorHandler } from "./errors.js";
import { addDraftRateLimitHeaders } from "./rate-limit-headers.js";
import { registerRequestId, requestIdOptions } from "./request-id.js";
import { checkedSerializerCompiler, fastSerializerCompiler } from "./serializers.js";
import { OneLinePerRequest } from "./request-log.js";
import { sharedRateLimit } from "./shared-rate-store.js";
import { finishDocument } from "./openapi.js";
import { API_VERSION, infoRoutes } from "./routes/info.js";
import { ledgerRoutes } from "./routes/ledger.js";
import { orderRoutes } from "./routes/orders.js";
import { purchaseRoutes } from "./routes/purchases.js";
import { isSessionToken, sessionCaller } from "./miniapp/session.js";
import { exemptMiniAppPage, registerMiniAppPage } from "./miniapp/static.js";
import { type MiniAppOptions, miniAppRoutes } from "./routes/miniapp.js";
import { quoteRoutes } from "./routes/quotes.js";
import { cryptoPayWebhookRoute, topupRoutes } from "./routes/topups.js";
import { gamesRoutes } from "./routes/games.js";
import { giftcardRoutes } from "./routes/giftcards.js";
import { giftRoutes } from "./routes/gifts.js";
import { storeRoutes } from "./routes/store.js";
import { webhookRoutes } from "./routes/webhooks.js";

export interface ApiOptions {
  core: Core;
  rateLimitPerMinute: number;
  bodyLimitBytes: number;
  deliveryProvider: string;
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

/** Fastify's trustProxy: the proxies named, or the first `hops` hops (as Fastify does with a number). */
const trusted = (setting: string | number) => (typeof setting === "number" ? (_address: string, hop: number) => hop < setting : setting);

export const TELEGRAM_WEBHOOK_PATH = "/telegram/webhook";
/** The per-key limit counts requests in windows of a minute (RATE_LIMIT_PER_MINUTE). */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** The partner HTTP API over the core: routes translate HTTP to core calls and back, nothing more. */
export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    logController: new OneLinePerRequest(),
    bodyLimit: options.bodyLimitBytes,
    // Only a proxy named here is believed about the client's address; without one, X-Forwarded-For is ignored.
    ...(options.trustProxy === undefined ? {} : { trustProxy: trusted(options.trustProxy) }),
    ...requestIdOptions,
  }).withTypeProvider<ZodTypeProvider>();
  registerRequestId(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(options.checkAnswers ? checkedSerializerCompiler : fastSerializerCompiler);
  // JSON only: Fastify's default text/plain parser would let a plain-text body through to validation.
  app.removeContentTypeParser("text/plain");
  // The Mini App's user reads refusals in their language (the bot's words for the same refusal); a bad input with no
  // reason keeps the core's message, which names the field (the bot's words for it are generic).
  const miniApp = options.miniApp;
  // Nor is an "unauthorized" worded by the bot ("send /start"): a signed-in user meets it only at the key's fresh
  // sign-in, whose own message says what to do.
  const localized = (error: DomainError) =>
    Boolean(error.details.reason || error.details.rule || (error.code !== "invalid_input" && error.code !== "unauthorized"));
  app.setErrorHandler(
    errorHandler(
      miniApp
        ? (request, error) =>
            request.caller && isMiniAppCaller(request.caller) && localized(error) ? miniApp.refusal(request.caller.account.language, error) : null
        : null,
    ),
  );
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ success: false, error: `No such endpoint: ${request.method} ${request.url.split("?")[0]}` }),
  );

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Partner Purchase API", version: API_VERSION },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          bearer: { type: "http", scheme: "bearer" },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (document) =>
      finishDocument(jsonSchemaTransformObject(document) as Parameters<typeof finishDocument>[0]) as ReturnType<typeof jsonSchemaTransformObject>,
  });

  // An API key, or (with the Mini App) a session token: the Mini App calls the API's own routes as its user.
  const { accounts } = options.core;
  registerAuth(app, (presented, also) =>
    miniApp && presented && isSessionToken(presented) ? sessionCaller(miniApp.sessions, accounts, presented) : accounts.authenticate(presented, also),
  );
  // The hooks every request runs take callbacks, not async functions: under AsyncLocalStorage (the request id) each
  // promise costs, and these need none.
  const answered = options.onAnswered;
  if (answered) {
    app.addHook("onResponse", (request, reply, done) => {
      answered({
        method: request.method,
        route: request.routeOptions.url ?? "unmatched",
        status: reply.statusCode,
        seconds: reply.elapsedTime / 1000,
        authenticated: request.caller !== null,
      });
      done();
    });
  }
  // Bodies are plain JSON: a compressed one is an unsupported media type, not "invalid JSON".
  app.addHook("preParsing", (request, _reply, payload, done) => {
    const encoding = request.headers["content-encoding"];
    if (encoding && encoding.trim().toLowerCase() !== "identity") {
      return done(Object.assign(new Error(`Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`), { statusCode: 415 }));
    }
    done(null, payload);
  });
  if (options.miniApp) exemptMiniAppPage(app);
  await app.register(rateLimit, {
    max: options.rateLimitPerMinute,
    timeWindow: RATE_LIMIT_WINDOW_SECONDS * 1000,
    ...(options.core.sharedCounter ? sharedRateLimit(options.core.sharedCounter) : { keyGenerator: rateLimitKey }),
    errorResponseBuilder: (_request, context) =>
      new DomainError("rate_limited", `Rate limit of ${context.max} requests a minute exceeded: retry in ${context.after}`, {
        retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
      }),
  });
  addDraftRateLimitHeaders(app, RATE_LIMIT_WINDOW_SECONDS);

  await app.register(infoRoutes, { core: options.core, deliveryProvider: options.deliveryProvider, stopping: options.stopping });
  await app.register(purchaseRoutes, { core: options.core });
  await app.register(orderRoutes, { core: options.core });
  await app.register(ledgerRoutes, { core: options.core });
  await app.register(storeRoutes, { core: options.core });
  await app.register(gamesRoutes, { core: options.core });
  await app.register(giftcardRoutes, { core: options.core });
  await app.register(giftRoutes, { core: options.core });
  await app.register(webhookRoutes, { core: options.core });
  await app.register(quoteRoutes, { core: options.core });
  await app.register(topupRoutes, { core: options.core });
  // Crypto Pay's servers call this: no API key, no per-key limit; the signature authenticates them.
  await app.register(cryptoPayWebhookRoute, { core: options.core });
  if (options.miniApp) {
    await app.register(miniAppRoutes, { core: options.core, ...options.miniApp });
    await registerMiniAppPage(app);
  }
  app.get("/openapi.json", { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
  if (options.telegramWebhook) {
    // Telegram's own servers call this: no API key, no per-address limit; the secret token authenticates them.
    app.post(TELEGRAM_WEBHOOK_PATH, { config: { public: true, rateLimit: false }, schema: { hide: true } }, options.telegramWebhook);
  }
  return app;
}
