import { type Kysely, PostgresAdapter, sql } from "kysely";

// Money in as Telegram Stars (XTR invoices the bot makes), and the bot's Stars as a book:
// - `topups.method` gains `stars`, `topups.status` gains `refunding` and `refunded`; a Stars top-up keeps the Stars
//   asked (`stars`), its invoice payload (`payload`, unique), Telegram's charge id once paid (`charge_id`, unique:
//   a payment is credited once whatever is delivered twice), who paid (`payer_id`) and what a refund took back from
//   the balance (`reversed_micro`);
// - ledger entries gain the kind `reversal` (a top-up's credit taken back by a refund); a top-up has at most one
//   credit entry (`topup`), and may have reversals and their undoing (a refund Telegram refused) besides;
// - `star_book`: every Star the bot receives or spends, one row per Telegram transaction and kind, and its opening
//   balance (the Stars on the bot before the book began); `star_book_checks`: the last reconciliation's result.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

const METHODS = ["invoice", "transfer", "stars"];
const METHODS_BEFORE = ["invoice", "transfer"];
const STATUSES = ["creating", "active", "pending", "credited", "expired", "cancelled", "rejected", "failed", "refunding", "refunded"];
const STATUSES_BEFORE = ["creating", "active", "pending", "credited", "expired", "cancelled", "rejected", "failed"];
const KINDS = ["credit", "debit", "charge", "refund", "adjustment", "topup", "reversal"];
const KINDS_BEFORE = ["credit", "debit", "charge", "refund", "adjustment", "topup"];

const list = (values: string[]) => sql.raw(`(${values.map((v) => `'${v}'`).join(", ")})`);

export async function up(db: AnyDb): Promise<void> {
  await setChecks(db, [
    { table: "topups", constraint: "topups_method", check: sql`method in ${list(METHODS)}` },
    { table: "topups", constraint: "topups_status", check: sql`status in ${list(STATUSES)}` },
    { table: "ledger_entries", constraint: "ledger_kind", check: sql`kind in ${list(KINDS)}` },
  ]);
  for (const [name, type] of [
    ["stars", "bigint"],
    ["payload", "text"],
    ["charge_id", "text"],
    ["payer_id", "text"],
    ["reversed_micro", "bigint"],
  ] as const)
    await db.schema.alterTable("topups").addColumn(name, type).execute();
  await db.schema.createIndex("topups_payload").on("topups").column("payload").unique().execute();
  await db.schema.createIndex("topups_charge").on("topups").column("charge_id").unique().execute();

  await db.schema.dropIndex("ledger_one_per_topup").execute();
  await db.schema
    .createIndex("ledger_one_credit_per_topup")
    .on("ledger_entries")
    .column("topup_id")
    .unique()
    .where(sql.ref("kind"), "=", "topup")
    .execute();

  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("star_book")
    .addColumn("id", pg ? "bigserial" : "integer", (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
    // `payment` in (a user paid an invoice), `refund` out (a payment given back), `gift` and `premium` out (sent by
    // the bot), `other` (a transaction the service did not make: a withdrawal, ads, Stars from elsewhere), and one
    // `opening` (what the bot held before the book began); signed: what came in is positive.
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("stars", "bigint", (c) => c.notNull())
    // Telegram's StarTransaction id (a payment's telegram_payment_charge_id; a refund keeps its payment's id); the
    // opening's: the last transaction it includes.
    .addColumn("transaction_id", "text")
    .addColumn("topup_id", "bigint")
    .addColumn("order_id", "bigint")
    .addColumn("user_id", "text")
    // The transaction's date at Telegram (unix seconds) where the book took it from the list (the opening's: its
    // last transaction's).
    .addColumn("telegram_date", "bigint")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addCheckConstraint("star_book_kind", sql`kind in ('payment', 'refund', 'gift', 'premium', 'other', 'opening')`)
    .execute();
  await db.schema.createIndex("star_book_transaction").on("star_book").columns(["kind", "transaction_id"]).unique().execute();
  await db.schema.createIndex("star_book_order").on("star_book").columns(["kind", "order_id"]).unique().execute();
  await db.schema.createIndex("star_book_time").on("star_book").column("created_at").execute();
  // One opening, whichever instance reconciles first.
  await db.schema.createIndex("star_book_one_opening").on("star_book").column("kind").unique().where(sql.ref("kind"), "=", "opening").execute();
  await db.schema
    .createTable("star_book_checks")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("result", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("star_book_checks").execute();
  await db.schema.dropTable("star_book").execute();
  await db.schema.dropIndex("ledger_one_credit_per_topup").execute();
  await db.schema.createIndex("ledger_one_per_topup").on("ledger_entries").column("topup_id").unique().execute();
  await db.schema.dropIndex("topups_charge").execute();
  await db.schema.dropIndex("topups_payload").execute();
  for (const name of ["stars", "payload", "charge_id", "payer_id", "reversed_micro"]) await db.schema.alterTable("topups").dropColumn(name).execute();
  await setChecks(db, [
    { table: "topups", constraint: "topups_method", check: sql`method in ${list(METHODS_BEFORE)}` },
    { table: "topups", constraint: "topups_status", check: sql`status in ${list(STATUSES_BEFORE)}` },
    { table: "ledger_entries", constraint: "ledger_kind", check: sql`kind in ${list(KINDS_BEFORE)}` },
  ]);
}

type Check = { table: string; constraint: string; check: ReturnType<typeof sql> };

/**
 * Replaces CHECK constraints. PostgreSQL alters them in place; SQLite cannot, so each table is made again from its
 * own stored definition with the constraint's text replaced, its rows and indexes copied (the SQLite manual's
 * "other kinds of table schema changes").
 */
async function setChecks(db: AnyDb, checks: Check[]): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const { table, constraint, check } of checks) {
      await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(constraint)}`.execute(db);
      await sql`alter table ${sql.table(table)} add constraint ${sql.ref(constraint)} check (${check})`.execute(db);
    }
    return;
  }
  // The manual's order: foreign keys off outside the transaction (a dropped parent would fail its children), the
  // rebuild in one transaction, every key checked before it commits, then on again.
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      for (const table of [...new Set(checks.map((c) => c.table))]) {
        const stored = await sql<{
          type: string;
          sql: string;
        }>`select type, sql from sqlite_master where tbl_name = ${table} and sql is not null`.execute(trx);
        let create = stored.rows.find((row) => row.type === "table")!.sql;
        for (const { constraint, check } of checks.filter((c) => c.table === table)) {
          const pattern = new RegExp(`constraint "${constraint}" check \\((?:[^()]|\\([^()]*\\))*\\)`);
          if (!pattern.test(create)) throw new Error(`${table}: constraint ${constraint} not found in ${create}`);
          create = create.replace(pattern, `constraint "${constraint}" check (${check.compile(trx).sql})`);
        }
        const copy = `${table}_new`;
        // AUTOINCREMENT's counter goes with its table: kept, so no id is ever given out twice.
        const sequence = await sql<{ seq: number }>`select seq from sqlite_sequence where name = ${table}`.execute(trx);
        await sql.raw(create.replace(/^create table "?\w+"?/i, `create table "${copy}"`)).execute(trx);
        await sql`insert into ${sql.table(copy)} select * from ${sql.table(table)}`.execute(trx);
        await sql`drop table ${sql.table(table)}`.execute(trx);
        await sql`alter table ${sql.table(copy)} rename to ${sql.table(table)}`.execute(trx);
        if (sequence.rows[0]) await sql`update sqlite_sequence set seq = ${sequence.rows[0].seq} where name = ${table}`.execute(trx);
        for (const row of stored.rows) if (row.type === "index") await sql.raw(row.sql).execute(trx);
      }
      const broken = await sql`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken.rows)}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}
