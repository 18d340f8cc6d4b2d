import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import { DomainError, type ErrorDetails, type ErrorCode, invalid } from "../../core/model/errors.js";
import { fromUsdt, type Micro, toUsdt } from "../../core/model/money.js";
import { errorBody, keyedErrors } from "../../wire/common.js";
import {
  blockBody,
  blockResponse,
  checkResponse,
  decisionBody,
  decisionResponse,
  keyBody,
  keyResponse,
  meResponse,
  moveBody,
  moveResponse,
  overviewResponse,
  pendingTransferView,
  sessionBody,
  sessionResponse,
  telegramIdParams,
  userQuery,
  userResponse,
  userView,
  volumeView,
} from "../../wire/miniapp.js";
import { quoteBody } from "../../wire/quotes.js";
import { STORE_FIELD_CODES } from "../../wire/store.js";
import { toTopupView, topupIdParams } from "../../wire/topups.js";
import { quotable } from "./quotes.js";
import { callerOf, isMiniAppCaller } from "../auth.js";
import type { MiniAppSessions } from "../miniapp/session.js";

const MINIAPP_PREFIX = "/miniapp";
const ADMIN_DAYS = 30;
/**
 * A new API key needs the user present just now, not only a session (up to an hour old, or signed in by init data
 * up to an hour old that may have leaked): init data at most this old, for the session's own Telegram user.
 */
export const KEY_INIT_DATA_MAX_AGE_SECONDS = 300;

export interface MiniAppOptions {
  sessions: MiniAppSessions;
  support: string | null;
  /** ADMIN_TELEGRAM_IDS: who sees the admin desk. */
  admins: number[];
  /** Credits and debits above this need a second, confirmed call (as the bot asks Confirm). */
  confirmAboveMicro: Micro;
  /** A refusal in the bot's words in a language (en/ru), for the user to read. */
  refusal: (language: string | null, refusal: { code: ErrorCode; details: ErrorDetails }) => string;
}

/**
 * The Mini App's own routes: sign-in by Telegram's init data, the user and their key, and the admin desk. The
 * shop and the account call the API's routes with the session (src/api/app.ts), so there is no rule of its own.
 */
export const miniAppRoutes: FastifyPluginAsyncZod<{ core: Core } & MiniAppOptions> = async (app, options) => {
  const { core, sessions } = options;
  const admins = new Set(options.admins.map(String));
  app.addHook("onRoute", (route) => {
    route.schema = { tags: ["Mini App"], security: [{ bearer: [] }], ...route.schema };
  });

  /** The signed-in user: only a Mini App session, never an API key, opens these routes (the admin desk above all). */
  function userOf(request: FastifyRequest): Caller & { account: { telegramId: string } } {
    const caller = callerOf(request);
    if (!isMiniAppCaller(caller) || !caller.account.telegramId) throw new DomainError("unauthorized", "These routes take the Mini App's session");
    return caller as Caller & { account: { telegramId: string } };
  }
  /** An administrator signed in (ADMIN_TELEGRAM_IDS), and how the ledger and the audit name them. */
  function adminOf(request: FastifyRequest) {
    const { account } = userOf(request);
    // Their account works (not key_blocked): they are just not an administrator.
    if (!admins.has(account.telegramId)) throw new DomainError("forbidden", "The admin desk is for the service's administrators only");
    return { telegramId: account.telegramId, username: account.username, actor: `tg:${account.telegramId}` };
  }

  app.post(
    `${MINIAPP_PREFIX}/session`,
    {
      config: { public: true },
      schema: {
        summary: "Sign in to the Mini App with Telegram's init data; answers a short-lived session",
        operationId: "miniAppSession",
        security: [],
        body: sessionBody,
        response: { 200: sessionResponse, 400: errorBody, 401: errorBody, 403: errorBody, 429: errorBody },
      },
    },
    async (request) => {
      const user = sessions.userOf(request.body.init_data);
      if (!user) {
        throw new DomainError(
          "unauthorized",
          "The Telegram sign-in data is not valid (forged, too old, or for another bot): open the Mini App from the bot again",
        );
      }
      const account = await core.accounts.register(String(user.id), user.username ?? null, user.language_code);
      if (account.blocked) {
        // Why, in the user's language, and whom to ask.
        const why = options.refusal(account.language, { code: "key_blocked", details: {} });
        throw new DomainError("key_blocked", options.support ? `${why} ${options.support}` : why);
      }
      const session = sessions.issue(user.id, account.sessionGeneration);
      return {
        success: true as const,
        token: session.token,
        expires_at: session.expiresAt,
        user: { telegram_id: String(user.id), username: account.username, language: account.language },
      };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/me`,
    {
      schema: {
        summary: "The signed-in user, their key's prefix and their balance",
        operationId: "miniAppMe",
        response: { 200: meResponse, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = userOf(request);
      const [available, prefix] = await Promise.all([core.accounts.available(account), core.admin.keyPrefix(account.id)]);
      const { uzs, tonMicro } = await core.pricing.equivalents(available);
      return {
        success: true as const,
        telegram_id: account.telegramId,
        username: account.username,
        language: account.language === "ru" ? ("ru" as const) : ("en" as const),
        admin: admins.has(account.telegramId),
        key_prefix: prefix,
        balance_usdt: toUsdt(available),
        // The bot's equivalents: UZS at the configured rate, TON at the live one.
        balance_uzs: uzs,
        balance_ton: tonMicro === null ? null : toUsdt(tonMicro),
      };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/check`,
    {
      config: { fieldErrorCodes: STORE_FIELD_CODES },
      schema: {
        summary:
          "Check a purchase as the user fills it in: every rule and live read of the purchase, its charge now; nothing stored, charged or sent",
        operationId: "miniAppCheck",
        body: quoteBody,
        response: { 200: checkResponse, 400: errorBody, 404: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const caller = userOf(request);
      const [priced, balance] = await Promise.all([quotable(core, request.body).price(caller), core.accounts.available(caller.account)]);
      return {
        success: true as const,
        product_type: request.body.product_type,
        recipient: priced.recipient,
        charge_usdt: toUsdt(priced.chargeMicro),
        balance_usdt: toUsdt(balance),
        balance_after_usdt: toUsdt(balance - priced.chargeMicro),
      };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/key`,
    {
      schema: {
        summary:
          "Issue a new API key with fresh init data (at most 5 minutes old, the session's user): the previous key and every other session stop; the key is in this answer only, with the session that goes on",
        operationId: "miniAppRotateKey",
        body: keyBody,
        response: { 200: keyResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = userOf(request);
      const present = sessions.userOf(request.body.init_data, KEY_INIT_DATA_MAX_AGE_SECONDS);
      if (!present || String(present.id) !== account.telegramId) {
        throw new DomainError(
          "unauthorized",
          `A new key needs Telegram's sign-in data of this user from the last ${KEY_INIT_DATA_MAX_AGE_SECONDS / 60} minutes: open the Mini App from the bot again`,
        );
      }
      const issued = await core.accounts.issueKey(account.telegramId, account.username);
      // The rotation ended every session, this one too; the user just proved presence, so this page goes on with a new one.
      const session = sessions.issue(present.id, issued.account.sessionGeneration);
      return {
        success: true as const,
        key: issued.key,
        key_prefix: issued.displayPrefix,
        session: { token: session.token, expires_at: session.expiresAt },
      };
    },
  );

  // The admin desk: what the bot's /stats, /user, /credit, /debit, /block and the top-up buttons do.
  const adminSchema = { tags: ["Mini App admin desk"] };

  app.get(
    `${MINIAPP_PREFIX}/admin/overview`,
    {
      schema: {
        ...adminSchema,
        summary: "Today's and the last 30 days' volume by product, upstream readiness and the transfers waiting",
        operationId: "miniAppAdminOverview",
        response: { 200: overviewResponse, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request);
      const now = core.clock.now();
      const [{ today, days }, health, pending] = await Promise.all([
        core.admin.volume(now, ADMIN_DAYS),
        core.health.current(),
        core.topups.pendingTransfers(50),
      ]);
      return {
        success: true as const,
        today: today.map(volumeView),
        days: days.map((row) => ({ day: row.day, ...volumeView(row) })),
        upstreams: health.ready,
        pending_transfers: pending.map(pendingTransferView),
        confirm_above_usdt: toUsdt(options.confirmAboveMicro),
      };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/admin/users`,
    {
      schema: {
        ...adminSchema,
        summary: "Find a user by Telegram id, @username or key prefix (exactly one, or the refusal naming the candidates)",
        operationId: "miniAppAdminFindUser",
        querystring: userQuery,
        response: { 200: userResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request);
      const account = await core.admin.resolveTarget(request.query.target.trim());
      const [funds, prefix, orders] = await Promise.all([
        core.accounts.balance(account),
        core.admin.keyPrefix(account.id),
        core.orders.list(account.id, 5),
      ]);
      return userView(account, funds.availableMicro, prefix, orders);
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/admin/users/:telegram_id/balance`,
    {
      schema: {
        ...adminSchema,
        summary: "Credit or debit a user (a ledger entry naming the admin); above the threshold only with confirmed: true",
        operationId: "miniAppAdminMove",
        params: telegramIdParams,
        body: moveBody,
        response: { 200: moveResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request);
      const { direction, note, confirmed } = request.body;
      const amount = fromUsdt(request.body.amount_usdt);
      if (amount > options.confirmAboveMicro && !confirmed) {
        throw invalid(`Moves above ${toUsdt(options.confirmAboveMicro)} USDT need confirmed: true`);
      }
      const { telegram_id: telegramId } = request.params;
      // The user hears of it through the bot (core.admin's notice), as of a move made there.
      const balance = await core.admin[direction](telegramId, amount, admin.actor, note || undefined);
      return { success: true as const, balance_usdt: toUsdt(balance) };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/admin/users/:telegram_id/block`,
    {
      schema: {
        ...adminSchema,
        summary: "Block or unblock a user (an audit entry naming the admin); the user is told",
        operationId: "miniAppAdminBlock",
        params: telegramIdParams,
        body: blockBody,
        response: { 200: blockResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request);
      const { blocked } = request.body;
      const { telegram_id: telegramId } = request.params;
      if (blocked && telegramId === admin.telegramId) throw invalid("An administrator cannot block themselves here");
      await core.admin.setBlocked(telegramId, blocked, admin.actor);
      return { success: true as const, blocked };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/admin/topups/:topup_id/decision`,
    {
      schema: {
        ...adminSchema,
        summary:
          "Approve (credited once; with confirmed: true when its confirm list is not empty) or reject (with the reason the user is told) a transfer top-up; the first decision wins",
        operationId: "miniAppAdminDecide",
        params: topupIdParams,
        body: decisionBody,
        response: { 200: decisionResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request);
      const { approve, reason, confirmed } = request.body;
      const who = { telegramId: admin.telegramId, name: admin.username ? `@${admin.username}` : admin.telegramId };
      const decision = approve ? { approve: true as const, confirmed } : { approve: false as const, reason: reason ?? "" };
      const decided = await core.topups.decide(request.params.topup_id, who, decision);
      return { success: true as const, decided: decided.decided, topup: toTopupView(decided.topup) };
    },
  );
};
