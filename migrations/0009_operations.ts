import { type Kysely, PostgresAdapter } from "kysely";

// Operating the service: the state of each administrator alert (shared by every instance, so each change is
// told once), and each customer's choice about the low-balance notice.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const [flagType, no, yes] = pg ? (["boolean", false, true] as const) : (["integer", 0, 1] as const);
  await db.schema
    .createTable("alert_states")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("firing", flagType, (c) => c.notNull().defaultTo(no))
    .addColumn("since", "text", (c) => c.notNull())
    .addColumn("last_sent_at", "text")
    .addColumn("details", "text")
    .execute();
  await db.schema
    .alterTable("accounts")
    .addColumn("low_balance_notice", flagType, (c) => c.notNull().defaultTo(yes))
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.alterTable("accounts").dropColumn("low_balance_notice").execute();
  await db.schema.dropTable("alert_states").execute();
}
