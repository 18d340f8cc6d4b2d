import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { validate } from "@telegram-apps/init-data-node";
import { z } from "zod";
import type { Accounts, Caller } from "../../core/accounts.js";
import { BARE_USERNAME_PATTERN } from "../../core/formats.js";
import { DomainError } from "../../core/model/errors.js";
import type { Clock } from "../../core/model/clock.js";

// The Mini App's sign-in: Telegram's init data, checked as Telegram documents (HMAC-SHA256 keyed with
// HMAC("WebAppData", bot token), by @telegram-apps/init-data-node), exchanged for a short-lived session bound to
// that Telegram user. The API key never reaches the browser.

/** The user the init data names (Telegram's fields we use), checked at this boundary. */
const userSchema = z.object({
  id: z.number().int().positive(),
  first_name: z.string().max(256),
  last_name: z.string().max(256).optional(),
  username: z.string().regex(BARE_USERNAME_PATTERN).optional(),
  language_code: z.string().max(35).optional(),
});
export type MiniAppUser = z.infer<typeof userSchema>;

export interface MiniAppSessionOptions {
  botToken: string;
  /** Init data older than this (by its auth_date) is refused. */
  initDataMaxAgeMs: number;
  sessionTtlMs: number;
  clock: Clock;
}

const b64 = (buffer: Buffer) => buffer.toString("base64url");

/**
 * Checks init data and issues and verifies session tokens: `ms1.<payload>.<mac>`, the payload the Telegram
 * user id, the account's session generation and the expiry, the MAC an HMAC-SHA256 under a key derived from the bot token (so every instance
 * with the same bot verifies the same sessions, and a new token ends them all).
 */
export function createMiniAppSessions(options: MiniAppSessionOptions) {
  const key = createHash("sha256").update(`miniapp-session\0${options.botToken}`).digest();
  const mac = (payload: string) => createHmac("sha256", key).update(payload).digest();

  return {
    /**
     * The user of valid, fresh init data from this bot, or null (forged, expired, another bot's, malformed).
     * `maxAgeMs`: a tighter bound than sign-in's, for what needs the user present just now (a new key).
     */
    userOf(initData: string, maxAgeMs = options.initDataMaxAgeMs): MiniAppUser | null {
      try {
        // The library counts in seconds.
        validate(initData, options.botToken, { expiresIn: Math.min(maxAgeMs, options.initDataMaxAgeMs) / 1000 });
        const user = userSchema.safeParse(JSON.parse(new URLSearchParams(initData).get("user") ?? "null"));
        return user.success ? user.data : null;
      } catch {
        return null;
      }
    },

    /** A session for the user at the account's current session generation (a later bump ends it). */
    issue(telegramId: number, generation: number): { token: string; expiresAt: string } {
      const expires = options.clock.now().getTime() + options.sessionTtlMs;
      const payload = b64(Buffer.from(JSON.stringify({ tid: telegramId, gen: generation, exp: expires })));
      return { token: `ms1.${payload}.${b64(mac(payload))}`, expiresAt: new Date(expires).toISOString() };
    },

    /** The Telegram user id and the session generation a session token names while it is valid, or null. */
    verify(token: string | undefined): { telegramId: number; generation: number } | null {
      const match = /^ms1\.([A-Za-z0-9_-]{10,200})\.([A-Za-z0-9_-]{43})$/.exec(token ?? "");
      if (!match) return null;
      const [, payload, signature] = match;
      const expected = mac(payload);
      const given = Buffer.from(signature, "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      const claims = z
        .object({ tid: z.number().int().positive(), gen: z.number().int().nonnegative(), exp: z.number() })
        .safeParse(JSON.parse(Buffer.from(payload, "base64url").toString()));
      if (!claims.success || claims.data.exp <= options.clock.now().getTime()) return null;
      return { telegramId: claims.data.tid, generation: claims.data.gen };
    },
  };
}

export type MiniAppSessions = ReturnType<typeof createMiniAppSessions>;

/** Session tokens look like this; an API key never does (it starts with sj_). */
export const isSessionToken = (presented: string) => presented.startsWith("ms1.");

/** The caller a session stands for, as a key stands for its account: the Mini App calls the API's own routes with it. */
export async function sessionCaller(sessions: MiniAppSessions, accounts: Accounts, token: string): Promise<Caller> {
  const claims = sessions.verify(token);
  if (claims === null) throw new DomainError("unauthorized", "The Mini App session is missing, invalid or expired: sign in again");
  const account = await accounts.byTelegramId(String(claims.telegramId));
  if (!account) throw new DomainError("unauthorized", "No account for this session: sign in again");
  // Blocked first: the user is told why, rather than to sign in again.
  if (account.blocked) throw new DomainError("key_blocked", "This account is blocked");
  if (claims.generation !== account.sessionGeneration) {
    throw new DomainError(
      "unauthorized",
      "The Mini App session has ended (the API key was rotated, or the account blocked or unblocked): sign in again",
    );
  }
  return { account, actor: `miniapp:${claims.telegramId}`, fresh: true };
}
