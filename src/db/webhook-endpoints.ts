import type { SealedSecrets, StoredEndpoint } from "../core/model/webhook.js";
import type { Db, Executor } from "./database.js";
import type { Claims } from "./leases.js";
import type { Selectable } from "kysely";
import type { WebhookEndpointsTable } from "./schema.js";

// Each account's one webhook endpoint and its sealed secrets.

const toEndpoint = (row: Selectable<WebhookEndpointsTable>): StoredEndpoint => ({
  url: row.url,
  enabled: row.disabled_at === null,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  previousSecretUntil: row.previous_secret_until,
  failingSince: row.failing_since,
  retryAt: row.failures > 0 ? row.ready_at : null,
  droppedEvents: row.dropped_events,
  lastDroppedAt: row.last_dropped_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  secretSealed: row.secret_sealed,
  previousSecretSealed: row.previous_secret_sealed,
});

export async function endpointOf(exec: Executor, accountId: number): Promise<StoredEndpoint | undefined> {
  const row = await exec.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).executeTakeFirst();
  return row && toEndpoint(row);
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
      ready_at: endpoint.at,
      created_at: endpoint.at,
      updated_at: endpoint.at,
    })
    .execute();
}

/** A new URL for the endpoint, enabled again with its breaker closed (its waiting events go at the usual pace). */
export async function changeEndpointUrl(exec: Executor, accountId: number, change: { url: string; at: string }): Promise<void> {
  await exec
    .updateTable("webhook_endpoints")
    .set({ url: change.url, disabled_at: null, disabled_reason: null, ready_at: change.at, failures: 0, failing_since: null, updated_at: change.at })
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

/** Counts an event the pending cap turned away. */
export async function countDropped(exec: Executor, accountId: number, at: string): Promise<void> {
  await exec
    .updateTable("webhook_endpoints")
    .set((eb) => ({ dropped_events: eb("dropped_events", "+", 1), last_dropped_at: at }))
    .where("account_id", "=", accountId)
    .execute();
}

/**
 * Ends an instance's turn on the endpoint, guarded by the lease it wrote: after a turn whose attempts all
 * succeeded it is ready now and its breaker closed; after a failure it waits until `retryAt` (the breaker),
 * counting the failure and keeping when the streak began. False when the lease no longer holds it.
 */
export async function endTurn(
  exec: Executor,
  accountId: number,
  turn: { lease: string; at: string; failed: boolean; retryAt: string },
): Promise<boolean> {
  const result = await exec
    .updateTable("webhook_endpoints")
    .set((eb) =>
      turn.failed
        ? { ready_at: turn.retryAt, failures: eb("failures", "+", 1), failing_since: eb.fn.coalesce("failing_since", eb.val(turn.at)) }
        : { ready_at: turn.at, failures: 0, failing_since: null },
    )
    .where("account_id", "=", accountId)
    .where("ready_at", "=", turn.lease)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Makes the endpoints this instance holds (turns cut short by a stop) ready now; returns their account ids. */
export function releaseEndpoints(db: Db, claims: Claims, now: string): Promise<number[]> {
  return claims.release(async (ids, until) => {
    const rows = await db
      .updateTable("webhook_endpoints")
      .set({ ready_at: now })
      .where("account_id", "in", ids)
      .where("ready_at", "=", until)
      .returning("account_id")
      .execute();
    return rows.map((row) => row.account_id);
  });
}
