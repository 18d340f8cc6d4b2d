import { type Kysely, PostgresAdapter, sql } from "kysely";

// Signed webhooks: one endpoint per account, the outbox of events (written in the transaction of the change
// they report), and every delivery attempt with its result.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const withId = pg
    ? (t: ReturnType<AnyDb["schema"]["createTable"]>) => t.addColumn("id", "bigserial", (c) => c.primaryKey())
    : (t: ReturnType<AnyDb["schema"]["createTable"]>) => t.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
  const [flagType, no] = pg ? (["boolean", false] as const) : (["integer", 0] as const);

  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id"))
    .addColumn("url", "text", (c) => c.notNull())
    // Sealed with the codes key (core/vault.ts): a copy of the database alone cannot forge signatures.
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("previous_secret_sealed", "text")
    .addColumn("previous_secret_until", "text")
    .addColumn("disabled_at", "text")
    .addColumn("disabled_reason", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("webhook_events"))
    .addColumn("event_id", "text", (c) => c.notNull().unique())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("order_id", "bigint", (c) => c.references("orders.id"))
    .addColumn("test_event", flagType, (c) => c.notNull().defaultTo(no))
    // The exact body sent on every attempt: the receiver deduplicates on its id, the signature covers it.
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "text")
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("delivered_at", "text")
    .addCheckConstraint("webhook_events_status", sql`status in ('pending', 'delivered', 'failed')`)
    .execute();
  await db.schema.createIndex("webhook_events_due").on("webhook_events").columns(["status", "next_attempt_at"]).execute();
  await db.schema.createIndex("webhook_events_order").on("webhook_events").columns(["order_id", "id"]).execute();
  await db.schema.createIndex("webhook_events_account").on("webhook_events").columns(["account_id", "id"]).execute();

  await withId(db.schema.createTable("webhook_attempts"))
    .addColumn("event_id", "bigint", (c) => c.notNull().references("webhook_events.id"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("attempted_at", "text", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("error", "text")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("succeeded", flagType, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhook_attempts_account").on("webhook_attempts").columns(["account_id", "id"]).execute();
  await db.schema.createIndex("webhook_attempts_event").on("webhook_attempts").column("event_id").execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ["webhook_attempts", "webhook_events", "webhook_endpoints"]) await db.schema.dropTable(table).execute();
}
