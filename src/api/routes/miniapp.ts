import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import { z } from "zod";
import type { Core } from "../../core/index.js";
import { DomainError } from "../../core/errors.js";
import { divideRounded, MICRO_PER_USDT, toUsdt } from "../../core/money.js";
import { errorBody, insufficientFundsBody } from "../../wire/common.js";
import { ordersQuery, ordersResponse, ordersView } from "../../wire/orders.js";
import { quoteBody, quoteResponse, quoteView } from "../../wire/quotes.js";
import { toTopupView, topupBody, topupIdParams, topupResponse } from "../../wire/topups.js";
import { purchaseResponse, starsBody, starsRequestOf, starsView } from "../../wire/stars.js";
import { purchaseOptions } from "../requests.js";
import { issueQuote } from "./quotes.js";
import { startTopup } from "./topups.js";
import type { MiniAppSessions } from "../miniapp/session.js";

export const MINIAPP_PREFIX = "/miniapp";

const sessionBody = z.object({ init_data: z.string().min(1, "init_data is required").max(4096, "init_data must be at most 4096 characters") });
const sessionResponse = z.object({
  success: z.literal(true),
  token: z.string().describe("Send as Authorization: Bearer <token> to the Mini App's routes; it ends at expires_at"),
  expires_at: z.string(),
  user: z.object({ telegram_id: z.string(), username: z.string().nullable(), language: z.string().nullable() }),
});
const meResponse = z.object({
  success: z.literal(true),
  telegram_id: z.string(),
  username: z.string().nullable(),
  balance_usdt: z.number(),
  balance_uzs: z.number().int().describe("The balance in UZS at the configured rate (as the bot shows it)"),
  balance_ton: z.number().nullable().describe("The balance in TON at the live rate, or null when the rate cannot be read"),
});

/**
 * The Mini App's own routes (the third face, over the same core): sign-in by Telegram's init data, then a
 * session token. No API key: the browser never holds one.
 */
export const miniAppRoutes: FastifyPluginAsyncZod<{ core: Core; sessions: MiniAppSessions; support: string | null }> = async (app, options) => {
  const { core, sessions } = options;
  // Every route here takes the Mini App's session, never an API key (the API's key check passes them by), and is
  // described so: tagged, with the bearer session unless a route says otherwise.
  app.addHook("onRoute", (route) => {
    route.config = { ...(route.config as object), public: true } as typeof route.config;
    route.schema = { tags: ["Mini App"], security: [{ bearer: [] }], ...route.schema };
  });
  const refused = (message: string) => new DomainError("unauthorized", message);

  app.post(
    `${MINIAPP_PREFIX}/session`,
    {
      schema: {
        summary: "Sign in to the Mini App with Telegram's init data; answers a short-lived session",
        operationId: "miniAppSession",
        security: [],
        body: sessionBody,
        response: { 200: sessionResponse, 400: errorBody, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => {
      const user = sessions.userOf(request.body.init_data);
      if (!user) throw refused("The Telegram sign-in data is not valid (forged, too old, or for another bot): open the Mini App from the bot again");
      const account = await core.accounts.register(String(user.id), user.username ?? null);
      if (account.blocked) {
        const support = options.support ? ` Contact ${options.support}.` : "";
        throw new DomainError("key_blocked", `This account is blocked.${support}`);
      }
      const session = sessions.issue(user.id);
      return {
        success: true as const,
        token: session.token,
        expires_at: session.expiresAt,
        user: { telegram_id: String(user.id), username: account.username, language: account.language ?? user.language_code ?? null },
      };
    },
  );

  /** The signed-in user as a caller of the core (what a key is to the API); refused when the session is not valid. */
  async function callerOf(request: FastifyRequest): Promise<Caller> {
    const telegramId = sessions.verify(request.headers.authorization?.replace(/^Bearer\s+/i, ""));
    if (telegramId === null) throw refused("The Mini App session is missing, invalid or expired: sign in again");
    const account = await core.accounts.byTelegramId(String(telegramId));
    if (!account) throw refused("No account for this session: sign in again");
    if (account.blocked) throw new DomainError("key_blocked", "This account is blocked");
    return { account, actor: `miniapp:${telegramId}` };
  }

  // The shop's quote and purchase: the API's own bodies, rules, binding quotes and views, for the signed-in user.
  app.post(
    `${MINIAPP_PREFIX}/quotes`,
    {
      schema: {
        summary: "A binding quote for the signed-in user (the body of POST /v1/quotes)",
        operationId: "miniAppQuote",
        body: quoteBody,
        response: { 200: quoteResponse, 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody, 503: errorBody },
      },
    },
    async (request) => {
      const { quote, fields } = await issueQuote(core, await callerOf(request), request.body);
      return quoteView(request.body.product_type, quote, fields);
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/stars`,
    {
      schema: {
        summary: "Buy stars as the signed-in user (the body and answer of POST /v1/stars)",
        operationId: "miniAppBuyStars",
        body: starsBody,
        response: {
          200: purchaseResponse,
          502: purchaseResponse,
          400: errorBody,
          401: errorBody,
          402: insufficientFundsBody,
          403: errorBody,
          503: errorBody,
        },
      },
    },
    async (request, reply) => {
      const caller = await callerOf(request);
      const { order, replay, balanceAfterMicro } = await core.stars.buy(caller, starsRequestOf(request.body), purchaseOptions(request.body));
      return reply.code(!replay && order.status === "failed" ? 502 : 200).send(starsView(order, balanceAfterMicro));
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/orders`,
    {
      schema: {
        summary: "The signed-in user's orders, newest first (the query and answer of GET /v1/orders)",
        operationId: "miniAppOrders",
        querystring: ordersQuery,
        response: { 200: ordersResponse, 400: errorBody, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => {
      const { account } = await callerOf(request);
      const { limit, before, product_type, status } = request.query;
      return ordersView(await core.orders.list(account.id, limit, { before, productType: product_type, status }));
    },
  );

  // Top-ups: the API's bodies and views (a Crypto Pay invoice to pay, or a transfer to approve), and its status.
  app.post(
    `${MINIAPP_PREFIX}/topups`,
    {
      schema: {
        summary: "Top up as the signed-in user (the body and answer of POST /v1/topups)",
        operationId: "miniAppTopup",
        body: topupBody,
        response: { 200: topupResponse, 400: errorBody, 401: errorBody, 403: errorBody, 429: errorBody, 503: errorBody },
      },
    },
    async (request) => {
      const { account } = await callerOf(request);
      return { success: true as const, topup: toTopupView(await startTopup(core, account, request.body)) };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/topups/:topup_id`,
    {
      schema: {
        summary: "One of the signed-in user's top-ups and its status",
        operationId: "miniAppGetTopup",
        params: topupIdParams,
        response: { 200: topupResponse, 400: errorBody, 401: errorBody, 403: errorBody, 404: errorBody },
      },
    },
    async (request) => {
      const { account } = await callerOf(request);
      return { success: true as const, topup: toTopupView(await core.topups.get(account, request.params.topup_id)) };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/me`,
    {
      schema: {
        summary: "The signed-in user and their balance",
        operationId: "miniAppMe",
        response: { 200: meResponse, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => {
      const { account } = await callerOf(request);
      const available = await core.accounts.available(account);
      const { tonUsd } = await core.pricing.tonRate();
      return {
        success: true as const,
        telegram_id: account.telegramId!,
        username: account.username,
        balance_usdt: toUsdt(available),
        // The bot's equivalents: UZS at the configured rate, TON at the live one.
        balance_uzs: divideRounded(available * core.pricing.tariffs.uzsPerUsd, MICRO_PER_USDT),
        balance_ton: tonUsd === null ? null : toUsdt(divideRounded(available, tonUsd)),
      };
    },
  );
};
