import type { Kysely } from "kysely";

// Request counters shared by every instance on one database (PostgreSQL deployments): one row per key and
// fixed window, bumped by one upsert per request. A single SQLite instance counts in memory instead.
// biome-ignore lint: migrations see the database untyped
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("hits", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("rate_limits_window").on("rate_limits").column("window_start").execute();
}

// biome-ignore lint: migrations see the database untyped
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("rate_limits").execute();
}
