import { type Kysely, PostgresAdapter, sql } from "kysely";

// Written with kysely's schema builder only, so the same migration runs on SQLite and PostgreSQL.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const withId = pg
    ? (t: ReturnType<AnyDb["schema"]["createTable"]>) => t.addColumn("id", "bigserial", (c) => c.primaryKey())
    : (t: ReturnType<AnyDb["schema"]["createTable"]>) => t.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
  // Flags are booleans on PostgreSQL; SQLite has no boolean type, and its driver side converts 0/1 (db/database.ts).
  const [flagType, no] = pg ? (["boolean", false] as const) : (["integer", 0] as const);

  await withId(db.schema.createTable("accounts"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("telegram_id", "text", (c) => c.unique())
    .addColumn("username", "text")
    .addColumn("balance_micro", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("blocked", flagType, (c) => c.notNull().defaultTo(no))
    .addColumn("daily_limit_micro", "bigint")
    .addColumn("order_limit_micro", "bigint")
    .addColumn("markup_store_bp", "integer")
    .addColumn("markup_games_bp", "integer")
    .addColumn("markup_giftcards_bp", "integer")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addCheckConstraint("accounts_balance_non_negative", sql`balance_micro >= 0`)
    .addCheckConstraint("accounts_kind", sql`kind in ('standard', 'owner', 'wallet')`)
    .execute();
  await db.schema.createIndex("accounts_username").on("accounts").column("username").execute();
  // The service wallet that owner keys spend: one row, created here so every other query can rely on it.
  await db.insertInto("accounts").values({ kind: "wallet", created_at: new Date().toISOString() }).execute();

  await withId(db.schema.createTable("api_keys"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("display_prefix", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .execute();
  // At most one live key per account: issuing a new one must revoke the old in the same transaction.
  await db.schema
    .createIndex("api_keys_one_live_per_account")
    .on("api_keys")
    .column("account_id")
    .unique()
    .where(sql.ref("revoked_at"), "is", null)
    .execute();

  await withId(db.schema.createTable("orders"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("funding_account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("product_type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text")
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("charge_micro", "bigint", (c) => c.notNull())
    .addColumn("upstream_ref", "text", (c) => c.notNull().unique())
    .addColumn("transaction_id", "text")
    .addColumn("error", "text")
    .addColumn("error_code", "text")
    .addColumn("refunded", flagType, (c) => c.notNull().defaultTo(no))
    .addColumn("check_after", "text")
    .addColumn("check_attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("completed_at", "text")
    .addCheckConstraint("orders_status", sql`status in ('processing', 'completed', 'failed')`)
    .addCheckConstraint("orders_charge_non_negative", sql`charge_micro >= 0`)
    .execute();
  // The unique index decides a race between identical requests; NULL keys never collide.
  await db.schema.createIndex("orders_idempotency").on("orders").columns(["account_id", "idempotency_key", "request_hash"]).unique().execute();
  await db.schema.createIndex("orders_account_newest").on("orders").columns(["account_id", "id"]).execute();
  await db.schema.createIndex("orders_status_check").on("orders").columns(["status", "check_after"]).execute();

  await withId(db.schema.createTable("ledger_entries"))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("order_id", "bigint", (c) => c.references("orders.id"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("amount_micro", "bigint", (c) => c.notNull())
    .addColumn("balance_after_micro", "bigint", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("note", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addCheckConstraint("ledger_kind", sql`kind in ('credit', 'debit', 'charge', 'refund', 'adjustment')`)
    .execute();
  // At most one charge and one refund per order, enforced by the schema as well as the code.
  await db.schema.createIndex("ledger_one_per_order_kind").on("ledger_entries").columns(["order_id", "kind"]).unique().execute();
  await db.schema.createIndex("ledger_account").on("ledger_entries").columns(["account_id", "id"]).execute();

  await withId(db.schema.createTable("audit_log"))
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("account_id", "bigint", (c) => c.references("accounts.id"))
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  for (const table of ["audit_log", "ledger_entries", "orders", "api_keys", "accounts"]) {
    await db.schema.dropTable(table).execute();
  }
}
