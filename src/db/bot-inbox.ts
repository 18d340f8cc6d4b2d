import { type Expression, type ExpressionBuilder, sql } from "kysely";
import { type Db, type Executor, isPostgres } from "./database.js";
import type { Database } from "./schema.js";
import type { InboxUpdate } from "../core/model/inbox.js";

/**
 * The database's clock, `ms` from now, as ISO text: every lease here is written and compared on one clock,
 * so an instance whose own clock is wrong can neither steal a live lease nor keep a dead one.
 */
function dbNow(db: Executor, ms = 0): Expression<string> {
  return isPostgres(db)
    ? sql<string>`to_char((now() + ${ms}::integer * interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ${`${ms >= 0 ? "+" : ""}${ms / 1000} seconds`})`;
}

type Inbox = ExpressionBuilder<Database & { i: Database["bot_inbox"] }, "i">;

/** Free to take: not done, and nobody's lease in force. */
const free = (db: Executor) => (eb: ExpressionBuilder<Database, "bot_inbox">) =>
  eb.and([eb("done_at", "is", null), eb.or([eb("lease_until", "is", null), eb("lease_until", "<", dbNow(db))])]);

/**
 * The head of each chat that is free: the oldest open update of its chat, with nobody's lease in force on it nor on
 * any other update of its chat (so a chat's updates run one at a time, in order, across every instance). Another
 * leased update counts too: posted at once to two instances, a chat's later update can be stored, and claimed,
 * before its earlier one is stored.
 */
function heads(db: Executor, limit: number) {
  return db
    .selectFrom("bot_inbox as i")
    .select("i.update_id")
    .where("i.done_at", "is", null)
    .where((eb) => eb.or([eb("i.lease_until", "is", null), eb("i.lease_until", "<", dbNow(db))]))
    .where((eb: Inbox) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("bot_inbox as e")
            .select(sql`1`.as("one"))
            .whereRef("e.chat", "=", "i.chat")
            .where("e.done_at", "is", null)
            .where((e) =>
              e.or([
                e("e.update_id", "<", e.ref("i.update_id")),
                e.and([e("e.update_id", "<>", e.ref("i.update_id")), e("e.lease_until", ">=", dbNow(db))]),
              ]),
            ),
        ),
      ),
    )
    .orderBy("i.update_id")
    .limit(limit);
}

/** Leases up to `limit` free chat heads to `owner` (see `claimUpdates`). */
function claimHeads(db: Executor, owner: string, limit: number, leaseMs: number) {
  return db
    .updateTable("bot_inbox")
    .set((eb) => ({ lease_until: dbNow(db, leaseMs), lease_owner: owner, attempts: eb("attempts", "+", 1) }))
    .where("update_id", "in", heads(db, limit))
    .where(free(db))
    .returning(["update_id", "chat", "payload", "attempts", "replied_at"])
    .execute();
}

/**
 * Leases up to `limit` free chat heads to `owner` for `leaseMs`, oldest first. On PostgreSQL claims take turns
 * (a transaction-scoped advisory lock), so each reads the leases of the claims before it: without turns, two
 * claims reading at once could each take another update of one chat (the re-check of a changed row guards
 * only the row itself). A SQLite database has one writer, which already makes claims take turns.
 */
async function claimUpdates(db: Db, owner: string, limit: number, leaseMs: number): Promise<InboxUpdate[]> {
  const rows = isPostgres(db)
    ? await db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(hashtext('bot_inbox claim'))`.execute(trx);
        return claimHeads(trx, owner, limit, leaseMs);
      })
    : await claimHeads(db, owner, limit, leaseMs);
  return rows
    .map((row) => ({
      updateId: Number(row.update_id),
      chat: row.chat,
      update: JSON.parse(row.payload) as unknown,
      attempt: Number(row.attempts),
      replied: row.replied_at !== null,
    }))
    .sort((a, b) => a.updateId - b.updateId);
}

/** The bot's durable inbox (migrations/0016_bot_inbox.ts): stored on arrival, leased while handled, done after. */
export function botInbox(db: Db) {
  return {
    /** Stores updates not seen before (Telegram may send one again); resolves once they are committed. */
    async store(updates: Array<{ updateId: number; chat: string; update: unknown }>): Promise<void> {
      if (!updates.length) return;
      await db
        .insertInto("bot_inbox")
        .values(updates.map((u) => ({ update_id: u.updateId, chat: u.chat, payload: JSON.stringify(u.update), received_at: dbNow(db) })))
        .onConflict((oc) => oc.column("update_id").doNothing())
        .execute();
    },

    /** Whether any chat's head is free to take: a read, so an idle instance takes no write lock to find out. */
    async anyFree(): Promise<boolean> {
      return (await heads(db, 1).execute()).length > 0;
    },

    /** Leases up to `limit` free chat heads to `owner` for `leaseMs`, oldest first (see claimUpdates). */
    claim: (owner: string, limit: number, leaseMs: number): Promise<InboxUpdate[]> => claimUpdates(db, owner, limit, leaseMs),

    /** Moves the leases `owner` holds on these updates `leaseMs` ahead (they are still being handled). */
    async renew(owner: string, updateIds: number[], leaseMs: number): Promise<void> {
      if (!updateIds.length) return;
      await db
        .updateTable("bot_inbox")
        .set({ lease_until: dbNow(db, leaseMs) })
        .where("update_id", "in", updateIds)
        .where("lease_owner", "=", owner)
        .where("done_at", "is", null)
        .execute();
    },

    /** Records that the update's reply went out (the first time only). */
    async replied(updateId: number): Promise<void> {
      await db
        .updateTable("bot_inbox")
        .set({ replied_at: dbNow(db) })
        .where("update_id", "=", updateId)
        .where("replied_at", "is", null)
        .execute();
    },

    /** The update is handled: the chat's next one becomes free. */
    async done(updateId: number): Promise<void> {
      await db
        .updateTable("bot_inbox")
        .set({ done_at: dbNow(db), lease_until: null })
        .where("update_id", "=", updateId)
        .execute();
    },

    /** Deletes updates done more than `ms` ago; returns how many went. */
    async purgeDone(ms: number): Promise<number> {
      const result = await db.deleteFrom("bot_inbox").where("done_at", "<", dbNow(db, -ms)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
