import type { Kysely } from "kysely";

// Fields of the asynchronous products: the provider's own order id and status, and gift card codes,
// sealed (encrypted) before they are stored.
// biome-ignore lint: migrations see the database untyped
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("orders").addColumn("provider_order_id", "text").execute();
  await db.schema.alterTable("orders").addColumn("provider_status", "text").execute();
  await db.schema.alterTable("orders").addColumn("sealed_codes", "text").execute();
}

// biome-ignore lint: migrations see the database untyped
export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ["sealed_codes", "provider_status", "provider_order_id"]) {
    await db.schema.alterTable("orders").dropColumn(column).execute();
  }
}
