import type { Kysely } from "kysely";

// The bot: a key-value table for conversation state (so a restart mid-flow resumes the flow) and each
// user's chosen language.
// biome-ignore lint: migrations see the database untyped
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("bot_state")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("bot_state_updated").on("bot_state").column("updated_at").execute();
  await db.schema.alterTable("accounts").addColumn("language", "text").execute();
}

// biome-ignore lint: migrations see the database untyped
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("language").execute();
  await db.schema.dropTable("bot_state").execute();
}
