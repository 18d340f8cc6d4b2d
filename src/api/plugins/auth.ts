import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { Accounts, Caller } from "../../core/accounts.js";
import type { ReadWithKey } from "../../core/model/account.js";
import { DomainError } from "../../core/model/errors.js";
import type { WindowCount } from "../../core/request-counter.js";
import { orderIdParams } from "../../wire/common.js";
import { isSessionToken, type MiniAppSessions, sessionCaller } from "../miniapp/session.js";

/** On every answer to a request made with a replaced key still in its grace period: when that key stops answering. */
export const KEY_EXPIRES_HEADER = "x-api-key-expires-at";

/** The key from `X-API-Key` or `Authorization: Bearer`; one is enough. */
function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers["x-api-key"];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct) return direct.trim();
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  return bearer?.[1];
}

/** What the route reads first; an order id as the route's validation will take it, none when invalid (refused there). */
function readFirst(request: FastifyRequest): ReadWithKey | undefined {
  const reads = request.routeOptions.config?.readsFirst;
  if (reads === "endpoint") return { endpoint: true };
  if (reads !== "order") return undefined;
  const parsed = orderIdParams.safeParse(request.params);
  return parsed.success ? { orderId: parsed.data.order_id } : undefined;
}

interface AuthOptions {
  accounts: Accounts;
  /** With the Mini App: its sessions, which the Mini App presents to the API's own routes as its user. */
  sessions?: MiniAppSessions;
}

/**
 * Who calls (request.caller): an API key, or (with the Mini App) a session token. Resolves the credential in
 * onRequest but rejects only in preParsing, so the per-key rate limit (a route-level onRequest hook, which runs
 * after this global one) counts valid keys per account and failed attempts per IP. Public routes take none.
 */
const authPlugin: FastifyPluginAsync<AuthOptions> = async (app, { accounts, sessions }) => {
  const authenticate = (presented: string | undefined, also?: ReadWithKey): Promise<Caller & { counted?: WindowCount | null }> =>
    sessions && presented && isSessionToken(presented) ? sessionCaller(sessions, accounts, presented) : accounts.authenticate(presented, also);
  app.decorateRequest("caller", null);
  app.decorateRequest("counted", null);
  app.decorateRequest("authError", null);
  app.addHook("onRequest", async (request, reply) => {
    if (request.routeOptions.config?.public) {
      const presented = request.routeOptions.config.keyOptional ? presentedKey(request) : undefined;
      if (!presented) return;
      try {
        const { counted: _counted, ...caller } = await authenticate(presented);
        request.caller = caller;
      } catch (error) {
        // A wrong key on a public route is answered as no key: the route is public either way.
        if (!(error instanceof DomainError)) throw error;
      }
      return;
    }
    if (!request.routeOptions.url) return;
    try {
      const { counted, ...caller } = await authenticate(presentedKey(request), readFirst(request));
      request.caller = caller;
      // A replaced key in its grace period: every answer tells the partner's program when it stops.
      if (caller.keyExpiresAt) reply.header(KEY_EXPIRES_HEADER, caller.keyExpiresAt);
      request.counted = counted ?? null;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      request.authError = error;
    }
  });
  app.addHook("preParsing", (request, _reply, payload, done) => (request.authError ? done(request.authError) : done(null, payload)));
};

export const auth = fp(authPlugin, { name: "auth", fastify: "5.x" });
