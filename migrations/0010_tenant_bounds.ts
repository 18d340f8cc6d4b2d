import type { Kysely } from "kysely";

// Bounded work per key. Fair webhook delivery: each endpoint is worked on as a whole. `ready_at` is when it may be attempted next (the
// breaker's wait after failures, or the lease of the instance working on it), `failures` and `failing_since` are
// the breaker's state; the dropped counters say what the pending cap turned away. Open quotes are counted per
// account from an index, and every filter of the order list reads only the rows it answers.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("webhook_endpoints")
    .addColumn("ready_at", "text", (c) => c.notNull().defaultTo("1970-01-01T00:00:00.000Z"))
    .execute();
  await db.schema
    .alterTable("webhook_endpoints")
    .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("webhook_endpoints").addColumn("failing_since", "text").execute();
  await db.schema
    .alterTable("webhook_endpoints")
    .addColumn("dropped_events", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("webhook_endpoints").addColumn("last_dropped_at", "text").execute();
  // An account's waiting events, found without walking its delivered ones (the cap's count, each turn's claim).
  await db.schema.createIndex("webhook_events_account_status").on("webhook_events").columns(["account_id", "status", "id"]).execute();
  await db.schema.createIndex("quotes_account_expiry").on("quotes").columns(["account_id", "expires_at"]).execute();
  await db.schema.createIndex("orders_account_product_status").on("orders").columns(["account_id", "product_type", "status", "id"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const index of ["orders_account_product_status", "quotes_account_expiry", "webhook_events_account_status"]) {
    await db.schema.dropIndex(index).execute();
  }
  for (const column of ["last_dropped_at", "dropped_events", "failing_since", "failures", "ready_at"]) {
    await db.schema.alterTable("webhook_endpoints").dropColumn(column).execute();
  }
}
