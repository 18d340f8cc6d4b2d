import type { SealedSecrets, StoredEndpoint } from "../core/webhooks/endpoints.js";
import type { Executor } from "./database.js";
import type { WebhookEndpointsTable } from "./schema.js";

// Each account's one webhook endpoint and its sealed secrets.

const toEndpoint = (row: WebhookEndpointsTable): StoredEndpoint => ({
  url: row.url,
  enabled: row.disabled_at === null,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  previousSecretUntil: row.previous_secret_until,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  secretSealed: row.secret_sealed,
  previousSecretSealed: row.previous_secret_sealed,
});

export async function endpointOf(exec: Executor, accountId: number): Promise<StoredEndpoint | undefined> {
  const row = await exec.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).executeTakeFirst();
  return row && toEndpoint(row);
}

/** Whether the account has an endpoint (one indexed read: the outbox asks before every event). */
export async function hasEndpoint(exec: Executor, accountId: number): Promise<boolean> {
  const row = await exec.selectFrom("webhook_endpoints").select("account_id").where("account_id", "=", accountId).executeTakeFirst();
  return row !== undefined;
}

/** The account's endpoint as an attempt uses it now: where to send, and the sealed secrets that sign. */
export async function sendingEndpoint(exec: Executor, accountId: number): Promise<({ url: string } & SealedSecrets) | undefined> {
  const row = await exec
    .selectFrom("webhook_endpoints")
    .select(["url", "secret_sealed", "previous_secret_sealed", "previous_secret_until"])
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return (
    row && {
      url: row.url,
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretUntil: row.previous_secret_until,
    }
  );
}

export async function insertEndpoint(exec: Executor, endpoint: { accountId: number; url: string; secretSealed: string; at: string }): Promise<void> {
  await exec
    .insertInto("webhook_endpoints")
    .values({
      account_id: endpoint.accountId,
      url: endpoint.url,
      secret_sealed: endpoint.secretSealed,
      created_at: endpoint.at,
      updated_at: endpoint.at,
    })
    .execute();
}

/** A new URL for the endpoint, enabled again. */
export async function changeEndpointUrl(exec: Executor, accountId: number, change: { url: string; at: string }): Promise<void> {
  await exec
    .updateTable("webhook_endpoints")
    .set({ url: change.url, disabled_at: null, disabled_reason: null, updated_at: change.at })
    .where("account_id", "=", accountId)
    .execute();
}

/** A new current secret; the previous one keeps signing until `previousUntil`. */
export async function rotateEndpointSecret(
  exec: Executor,
  accountId: number,
  change: { secretSealed: string; previousSecretSealed: string; previousUntil: string; at: string },
): Promise<void> {
  await exec
    .updateTable("webhook_endpoints")
    .set({
      secret_sealed: change.secretSealed,
      previous_secret_sealed: change.previousSecretSealed,
      previous_secret_until: change.previousUntil,
      updated_at: change.at,
    })
    .where("account_id", "=", accountId)
    .execute();
}

/** Deletes the endpoint; false when there was none. */
export async function deleteEndpoint(exec: Executor, accountId: number): Promise<boolean> {
  const removed = await exec.deleteFrom("webhook_endpoints").where("account_id", "=", accountId).executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

/** Disables the account's endpoint unless it already is; returns its URL when this update disabled it. */
export async function disableEndpoint(exec: Executor, accountId: number, change: { at: string; reason: string }): Promise<string | null> {
  const endpoint = await exec
    .updateTable("webhook_endpoints")
    .set({ disabled_at: change.at, disabled_reason: change.reason, updated_at: change.at })
    .where("account_id", "=", accountId)
    .where("disabled_at", "is", null)
    .returning("url")
    .executeTakeFirst();
  return endpoint?.url ?? null;
}

/** Stops the previous secret signing now (before its overlap ends); false when there is no endpoint. */
export async function revokePreviousSecret(exec: Executor, accountId: number, at: string): Promise<boolean> {
  const result = await exec
    .updateTable("webhook_endpoints")
    .set({ previous_secret_sealed: null, previous_secret_until: null, updated_at: at })
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
