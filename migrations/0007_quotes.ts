import type { Kysely } from "kysely";

// Binding quotes (POST /v1/quotes): the exact charge of one purchase, promised to one account for a short
// while, and spent by at most one order. The id is random and unguessable; the order that used it is kept, so
// a quote is consumed by the same guarded update that commits with the charge.
// biome-ignore lint: migrations see the database untyped
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("quotes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("product_type", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("charge_micro", "bigint", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("order_id", "bigint", (c) => c.references("orders.id").unique())
    .execute();
  // The purge of long-expired unused quotes reads by expiry.
  await db.schema.createIndex("quotes_expiry").on("quotes").column("expires_at").execute();
}

// biome-ignore lint: migrations see the database untyped
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("quotes").execute();
}
