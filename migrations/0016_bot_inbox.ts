import { type Kysely, sql } from "kysely";

// The bot's inbox: every update Telegram gave us (polled or posted to the webhook) is stored before Telegram is
// told it was taken, and handled from here, leased per chat, so an instance that dies mid-update leaves it to
// another instead of losing it. `replied_at` records that the update's reply went out, so a re-run never
// answers it twice; done rows stay a while so that Telegram sending an update again is recognised.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("bot_inbox")
    .addColumn("update_id", "bigint", (c) => c.primaryKey())
    .addColumn("chat", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .addColumn("lease_until", "text")
    .addColumn("lease_owner", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("replied_at", "text")
    .addColumn("done_at", "text")
    .execute();
  // The open updates of a chat in order: what a claim reads (a partial index, so done rows cost nothing).
  await db.schema.createIndex("bot_inbox_open").on("bot_inbox").columns(["chat", "update_id"]).where(sql.ref("done_at"), "is", null).execute();
  await db.schema.createIndex("bot_inbox_done").on("bot_inbox").column("done_at").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("bot_inbox").execute();
}
