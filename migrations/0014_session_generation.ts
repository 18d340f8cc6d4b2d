import type { Kysely } from "kysely";

// The Mini App's sessions carry the account's session generation; rotating the key or blocking or unblocking the
// account bumps it, so every session issued before ends at its next request (src/api/miniapp/session.ts).
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("accounts")
    .addColumn("session_generation", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("session_generation").execute();
}
