import type { Kysely } from "kysely";

// Indexes for the ledger statement and the order list's filters (existing: ledger_entries (account_id, id) and
// orders (account_id, id), which serve the plain pages). A date range and its opening total read an account's
// entries by time: (account_id, created_at, amount_micro) answers both from the index alone. The order list's
// filters walk (account_id, product_type|status, id) instead of every order of the account.
// biome-ignore lint: migrations see the database untyped
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex("ledger_account_time").on("ledger_entries").columns(["account_id", "created_at", "amount_micro"]).execute();
  await db.schema.createIndex("orders_account_product").on("orders").columns(["account_id", "product_type", "id"]).execute();
  await db.schema.createIndex("orders_account_status").on("orders").columns(["account_id", "status", "id"]).execute();
}

// biome-ignore lint: migrations see the database untyped
export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ["orders_account_status", "orders_account_product", "ledger_account_time"]) {
    await db.schema.dropIndex(index).execute();
  }
}
