import ipaddr from "ipaddr.js";
import type { FastifyRequest } from "fastify";
import type { Caller } from "../core/accounts.js";
import { DomainError } from "../core/model/errors.js";
import type { Reason } from "../core/model/reasons.js";
import { KEY_BUCKET_PREFIX, type WindowCount } from "../core/request-counter.js";

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
    /** This request, counted in its key's bucket together with the key's read (the shared counter), or null. */
    counted: WindowCount | null;
    authError: DomainError | null;
  }
  interface FastifyContextConfig {
    /** No key needed (health, the OpenAPI document). */
    public?: boolean;
    /** A public route that reads a key when one is sent: a valid one sets the caller, any other leaves it anonymous. */
    keyOptional?: boolean;
    /** error_code to send when request validation fails on a field. */
    fieldErrorCodes?: Record<string, Reason>;
    /**
     * What the route reads first, which the key's read may read with it: the caller's order `order_id` (a status;
     * Caller.ownOrder), or whether the account has a webhook endpoint (a sandbox call; Caller.hasEndpoint).
     */
    readsFirst?: "order" | "endpoint";
  }
}

/** The authenticated caller of a keyed route. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new DomainError("unauthorized", "API key missing");
  return request.caller;
}

/** Whether the caller signed in through the Mini App (a session), not with an API key. */
export const isMiniAppCaller = (caller: Caller) => caller.actor.startsWith("miniapp:");

/**
 * Whom a request counts against: its account (the Mini App's sessions in a budget of their own, so a partner's
 * integration and the account's owner in the Mini App do not starve each other), or (unauthenticated) its address:
 * an IPv4 address, or the /64 an IPv6 address lies in (one subscriber holds a whole /64, so rotating within it must
 * not buy more tries).
 */
export function rateLimitKey(request: FastifyRequest): string {
  const { caller } = request;
  if (!caller) return `ip:${clientNetwork(request.ip)}`;
  return `${isMiniAppCaller(caller) ? "miniapp:" : KEY_BUCKET_PREFIX}${caller.account.id}`;
}

function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv4") return ip.toString();
  const prefix = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}
