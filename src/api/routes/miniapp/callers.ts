import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../../../core/accounts.js";
import { telegramActor } from "../../../core/admin.js";
import { DomainError } from "../../../core/model/errors.js";
import { callerOf, isMiniAppCaller } from "../../caller.js";
import type { MiniAppOptions } from "../../miniapp/options.js";

export const MINIAPP_PREFIX = "/miniapp";

/** A Mini App user: a session's caller, whose account has a Telegram id. */
export type MiniAppCaller = Caller & { account: { telegramId: string } };

/** The signed-in user: only a Mini App session, never an API key, opens these routes (the admin desk above all). */
export function userOf(request: FastifyRequest): MiniAppCaller {
  const caller = callerOf(request);
  if (!isMiniAppCaller(caller) || !caller.account.telegramId) throw new DomainError("unauthorized", "These routes take the Mini App's session");
  return caller as MiniAppCaller;
}

/** The administrators' Telegram ids (ADMIN_TELEGRAM_IDS), as the accounts hold them. */
export const adminsOf = (options: Pick<MiniAppOptions, "admins">): ReadonlySet<string> => new Set(options.admins.map(String));

/** An administrator signed in (ADMIN_TELEGRAM_IDS), and how the ledger and the audit name them. */
export function adminOf(request: FastifyRequest, admins: ReadonlySet<string>) {
  const { account } = userOf(request);
  // Their account works (not key_blocked): they are just not an administrator.
  if (!admins.has(account.telegramId)) throw new DomainError("forbidden", "The admin desk is for the service's administrators only");
  return { telegramId: account.telegramId, username: account.username, actor: telegramActor(account.telegramId) };
}

/** The scope's routes in the OpenAPI document: under their tag, signed in with the session (a bearer token). */
export function documentAs(app: FastifyInstance, tag: string): void {
  app.addHook("onRoute", (route) => {
    route.schema = { tags: [tag], security: [{ bearer: [] }], ...route.schema };
  });
}
