import { type RawBuilder, sql } from "kysely";
import { MAX_MICRO, type Micro, micro } from "../core/model/money.js";
import type { Order } from "../core/model/products.js";
import { toAccount } from "./accounts.js";
import { type Db, type Executor, isPostgres, runStatement } from "./database.js";
import { rowFromJson } from "./exact.js";
import { balanceOf } from "./ledger.js";
import { type Finish, finalValues, type NewOrder, toOrder } from "./orders.js";
import { type EventTarget, outboxFull } from "./outbox.js";
import type { AccountRow, OrderRow } from "./schema.js";

// A purchase's two writes, each in one round trip on PostgreSQL: placing it (the order, its charge and the charge's
// ledger entry) and finishing it (its final state and, for a failure, its refund and entry). One statement with
// data-modifying CTEs is atomic by itself, so it needs no BEGIN and COMMIT. SQLite, whose statements make no round
// trip, keeps the general path: the same steps in one transaction.

const run = <R>(exec: Executor, statement: RawBuilder<R>) => runStatement(exec, statement.compile(exec));

/** Whether the account has a webhook endpoint (its orders' finishes write events), as a column of a statement. */
const hasEndpoint = (accountId: number | RawBuilder<unknown>) =>
  sql<boolean>`exists (select 1 from webhook_endpoints where webhook_endpoints.account_id = ${accountId})`;

/**
 * The order placed, the funding account's balance after its charge and whether the account has a webhook endpoint
 * (its order's finish then writes an event); or the earlier order of a replay (same account, idempotency key and
 * request) and the balance now; or the balance that was short.
 */
export type Placement =
  { order: Order; balanceAfterMicro: Micro; endpoint: boolean } | { replay: Order; balanceMicro: Micro } | { shortMicro: Micro };

/**
 * PostgreSQL only (see oneStatementWrites): places a standard account's order paid from its own balance
 * (`fundingAccountId`): the guarded debit (the same guard as db/ledger.ts's), the order row and the charge's entry, or
 * nothing when the balance is short or the order is a replay, which the same statement finds (one round trip instead
 * of a lookup first). A duplicate that commits meanwhile fails the insert on the unique index, and nothing is written.
 */
export async function placeAtOnce(db: Db, order: NewOrder, actor: string): Promise<Placement> {
  const charge = order.chargeMicro;
  const rows = await run(
    db,
    sql<OrderRow & { replay: boolean | null; balance_after: number | null; balance_before: number; endpoint: boolean }>`
    with earlier as (
      select * from orders
      where account_id = ${order.accountId}::bigint and idempotency_key = ${order.idempotencyKey}::text and request_hash = ${order.requestHash}::text
    ), debit as (
      update accounts set balance_micro = balance_micro - ${charge}::bigint
      where id = ${order.fundingAccountId}::bigint and balance_micro - ${charge}::bigint between 0 and ${MAX_MICRO}::bigint
        and not exists (select 1 from earlier)
      returning balance_micro
    ), placed as (
      insert into orders (account_id, funding_account_id, product_type, status, idempotency_key, request_hash, recipient,
        details, charge_micro, upstream_ref, check_after, created_at, updated_at, backend, recipient_id)
      select ${order.accountId}::bigint, ${order.fundingAccountId}::bigint, ${order.productType}::text, 'processing',
        ${order.idempotencyKey}::text, ${order.requestHash}::text, ${order.recipient}::text, ${JSON.stringify(order.details)}::text,
        ${charge}::bigint, ${order.upstreamRef}::text, ${order.checkAfter}::text, ${order.at}::text, ${order.at}::text,
        ${order.backend ?? null}::text, ${order.recipientId ?? null}::text
      from debit
      returning *
    ), entry as (
      insert into ledger_entries (account_id, order_id, kind, amount_micro, balance_after_micro, actor, created_at)
      select ${order.fundingAccountId}::bigint, placed.id, 'charge', -${charge}::bigint, debit.balance_micro, ${actor}::text, ${order.at}::text
      from placed, debit
    )
    select found.*, debit.balance_micro as balance_after,
      (select balance_micro from accounts where id = ${order.fundingAccountId}::bigint) as balance_before,
      ${hasEndpoint(order.accountId)} as endpoint
    from (select 1) as one
      left join (select placed.*, false as replay from placed union all select earlier.*, true from earlier) as found on true
      left join debit on true
  `,
  );
  const row = rows[0]!;
  if (row.replay) return { replay: toOrder(row), balanceMicro: micro(row.balance_before) };
  if (row.balance_after !== null) return { order: toOrder(row), balanceAfterMicro: micro(row.balance_after), endpoint: row.endpoint };
  // The statement saw the balance as it was before it began: when that was enough, a concurrent change took it since.
  if (row.balance_before < charge) return { shortMicro: micro(row.balance_before) };
  const balance = await balanceOf(db, order.fundingAccountId);
  if (balance === undefined) throw new Error(`account ${order.fundingAccountId} does not exist`);
  return { shortMicro: balance };
}

/**
 * Finishes a `processing` order in one statement on PostgreSQL (a failure with its refund and the refund's entry):
 * the order as finished and the balance the refund left. Undefined when it changed nothing: on SQLite, or the
 * order was not `processing`, or (unless `event` is given) its account has a webhook endpoint, whose event must be
 * written in the same transaction: the caller then runs it again in that transaction, with `event`, and the same
 * statement also reads what the event needs (`eventTarget`: the account as the finish left it and whether its
 * outbox holds `pendingMax` events; null when it has no endpoint).
 */
export async function finishAtOnce(
  exec: Executor,
  id: number,
  finish: Finish,
  at: string,
  event?: { pendingMax: number },
): Promise<{ order: Order; refundBalanceMicro: Micro | null; eventTarget?: EventTarget | null } | undefined> {
  if (!isPostgres(exec)) return undefined;
  const v = finalValues(finish);
  const failed = v.status === "failed";
  const target = event
    ? sql`,
      (select row_to_json(accounts)::text from accounts join webhook_endpoints on webhook_endpoints.account_id = accounts.id
        where accounts.id = done.account_id) as event_account,
      ${outboxFull(sql.ref("done.account_id"), event.pendingMax - 1)} as event_full`
    : sql``;
  const rows = await run(
    exec,
    sql<OrderRow & { refund_balance: number | null; event_account?: string | null; event_full?: boolean }>`
    with done as (
      update orders set status = ${v.status}::text,
        provider_order_id = coalesce(${v.providerOrderId}::text, provider_order_id),
        provider_status = coalesce(${v.providerStatus}::text, provider_status),
        transaction_id = ${v.transactionId}::text, sealed_codes = ${v.sealedCodes}::text,
        error = ${v.error}::text, error_code = ${v.reason}::text,
        refunded = ${failed}::boolean,
        completed_at = ${at}::text, updated_at = ${at}::text, check_after = null
      where id = ${id}::bigint and status = 'processing' and (held is null or ${v.decided}::int = 1)
        and (${event !== undefined}::boolean or not ${hasEndpoint(sql.ref("orders.account_id"))})
      returning *
    ), refund as (
      update accounts set balance_micro = accounts.balance_micro + done.charge_micro
      from done where ${failed}::boolean and accounts.id = done.funding_account_id
      returning accounts.balance_micro
    ), entry as (
      insert into ledger_entries (account_id, order_id, kind, amount_micro, balance_after_micro, actor, note, created_at)
      select done.funding_account_id, done.id, 'refund', done.charge_micro, refund.balance_micro, 'system', done.error, ${at}::text
      from done, refund
    )
    select done.*, refund.balance_micro as refund_balance${target} from done left join refund on true
  `,
  );
  const row = rows[0];
  if (!row) return undefined;
  const order = toOrder(row);
  const refundBalanceMicro = row.refund_balance === null ? null : micro(row.refund_balance);
  if (!event) return { order, refundBalanceMicro };
  if (!row.event_account) return { order, refundBalanceMicro, eventTarget: null };
  // The statement read the account as it began, before its own refund: the balance is the one the refund left.
  const account = toAccount(rowFromJson<AccountRow>(row.event_account));
  const refunded = refundBalanceMicro !== null && account.id === order.fundingAccountId;
  return {
    order,
    refundBalanceMicro,
    eventTarget: { account: refunded ? { ...account, balanceMicro: refundBalanceMicro } : account, full: Boolean(row.event_full) },
  };
}

/** A purchase's two writes in one statement each, as the engine that has them (PostgreSQL) offers them. */
export interface OneStatementWrites {
  place: typeof placeAtOnce;
  finish: typeof finishAtOnce;
}

/**
 * The one-statement writes where this database has them (PostgreSQL), else undefined: the composition root asks
 * once and hands the answer to the core, which never asks which engine it runs on.
 */
export const oneStatementWrites = (db: Db): OneStatementWrites | undefined =>
  isPostgres(db) ? { place: placeAtOnce, finish: finishAtOnce } : undefined;
