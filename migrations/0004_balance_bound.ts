import { type Kysely, PostgresAdapter, sql } from "kysely";

// An upper bound on every balance, beside the lower one: 1,000,000,000 USDT (10^15 micro), far below 2^53,
// so a balance is always an exact integer in JavaScript. The code checks the same bound (core/money.ts).

// biome-ignore lint: migrations see the database untyped
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table accounts add constraint accounts_balance_bound check (balance_micro <= 1000000000000000)`.execute(db);
    return;
  }
  // SQLite adds a CHECK only by rebuilding the table (its documented procedure: foreign keys off, new table,
  // copy, drop, rename, indexes back, check the keys). Kysely runs SQLite migrations outside a transaction.
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'accounts'`.execute(db);
  const create = rows[0].sql.replace(/^create table "?accounts"?/i, 'create table "accounts_new"').replace(/\)\s*$/, "");
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    await sql.raw(`${create}, constraint "accounts_balance_bound" check (balance_micro <= 1000000000000000))`).execute(db);
    await sql`insert into accounts_new select * from accounts`.execute(db);
    await sql`drop table accounts`.execute(db);
    await sql`alter table accounts_new rename to accounts`.execute(db);
    await db.schema.createIndex("accounts_username").on("accounts").column("username").execute();
    const broken = await sql`pragma foreign_key_check`.execute(db);
    if (broken.rows.length) throw new Error(`foreign keys broken by the rebuild: ${JSON.stringify(broken.rows)}`);
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

// biome-ignore lint: migrations see the database untyped
export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table accounts drop constraint accounts_balance_bound`.execute(db);
  }
}
