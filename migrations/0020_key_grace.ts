import type { Kysely } from "kysely";

// A replaced API key may keep working for a grace period its owner chose (0 to 7 days), so a partner can rotate
// without downtime: `grace_until` is when it stops (null: it stopped when revoked). Only the live key has
// `revoked_at` null, as before; a key in grace is revoked with a later `grace_until`.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("api_keys").addColumn("grace_until", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("api_keys").dropColumn("grace_until").execute();
}
