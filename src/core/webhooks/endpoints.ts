import { isIP } from "node:net";
import type { Db } from "../../db/database.js";
import { transaction } from "../../db/transaction.js";
import {
  changeEndpointUrl,
  deleteEndpoint,
  endpointOf,
  insertEndpoint,
  revokePreviousSecret,
  rotateEndpointSecret,
} from "../../db/webhook-endpoints.js";
import { giveUpPending } from "../../db/webhook-events.js";
import { invalid, notFound } from "../model/errors.js";
import type { Clock } from "../model/clock.js";
import type { Vault } from "../vault.js";
import { addressAllowed, isLoopbackName } from "./addresses.js";
import { newSecret } from "./signature.js";
import type { SealedSecrets, StoredEndpoint, WebhookEndpoint } from "../model/webhook.js";

export const WEBHOOK_URL_MAX = 2048;

export interface EndpointPolicy {
  /** Development only: http:// and https:// to this machine (a receiver beside the simulator). */
  allowLoopback: boolean;
  /** How long the secret before a rotation keeps signing beside the new one. */
  secretOverlapMs: number;
}

/**
 * An endpoint's URL as the service will call it: HTTPS to a public host; plain HTTP, like any address of this
 * machine, only where the deployment allows loopback. Host names are checked again at each delivery, after DNS.
 */
export function checkEndpointUrl(raw: string, policy: Pick<EndpointPolicy, "allowLoopback">): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("url must be an absolute https:// URL");
  }
  if (raw.length > WEBHOOK_URL_MAX) throw invalid(`url must be at most ${WEBHOOK_URL_MAX} characters`);
  if (url.username || url.password) throw invalid("url must not carry a user name or password");
  if (url.hash) throw invalid("url must not have a #fragment");
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = isIP(host) !== 0;
  const local = isLoopbackName(host) || (literal && addressAllowed(host, true) && !addressAllowed(host, false));
  if (url.protocol === "http:") {
    if (!local || !policy.allowLoopback) throw invalid("url must use https:// (http:// only to this machine, in development)");
  } else if (url.protocol !== "https:") {
    throw invalid("url must be an absolute https:// URL");
  }
  if (local && !policy.allowLoopback) throw invalid("url must be a public address: this machine is not allowed");
  if (literal && !local && !addressAllowed(host, false)) throw invalid("url must be a public address: private and reserved networks are not allowed");
  return url.toString();
}

/** What its owner sees: never a secret. */
const view = ({ secretSealed: _secret, previousSecretSealed: _previous, ...endpoint }: StoredEndpoint): WebhookEndpoint => endpoint;

/** Registration, rotation and removal of an account's one endpoint. Secrets are stored sealed and shown once. */
export function createEndpoints({ db, clock, vault, policy }: { db: Db; clock: Clock; vault: Vault; policy: EndpointPolicy }) {
  const seal = (secret: string) => vault.seal([secret]);

  return {
    async get(accountId: number): Promise<WebhookEndpoint | null> {
      const row = await endpointOf(db, accountId);
      return row ? view(row) : null;
    },

    /**
     * Sets the endpoint's URL. A first registration makes the secret and returns it (the only time it is shown);
     * changing the URL keeps the secret. Either way the endpoint is enabled again with its breaker closed, and its
     * waiting events go out at the dispatch's usual pace (a few at a time), not all at once.
     */
    async set(accountId: number, rawUrl: string): Promise<{ endpoint: WebhookEndpoint; secret: string | null }> {
      const url = checkEndpointUrl(rawUrl, policy);
      const at = clock.now().toISOString();
      return transaction(db, async (trx) => {
        const existing = await endpointOf(trx, accountId);
        let secret: string | null = null;
        if (existing) {
          await changeEndpointUrl(trx, accountId, { url, at });
        } else {
          secret = newSecret();
          await insertEndpoint(trx, { accountId, url, secretSealed: seal(secret), at });
        }
        return { endpoint: view((await endpointOf(trx, accountId))!), secret };
      });
    },

    /** A new secret, returned once; the previous one keeps signing beside it for the overlap. */
    async rotateSecret(accountId: number): Promise<{ secret: string; previousSecretUntil: string }> {
      const now = clock.now();
      const until = new Date(now.getTime() + policy.secretOverlapMs).toISOString();
      const secret = newSecret();
      return transaction(db, async (trx) => {
        const existing = await endpointOf(trx, accountId);
        if (!existing) throw notFound("No webhook endpoint: set one first (POST /v1/webhook)");
        await rotateEndpointSecret(trx, accountId, {
          secretSealed: seal(secret),
          previousSecretSealed: existing.secretSealed,
          previousUntil: until,
          at: now.toISOString(),
        });
        return { secret, previousSecretUntil: until };
      });
    },

    /** Ends a rotation's overlap now: only the current secret signs from here on (a leaked old one is revoked). */
    async revokePreviousSecret(accountId: number): Promise<WebhookEndpoint> {
      if (!(await revokePreviousSecret(db, accountId, clock.now().toISOString()))) {
        throw notFound("No webhook endpoint: set one first (POST /v1/webhook)");
      }
      return view((await endpointOf(db, accountId))!);
    },

    /** Removes the endpoint; events still waiting are given up (they had nowhere to go). */
    async remove(accountId: number): Promise<boolean> {
      return transaction(db, async (trx) => {
        const removed = await deleteEndpoint(trx, accountId);
        await giveUpPending(trx, accountId, "endpoint removed");
        return removed;
      });
    },

    /** The secrets that sign now: the current one, and the previous one during its overlap. */
    secretsOf(sealed: SealedSecrets): string[] {
      const secrets = vault.open(sealed.secretSealed);
      if (sealed.previousSecretSealed && sealed.previousSecretUntil && sealed.previousSecretUntil > clock.now().toISOString()) {
        secrets.push(...vault.open(sealed.previousSecretSealed));
      }
      return secrets;
    },
  };
}
