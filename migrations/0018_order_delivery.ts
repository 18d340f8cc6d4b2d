import { type Kysely, sql } from "kysely";

// Each order keeps how it was delivered, so it is settled where it was sent whatever the configuration says later:
// - `backend`: the backend that took it (`protocol`, `telegram`, `reloadly`); null for orders placed before this
//   migration, which are settled by their product's configured backend, as they were;
// - `recipient_id`: the recipient as that backend addresses them (Telegram: the user id), fixed before the charge,
//   so sending and reconciling never resolve a @username again;
// - `held`: why an order is held for an administrator (its delivery cannot be told from the backend's records
//   without guessing); a held order is never asked about again, completed or refunded by the reconciler.
// One Star transaction completes at most one order: unique among the Telegram backend's orders.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("orders").addColumn("backend", "text").execute();
  await db.schema.alterTable("orders").addColumn("recipient_id", "text").execute();
  await db.schema.alterTable("orders").addColumn("held", "text").execute();
  await db.schema
    .createIndex("orders_telegram_transaction")
    .on("orders")
    .column("transaction_id")
    .unique()
    .where(sql.ref("backend"), "=", "telegram")
    .execute();
  // The Telegram orders a recipient has that no Star transaction is linked to yet (few): what a match weighs.
  await db.schema
    .createIndex("orders_unlinked_recipient")
    .on("orders")
    .columns(["recipient_id", "backend"])
    .where(sql.ref("transaction_id"), "is", null)
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropIndex("orders_unlinked_recipient").execute();
  await db.schema.dropIndex("orders_telegram_transaction").execute();
  for (const column of ["held", "recipient_id", "backend"]) await db.schema.alterTable("orders").dropColumn(column).execute();
}
