import { type Kysely, sql } from "kysely";

// A Telegram username is held by one account at a time, so an admin's @username names exactly one. Usernames
// held by several accounts today (a stale one never cleared) are cleared on all of them: which is current cannot
// be known, and the bot sets each again the next time its holder writes.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await sql`update accounts set username = null where lower(username) in (
    select lower(username) from accounts where username is not null group by lower(username) having count(*) > 1)`.execute(db);
  await sql`create unique index accounts_username_unique on accounts (lower(username))`.execute(db);
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("accounts_username_unique").execute();
}
