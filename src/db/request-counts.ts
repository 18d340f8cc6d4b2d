import { sql } from "kysely";
import type { Order } from "../core/model/products.js";
import { type KeyHolder, toAccount } from "./accounts.js";
import { type Db, type Executor, namedStatement } from "./database.js";
import { orderFromJson } from "./orders.js";
import type { AccountRow } from "./schema.js";
import type { ReadWithKey } from "../core/model/account.js";

/** The upsert's update, in countHit and keyHolderCounted: only a newer window starts the count afresh (an instance whose clock lags counts into the current one). */
const COUNT_ON_CONFLICT = `on conflict (key) do update set
  hits = case when excluded.window_start > rate_limits.window_start then 1 else rate_limits.hits + 1 end,
  window_start = case when excluded.window_start > rate_limits.window_start then excluded.window_start else rate_limits.window_start end`;

/**
 * Counts one request of `key` in the window starting at `windowStart` (ms since the epoch); returns the hits of
 * the window in force, this one included, and when that window started (a newer one than asked for, when another
 * instance's clock had already moved on). One upsert per request.
 */
export async function countHit(exec: Executor, key: string, windowStart: number): Promise<{ hits: number; windowStart: number }> {
  const { rows } = await sql<{ hits: number; window_start: number }>`
    insert into rate_limits (key, window_start, hits) values (${key}, ${windowStart}, 1) ${sql.raw(COUNT_ON_CONFLICT)} returning hits, window_start
  `.execute(exec);
  return { hits: rows[0]!.hits, windowStart: rows[0]!.window_start };
}

/** Deletes the counts of windows that started before `before` (ms since the epoch); returns how many. */
export async function purgeRequestCounts(exec: Executor, before: number): Promise<number> {
  const result = await exec.deleteFrom("rate_limits").where("window_start", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

const KEY_HOLDER_COUNTED = `
  with holder as (
    select accounts.*, api_keys.id as key_id, api_keys.key_hash, api_keys.grace_until
    from api_keys join accounts on accounts.id = api_keys.account_id
    where api_keys.key_hash = $1 and (api_keys.revoked_at is null or api_keys.grace_until > $4)
  ), hit as (
    insert into rate_limits (key, window_start, hits)
    select $2::text || holder.id, $3::bigint, 1 from holder where not holder.blocked
    ${COUNT_ON_CONFLICT}
    returning hits, window_start
  )
  select holder.*, (select hits from hit) as hits, (select window_start from hit) as hit_window_start`;
const ALONE = `${KEY_HOLDER_COUNTED} from holder`;
// The order as one JSON value: pg parses one column, not 23.
const WITH_ORDER = `${KEY_HOLDER_COUNTED},
  (select row_to_json(orders)::text from orders where orders.id = $5 and orders.account_id = holder.id) as own_order from holder`;
const WITH_ENDPOINT = `${KEY_HOLDER_COUNTED},
  exists (select 1 from webhook_endpoints where webhook_endpoints.account_id = holder.id) as has_endpoint from holder`;

/**
 * A key's holder as keyHolderCounted reads it, and what was read with it: the order asked for (undefined: the holder
 * has none of that id), or whether the account has a webhook endpoint.
 */
export type CountedHolder = KeyHolder & {
  hits: number | null;
  windowStart: number | null;
  ownOrder?: { id: number; order: Order | undefined };
  hasEndpoint?: boolean;
};

/**
 * PostgreSQL only: the live key with this hash (or a replaced one in its grace period at `now`) and its account, as db/accounts.ts's keyHolder reads them, and one
 * request counted in the window starting at `windowStart` under `bucketPrefix` and the account's id, unless the
 * account is blocked (hits null); and what the request reads first (`also`): the account's order of that id, as
 * ownOrder reads it, or whether it has a webhook endpoint. One round trip for what a keyed request needs first.
 */
export async function keyHolderCounted(
  db: Db,
  keyHash: string,
  bucketPrefix: string,
  windowStart: number,
  now: string,
  also?: ReadWithKey,
): Promise<CountedHolder | undefined> {
  const run = namedStatement(db);
  if (!run) throw new Error("keyHolderCounted runs on PostgreSQL, outside a transaction");
  const counted = [keyHash, bucketPrefix, windowStart, now];
  const ordered = also && "orderId" in also ? also : undefined;
  const [text, values] = ordered ? [WITH_ORDER, [...counted, ordered.orderId]] : [also ? WITH_ENDPOINT : ALONE, counted];
  const [row] = (await run(text, values)) as Array<
    AccountRow & {
      key_id: number;
      key_hash: string;
      grace_until: string | null;
      hits: number | null;
      hit_window_start: number | null;
      own_order?: string | null;
      has_endpoint?: boolean;
    }
  >;
  if (!row) return undefined;
  const holder: CountedHolder = {
    keyId: row.key_id,
    keyHash: row.key_hash,
    graceUntil: row.grace_until,
    account: toAccount(row),
    hits: row.hits,
    windowStart: row.hit_window_start,
  };
  if (ordered) holder.ownOrder = { id: ordered.orderId, order: row.own_order ? orderFromJson(row.own_order) : undefined };
  else if (also) holder.hasEndpoint = row.has_endpoint === true;
  return holder;
}
