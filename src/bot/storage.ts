import type { StorageAdapter } from "grammy";
import type { Db } from "../db/database.js";

/**
 * grammY's key-value storage over the service's own database (no maintained adapter exists for kysely):
 * conversation state survives a restart, and `updated_at` lets abandoned flows be purged.
 */
export function databaseStorage<T>(db: Db): StorageAdapter<T> & { purgeOlderThan(ms: number): Promise<number> } {
  return {
    async read(key) {
      const row = await db.selectFrom("bot_state").select("value").where("key", "=", key).executeTakeFirst();
      return row ? (JSON.parse(row.value) as T) : undefined;
    },
    async write(key, value) {
      const row = { key, value: JSON.stringify(value), updated_at: new Date().toISOString() };
      await db
        .insertInto("bot_state")
        .values(row)
        .onConflict((oc) => oc.column("key").doUpdateSet({ value: row.value, updated_at: row.updated_at }))
        .execute();
    },
    async delete(key) {
      await db.deleteFrom("bot_state").where("key", "=", key).execute();
    },
    /** Removes state untouched for `ms`; returns how many entries went. */
    async purgeOlderThan(ms) {
      const before = new Date(Date.now() - ms).toISOString();
      const result = await db.deleteFrom("bot_state").where("updated_at", "<", before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
