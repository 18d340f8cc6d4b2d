import { languageOf } from "../../../core/accounts.js";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../../core/index.js";
import { DomainError } from "../../../core/model/errors.js";
import { toUsdt } from "../../../core/model/money.js";
import { errorBody, keyedErrors } from "../../../wire/common.js";
import {
  checkResponse,
  formsResponse,
  keyBody,
  keyResponse,
  meResponse,
  sessionBody,
  sessionResponse,
  starsTopupBody,
  starsTopupResponse,
  toFormsView,
  toStarsOfferView,
} from "../../../wire/miniapp.js";
import { toTopupView } from "../../../wire/topups.js";
import { quoteBody } from "../../../wire/quotes.js";
import { STORE_FIELD_CODES } from "../../../wire/store.js";
import { quotable } from "../quotes.js";
import type { MiniAppOptions } from "../../miniapp/options.js";
import { adminsOf, documentAs, MINIAPP_PREFIX, type MiniAppCaller, userOf } from "./callers.js";

/**
 * A new API key needs the user present just now, not only a session (up to an hour old, or signed in by init data
 * up to an hour old that may have leaked): init data at most this old, for the session's own Telegram user.
 */
const KEY_INIT_DATA_MAX_AGE_MS = 300_000;

/**
 * The Mini App user's own routes: sign-in by Telegram's init data, who they are, what the purchase forms take, a
 * purchase checked as it is filled in, and a new key. The shop and the account call the API's routes with the session (src/api/plugins/auth.ts), so
 * there is no rule of their own here.
 */
export const miniAppUserRoutes: FastifyPluginAsyncZod<{ core: Core } & MiniAppOptions> = async (app, options) => {
  const { core, sessions } = options;
  const admins = adminsOf(options);
  documentAs(app, "Mini App");

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
    async (request) => signIn(core, options, request.body.init_data),
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
    async (request) => me(core, admins, userOf(request)),
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

  app.get(
    `${MINIAPP_PREFIX}/forms`,
    {
      schema: {
        summary: "What the purchase forms take, as the core decides it for this user: a recipient's username, a gift's text and name",
        operationId: "miniAppForms",
        response: { 200: formsResponse, ...keyedErrors },
      },
    },
    async (request) => {
      const caller = userOf(request);
      return toFormsView({ messageMax: core.gifts.textRoom(caller), namesBuyer: core.gifts.namesBuyer });
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/topups/stars`,
    {
      schema: {
        summary:
          "A top-up paid in Telegram Stars: the invoice's link for Telegram.WebApp.openInvoice; credited once Telegram's successful_payment reaches the bot",
        operationId: "miniAppStarsTopup",
        body: starsTopupBody,
        response: { 200: starsTopupResponse, 400: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { topup, link } = await core.topups.starsLink(userOf(request).account, request.body.stars);
      return { success: true as const, link, topup: toTopupView(topup) };
    },
  );

  app.post(
    `${MINIAPP_PREFIX}/key`,
    {
      schema: {
        summary:
          "Issue a new API key with fresh init data (at most 5 minutes old, the session's user): the previous key stops now or after grace_hours, every other session now; the key is in this answer only, with the session that goes on",
        operationId: "miniAppRotateKey",
        body: keyBody,
        response: { 200: keyResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => newKey(core, sessions, userOf(request), request.body.init_data, request.body.grace_hours),
  );
};

/** The signed-in user: who they are, whether the admin desk is theirs, their key's prefix and their balance. */
async function me(core: Core, admins: ReadonlySet<string>, { account }: MiniAppCaller) {
  const [available, prefix] = await Promise.all([core.accounts.available(account), core.admin.keyPrefix(account.id)]);
  const { uzs, tonMicro } = await core.pricing.equivalents(available);
  return {
    success: true as const,
    telegram_id: account.telegramId,
    username: account.username,
    language: languageOf(account),
    admin: admins.has(account.telegramId),
    key_prefix: prefix,
    balance_usdt: toUsdt(available),
    // The bot's equivalents: UZS at the configured rate, TON at the live one.
    balance_uzs: uzs,
    balance_ton: tonMicro === null ? null : toUsdt(tonMicro),
    topup_limits: {
      min_usdt: toUsdt(core.topups.limits.minMicro),
      max_usdt: toUsdt(core.topups.limits.maxMicro),
      invoice_minutes: Math.round(core.topups.limits.invoiceTtlMs / 60_000),
    },
    // An owner key spends the service wallet: it has no balance to top up.
    stars_topup: account.kind === "standard" ? toStarsOfferView(core.topups.starsOffer()) : null,
  };
}

/** Sign-in: fresh init data from this bot for a session of its user's account (registered at the first). */
async function signIn(core: Core, { sessions, support, refusal }: MiniAppOptions, initData: string) {
  const user = sessions.userOf(initData);
  if (!user) {
    throw new DomainError(
      "unauthorized",
      "The Telegram sign-in data is not valid (forged, too old, or for another bot): open the Mini App from the bot again",
    );
  }
  const account = await core.accounts.register(String(user.id), user.username ?? null, user.language_code);
  if (account.blocked) {
    // Why, in the user's language, and whom to ask.
    const why = refusal(languageOf(account), { code: "key_blocked", details: {} });
    throw new DomainError("key_blocked", support ? `${why} ${support}` : why);
  }
  const session = sessions.issue(user.id, account.sessionGeneration);
  return {
    success: true as const,
    token: session.token,
    expires_at: session.expiresAt,
    user: { telegram_id: String(user.id), username: account.username, language: languageOf(account) },
  };
}

/** A new API key for a user shown present just now by init data; the session that goes on with it. */
async function newKey(core: Core, sessions: MiniAppOptions["sessions"], { account }: MiniAppCaller, initData: string, graceHours: number) {
  const present = sessions.userOf(initData, KEY_INIT_DATA_MAX_AGE_MS);
  if (!present || String(present.id) !== account.telegramId) {
    throw new DomainError(
      "unauthorized",
      `A new key needs Telegram's sign-in data of this user from the last ${KEY_INIT_DATA_MAX_AGE_MS / 60_000} minutes: open the Mini App from the bot again`,
    );
  }
  const issued = await core.accounts.issueKey(account.telegramId, account.username, graceHours);
  // The rotation ended every session, this one too; the user just proved presence, so this page goes on with a new one.
  const session = sessions.issue(present.id, issued.account.sessionGeneration);
  return {
    success: true as const,
    key: issued.key,
    key_prefix: issued.displayPrefix,
    previous_key_expires_at: issued.previousKeyExpiresAt,
    session: { token: session.token, expires_at: session.expiresAt },
  };
}
