import { type Kysely, PostgresAdapter, sql } from "kysely";

// Money in without an administrator: top-ups, paid by a Crypto Pay invoice or approved by an administrator
// (a transfer the user states). A credited top-up's ledger entry is of its own kind, `topup`, and names its
// top-up: the unique index on `ledger_entries.topup_id` is the schema's own guarantee that a top-up is credited
// once, whichever instance, webhook or poll gets there first.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

const KINDS_BEFORE = sql`kind in ('credit', 'debit', 'charge', 'refund', 'adjustment')`;
const KINDS = sql`kind in ('credit', 'debit', 'charge', 'refund', 'adjustment', 'topup')`;

export async function up(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = pg ? (["id", "bigserial"] as const) : (["id", "integer"] as const);

  await db.schema
    .createTable("topups")
    .addColumn(id[0], id[1], (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    // `invoice`: a Crypto Pay invoice; `transfer`: a payment the user states, approved by an administrator.
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("amount_micro", "bigint", (c) => c.notNull())
    .addColumn("credited_micro", "bigint")
    .addColumn("invoice_id", "bigint", (c) => c.unique())
    .addColumn("pay_url", "text")
    .addColumn("web_app_url", "text")
    .addColumn("expires_at", "text")
    .addColumn("reference", "text")
    .addColumn("decided_by", "text")
    .addColumn("reason", "text")
    // When the poll looks at an open invoice next (or the lease of the instance looking now).
    .addColumn("check_after", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("credited_at", "text")
    .addCheckConstraint("topups_method", sql`method in ('invoice', 'transfer')`)
    .addCheckConstraint("topups_status", sql`status in ('creating', 'active', 'pending', 'credited', 'expired', 'cancelled', 'rejected', 'failed')`)
    .addCheckConstraint("topups_amount_positive", sql`amount_micro > 0`)
    .execute();
  await db.schema.createIndex("topups_account").on("topups").columns(["account_id", "status", "id"]).execute();
  await db.schema.createIndex("topups_due").on("topups").columns(["status", "check_after"]).execute();

  if (pg) {
    await sql`alter table ledger_entries drop constraint ledger_kind`.execute(db);
    await sql`alter table ledger_entries add constraint ledger_kind check (${KINDS})`.execute(db);
    await db.schema
      .alterTable("ledger_entries")
      .addColumn("topup_id", "bigint", (c) => c.references("topups.id"))
      .execute();
  } else {
    // SQLite cannot change a CHECK: the table is made again with the new one, its rows and indexes copied.
    await rebuildLedger(db, KINDS, true);
  }
  await db.schema.createIndex("ledger_one_per_topup").on("ledger_entries").column("topup_id").unique().execute();
}

/** SQLite: ledger_entries again, with `kinds` as its CHECK and, if `withTopup`, the topup_id column. */
async function rebuildLedger(db: AnyDb, kinds: ReturnType<typeof sql>, withTopup: boolean): Promise<void> {
  let table = db.schema
    .createTable("ledger_entries_new")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("order_id", "bigint", (c) => c.references("orders.id"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("amount_micro", "bigint", (c) => c.notNull())
    .addColumn("balance_after_micro", "bigint", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("note", "text")
    .addColumn("created_at", "text", (c) => c.notNull());
  if (withTopup) table = table.addColumn("topup_id", "bigint", (c) => c.references("topups.id"));
  await table.addCheckConstraint("ledger_kind", kinds).execute();
  const columns = sql.raw("id, account_id, order_id, kind, amount_micro, balance_after_micro, actor, note, created_at");
  await sql`insert into ledger_entries_new (${columns}) select ${columns} from ledger_entries`.execute(db);
  await db.schema.dropTable("ledger_entries").execute();
  await sql`alter table ledger_entries_new rename to ledger_entries`.execute(db);
  await db.schema.createIndex("ledger_one_per_order_kind").on("ledger_entries").columns(["order_id", "kind"]).unique().execute();
  await db.schema.createIndex("ledger_account").on("ledger_entries").columns(["account_id", "id"]).execute();
  await db.schema.createIndex("ledger_account_time").on("ledger_entries").columns(["account_id", "created_at", "amount_micro"]).execute();
}

export async function down(db: AnyDb): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.dropIndex("ledger_one_per_topup").execute();
  if (pg) {
    await db.schema.alterTable("ledger_entries").dropColumn("topup_id").execute();
    await sql`alter table ledger_entries drop constraint ledger_kind`.execute(db);
    await sql`alter table ledger_entries add constraint ledger_kind check (${KINDS_BEFORE})`.execute(db);
  } else {
    await rebuildLedger(db, KINDS_BEFORE, false);
  }
  await db.schema.dropTable("topups").execute();
}
