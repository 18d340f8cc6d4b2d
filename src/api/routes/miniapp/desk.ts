import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../../core/index.js";
import { notFound } from "../../../core/model/errors.js";
import { fromUsdt, toUsdt } from "../../../core/model/money.js";
import { errorBody, keyedErrors } from "../../../wire/common.js";
import {
  blockBody,
  blockResponse,
  decisionBody,
  decisionResponse,
  deskStarsTopupsResponse,
  deskTopupResponse,
  deskTopupView,
  moveBody,
  moveResponse,
  overviewResponse,
  pendingTransferView,
  starsRefundBody,
  telegramIdParams,
  userQuery,
  userResponse,
  userView,
  volumeView,
} from "../../../wire/miniapp.js";
import { starBookResponse, toStarBookView } from "../../../wire/star-book.js";
import { toTopupView, topupIdParams } from "../../../wire/topups.js";
import type { MiniAppOptions } from "../../miniapp/options.js";
import { adminOf, adminsOf, documentAs, MINIAPP_PREFIX } from "./callers.js";

const ADMIN_DAYS = 30;
/** The Stars top-ups a found user's card lists, newest first. */
const STARS_TOPUPS_SHOWN = 10;

// The Mini App's admin desk, for the service's administrators only (ADMIN_TELEGRAM_IDS, signed in with a session):
// what the bot's /stats, /user, /credit, /debit, /block and the top-up buttons do.

/** What the admin desk shows: the overview (volume, providers, transfers waiting) and a user found. */
export const miniAppDeskRoutes: FastifyPluginAsyncZod<{ core: Core } & MiniAppOptions> = async (app, options) => {
  const { core } = options;
  const admins = adminsOf(options);
  documentAs(app, "Mini App admin desk");

  app.get(
    `${MINIAPP_PREFIX}/admin/overview`,
    {
      schema: {
        summary: "Today's and the last 30 days' volume by product, upstream readiness and the transfers waiting",
        operationId: "miniAppAdminOverview",
        response: { 200: overviewResponse, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request, admins);
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
        confirm_above_usdt: toUsdt(core.admin.confirm.aboveMicro),
      };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/admin/users`,
    {
      schema: {
        summary: "Find a user by Telegram id, @username or key prefix (exactly one, or the refusal naming the candidates)",
        operationId: "miniAppAdminFindUser",
        querystring: userQuery,
        response: { 200: userResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request, admins);
      const account = await core.admin.resolveTarget(request.query.target.trim());
      const [funds, prefix, orders] = await Promise.all([
        core.accounts.balance(account),
        core.admin.keyPrefix(account.id),
        core.orders.list(account.id, 5),
      ]);
      return userView(account, funds.availableMicro, prefix, orders);
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/admin/topups/:topup_id`,
    {
      schema: {
        summary: "Any user's top-up by its id, with whose it is (to refund a Stars top-up)",
        operationId: "miniAppAdminTopup",
        params: topupIdParams,
        response: { 200: deskTopupResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request, admins);
      const topup = await core.topups.find(request.params.topup_id);
      const owner = await core.accounts.get(topup.accountId);
      return { success: true as const, ...deskTopupView(topup, owner) };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/admin/users/:telegram_id/stars-topups`,
    {
      schema: {
        summary: "A user's latest top-ups paid in Telegram Stars, newest first",
        operationId: "miniAppAdminStarsTopups",
        params: telegramIdParams,
        response: { 200: deskStarsTopupsResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request, admins);
      const account = await core.accounts.byTelegramId(request.params.telegram_id);
      if (!account) throw notFound(`No user ${request.params.telegram_id}`);
      const topups = await core.topups.list(account, { limit: STARS_TOPUPS_SHOWN, method: "stars" });
      return { success: true as const, topups: topups.map((topup) => deskTopupView(topup, account)) };
    },
  );

  app.get(
    `${MINIAPP_PREFIX}/admin/stars`,
    {
      schema: {
        summary:
          "The bot's Star book: its balance now, what open orders will spend, today's Stars in and out, each product's margin in Stars and the last reconciliation",
        operationId: "miniAppAdminStars",
        response: { 200: starBookResponse, ...keyedErrors },
      },
    },
    async (request) => {
      adminOf(request, admins);
      return toStarBookView(await core.starBook.summary());
    },
  );
};

/**
 * What the admin desk changes, each change in the ledger or the audit under the administrator's name (the user
 * hears of it through the bot): a credit or debit, a block, a transfer's decision.
 */
export const miniAppDeskActionRoutes: FastifyPluginAsyncZod<{ core: Core } & MiniAppOptions> = async (app, options) => {
  const { core } = options;
  const admins = adminsOf(options);
  documentAs(app, "Mini App admin desk");

  app.post(
    `${MINIAPP_PREFIX}/admin/users/:telegram_id/balance`,
    {
      schema: {
        summary: "Credit or debit a user (a ledger entry naming the admin); above the threshold only with confirmed: true",
        operationId: "miniAppAdminMove",
        params: telegramIdParams,
        body: moveBody,
        response: { 200: moveResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request, admins);
      const { direction, note, confirmed } = request.body;
      const amount = fromUsdt(request.body.amount_usdt);
      const { telegram_id: telegramId } = request.params;
      // The user hears of it through the bot (core.admin's notice), as of a move made there; above the threshold
      // the core refuses it unless confirmed.
      const balance = await core.admin[direction](telegramId, amount, admin.actor, { note: note || undefined, confirmed });
      return { success: true as const, balance_usdt: toUsdt(balance) };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/admin/users/:telegram_id/block`,
    {
      schema: {
        summary: "Block or unblock a user (an audit entry naming the admin); the user is told",
        operationId: "miniAppAdminBlock",
        params: telegramIdParams,
        body: blockBody,
        response: { 200: blockResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request, admins);
      const { blocked } = request.body;
      const { telegram_id: telegramId } = request.params;
      await core.admin.setBlocked(telegramId, blocked, admin.actor);
      return { success: true as const, blocked };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/admin/topups/:topup_id/decision`,
    {
      schema: {
        summary:
          "Approve (credited once; with confirmed: true when its confirm list is not empty) or reject (with the reason the user is told) a transfer top-up; the first decision wins",
        operationId: "miniAppAdminDecide",
        params: topupIdParams,
        body: decisionBody,
        response: { 200: decisionResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request, admins);
      const { approve, reason, confirmed } = request.body;
      const who = { telegramId: admin.telegramId, name: admin.username ? `@${admin.username}` : admin.telegramId };
      const decision = approve ? { approve: true as const, confirmed } : { approve: false as const, reason: reason ?? "" };
      const decided = await core.topups.decide(request.params.topup_id, who, decision);
      return { success: true as const, decided: decided.decided, topup: toTopupView(decided.topup) };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/admin/topups/:topup_id/refund`,
    {
      schema: {
        summary:
          "Refund a Stars top-up (confirmed: true): its credit reversed in the ledger, then Telegram's refundStarPayment; refused, saying why, when the credit is spent, refunded already or Telegram refuses",
        operationId: "miniAppAdminRefundStars",
        params: topupIdParams,
        body: starsRefundBody,
        response: { 200: deskTopupResponse, 400: errorBody, 404: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const admin = adminOf(request, admins);
      const who = { telegramId: admin.telegramId, name: admin.username ? `@${admin.username}` : admin.telegramId };
      const topup = await core.topups.refundStars(request.params.topup_id, who);
      const owner = await core.accounts.get(topup.accountId);
      return { success: true as const, ...deskTopupView(topup, owner) };
    },
  );
};
