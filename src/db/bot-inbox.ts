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
const free = (db: Db) => (eb: ExpressionBuilder<Database, "bot_inbox">) =>
  eb.and([eb("done_at", "is", null), eb.or([eb("lease_until", "is", null), eb("lease_until", "<", dbNow(db))])]);

/**
 * The head of each chat that is free: the oldest open update of its chat (so a chat's updates run one at a time,
 * in order, across every instance), with nobody's lease in force on it.
 */
function heads(db: Db, limit: number) {
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
            .whereRef("e.update_id", "<", "i.update_id"),
        ),
      ),
    )
    .orderBy("i.update_id")
    .limit(limit);
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

    /**
     * Leases up to `limit` free chat heads to `owner` for `leaseMs`, oldest first. The update re-checks each row,
     * so of two instances claiming at once only one gets it (PostgreSQL re-reads a row another claim changed).
     */
    async claim(owner: string, limit: number, leaseMs: number): Promise<InboxUpdate[]> {
      const rows = await db
        .updateTable("bot_inbox")
        .set((eb) => ({ lease_until: dbNow(db, leaseMs), lease_owner: owner, attempts: eb("attempts", "+", 1) }))
        .where("update_id", "in", heads(db, limit))
        .where(free(db))
        .returning(["update_id", "chat", "payload", "attempts", "replied_at"])
        .execute();
      return rows
        .map((row) => ({
          updateId: Number(row.update_id),
          chat: row.chat,
          update: JSON.parse(row.payload) as unknown,
          attempt: Number(row.attempts),
          replied: row.replied_at !== null,
        }))
        .sort((a, b) => a.updateId - b.updateId);
    },

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

export type BotInbox = ReturnType<typeof botInbox>;
