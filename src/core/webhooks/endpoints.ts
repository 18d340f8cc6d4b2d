import { isIP } from "node:net";
import type { Db, Executor } from "../../db/database.js";
import { invalid, notFound } from "../errors.js";
import type { Clock } from "../ports.js";
import type { Vault } from "../vault.js";
import { addressAllowed, isLoopbackName } from "./addresses.js";
import { newSecret } from "./signature.js";

export const WEBHOOK_URL_MAX = 2048;

export interface EndpointPolicy {
  /** Development only: http:// and https:// to this machine (a receiver beside the simulator). */
  allowLoopback: boolean;
  /** How long the secret before a rotation keeps signing beside the new one. */
  secretOverlapMs: number;
}

export interface WebhookEndpoint {
  url: string;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the previous secret still signs (after a rotation), or null. */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
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

const view = (row: {
  url: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}): WebhookEndpoint => ({
  url: row.url,
  enabled: row.disabled_at === null,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  previousSecretUntil: row.previous_secret_until,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Registration, rotation and removal of an account's one endpoint. Secrets are stored sealed and shown once. */
export function createEndpoints(db: Db, clock: Clock, vault: Vault, policy: EndpointPolicy) {
  const seal = (secret: string) => vault.seal([secret]);
  const find = (exec: Executor, accountId: number) =>
    exec.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).executeTakeFirst();

  return {
    async get(accountId: number): Promise<WebhookEndpoint | null> {
      const row = await find(db, accountId);
      return row ? view(row) : null;
    },

    /**
     * Sets the endpoint's URL. A first registration makes the secret and returns it (the only time it is shown);
     * changing the URL keeps the secret. Either way the endpoint is enabled again and waiting events are due now.
     */
    async set(accountId: number, rawUrl: string): Promise<{ endpoint: WebhookEndpoint; secret: string | null }> {
      const url = checkEndpointUrl(rawUrl, policy);
      const at = clock.now().toISOString();
      return db.transaction().execute(async (trx) => {
        const existing = await find(trx, accountId);
        let secret: string | null = null;
        if (existing) {
          await trx
            .updateTable("webhook_endpoints")
            .set({ url, disabled_at: null, disabled_reason: null, updated_at: at })
            .where("account_id", "=", accountId)
            .execute();
        } else {
          secret = newSecret();
          await trx
            .insertInto("webhook_endpoints")
            .values({ account_id: accountId, url, secret_sealed: seal(secret), created_at: at, updated_at: at })
            .execute();
        }
        await trx
          .updateTable("webhook_events")
          .set({ next_attempt_at: at })
          .where("account_id", "=", accountId)
          .where("status", "=", "pending")
          .execute();
        return { endpoint: view((await find(trx, accountId))!), secret };
      });
    },

    /** A new secret, returned once; the previous one keeps signing beside it for the overlap. */
    async rotateSecret(accountId: number): Promise<{ secret: string; previousSecretUntil: string }> {
      const now = clock.now();
      const until = new Date(now.getTime() + policy.secretOverlapMs).toISOString();
      const secret = newSecret();
      return db.transaction().execute(async (trx) => {
        const existing = await find(trx, accountId);
        if (!existing) throw notFound("No webhook endpoint: set one first (POST /v1/webhook)");
        await trx
          .updateTable("webhook_endpoints")
          .set({
            secret_sealed: seal(secret),
            previous_secret_sealed: existing.secret_sealed,
            previous_secret_until: until,
            updated_at: now.toISOString(),
          })
          .where("account_id", "=", accountId)
          .execute();
        return { secret, previousSecretUntil: until };
      });
    },

    /** Removes the endpoint; events still waiting are given up (they had nowhere to go). */
    async remove(accountId: number): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const removed = await trx.deleteFrom("webhook_endpoints").where("account_id", "=", accountId).executeTakeFirst();
        await trx
          .updateTable("webhook_events")
          .set({ status: "failed", last_error: "endpoint removed", next_attempt_at: null })
          .where("account_id", "=", accountId)
          .where("status", "=", "pending")
          .execute();
        return Number(removed.numDeletedRows) > 0;
      });
    },

    /** The secrets that sign now: the current one, and the previous one during its overlap. */
    secretsOf(row: { secret_sealed: string; previous_secret_sealed: string | null; previous_secret_until: string | null }): string[] {
      const secrets = vault.open(row.secret_sealed);
      if (row.previous_secret_sealed && row.previous_secret_until && row.previous_secret_until > clock.now().toISOString()) {
        secrets.push(...vault.open(row.previous_secret_sealed));
      }
      return secrets;
    },
  };
}

export type Endpoints = ReturnType<typeof createEndpoints>;
