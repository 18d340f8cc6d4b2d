import type { Kysely } from "kysely";

// The language Telegram last reported for a user (the Mini App's sign-in, the bot's /start), apart from the one
// they chose with /language: a user who never chose follows Telegram's, as it changes, and a choice still wins.
// Before, Telegram's language at the first contact was written as if chosen, and froze.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("telegram_language", "text").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("telegram_language").execute();
}
