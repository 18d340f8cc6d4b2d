import { type Clock, systemClock } from "../core/model/clock.js";
import type { Db } from "./database.js";

/** A key-value store of JSON values, shaped like grammY's StorageAdapter, with a purge of entries left untouched. */
export interface KeyValueStore<T> {
  read(key: string): Promise<T | undefined>;
  write(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
  /** Removes entries untouched for `ms`; returns how many went. */
  purgeOlderThan(ms: number): Promise<number>;
}

/**
 * The bot's conversation state in the service's own database (no maintained grammY adapter exists for
 * kysely): it survives a restart, and `updated_at` lets abandoned flows be purged.
 */
export function botStateStore<T>(db: Db, clock: Clock = systemClock): KeyValueStore<T> {
  return {
    async read(key) {
      const row = await db.selectFrom("bot_state").select("value").where("key", "=", key).executeTakeFirst();
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async write(key, value) {
      const row = { key, value: JSON.stringify(value), updated_at: clock.now().toISOString() };
      await db
        .insertInto("bot_state")
        .values(row)
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: row.value, updated_at: row.updated_at }))
        .execute();
    },
    async delete(key) {
      await db.deleteFrom("bot_state").where("key", "=", key).execute();
    },
    async purgeOlderThan(ms) {
      // Touched by any instance, judged by the one clock (the service's is the database's).
      const before = new Date(clock.now().getTime() - ms).toISOString();
      const result = await db.deleteFrom("bot_state").where("updated_at", "<", before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
