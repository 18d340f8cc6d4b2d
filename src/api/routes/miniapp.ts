import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Core } from "../../core/index.js";
import { DomainError } from "../../core/errors.js";
import { toUsdt } from "../../core/money.js";
import { errorBody } from "../../wire/common.js";
import type { MiniAppSessions } from "../miniapp/session.js";

export const MINIAPP_PREFIX = "/miniapp";

const sessionBody = z.object({ init_data: z.string().min(1, "init_data is required").max(4096, "init_data must be at most 4096 characters") });
const sessionResponse = z.object({
  success: z.literal(true),
  token: z.string().describe("Send as Authorization: Bearer <token> to the Mini App's routes; it ends at expires_at"),
  expires_at: z.string(),
  user: z.object({ telegram_id: z.string(), username: z.string().nullable(), language: z.string().nullable() }),
});
const meResponse = z.object({ success: z.literal(true), telegram_id: z.string(), username: z.string().nullable(), balance_usdt: z.number() });

/**
 * The Mini App's own routes (the third face, over the same core): sign-in by Telegram's init data, then a
 * session token. No API key: the browser never holds one.
 */
export const miniAppRoutes: FastifyPluginAsyncZod<{ core: Core; sessions: MiniAppSessions; support: string | null }> = async (app, options) => {
  const { core, sessions } = options;
  const tags = ["Mini App"];
  const refused = (message: string) => new DomainError("unauthorized", message);

  app.post(
    `${MINIAPP_PREFIX}/session`,
    {
      config: { public: true },
      schema: {
        summary: "Sign in to the Mini App with Telegram's init data; answers a short-lived session",
        operationId: "miniAppSession",
        tags,
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

  app.get(
    `${MINIAPP_PREFIX}/me`,
    {
      config: { public: true },
      schema: {
        summary: "The signed-in user and their balance",
        operationId: "miniAppMe",
        tags,
        security: [{ bearer: [] }],
        response: { 200: meResponse, 401: errorBody, 403: errorBody },
      },
    },
    async (request) => {
      const telegramId = sessions.verify(request.headers.authorization?.replace(/^Bearer\s+/i, ""));
      if (telegramId === null) throw refused("The Mini App session is missing, invalid or expired: sign in again");
      const account = await core.accounts.byTelegramId(String(telegramId));
      if (!account) throw refused("No account for this session: sign in again");
      if (account.blocked) throw new DomainError("key_blocked", "This account is blocked");
      return {
        success: true as const,
        telegram_id: String(telegramId),
        username: account.username,
        balance_usdt: toUsdt(await core.accounts.available(account)),
      };
    },
  );
};
