import { type Kysely, PostgresAdapter } from "kysely";

// The users the bot knows: the Bot API addresses a user by numeric id, never by @username (T3 in
// docs/providers/telegram-bot-api.md), so a gift or Premium for @name needs the id its holder last showed the bot.
// Kept per Telegram id; a username may move between ids, so lookups take the most recently seen holder.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const [flagType, no] = pg ? (["boolean", false] as const) : (["integer", 0] as const);
  await db.schema
    .createTable("telegram_contacts")
    .addColumn("telegram_id", "text", (c) => c.primaryKey())
    .addColumn("username", "text")
    .addColumn("username_lower", "text")
    .addColumn("first_name", "text", (c) => c.notNull())
    .addColumn("last_name", "text")
    .addColumn("is_premium", flagType, (c) => c.notNull().defaultTo(no))
    .addColumn("seen_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("telegram_contacts_username").on("telegram_contacts").columns(["username_lower", "seen_at"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("telegram_contacts").execute();
}
