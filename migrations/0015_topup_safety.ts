import type { Kysely } from "kysely";

// Money in that cannot be forged, repeated or spammed:
// - `topups.reference_key`: a transfer's reference reduced to its letters and digits, so a reference already
//   used by another transfer (any account) is found and flagged to the deciding administrator;
// - `topup_notices`: the messages each administrator got about a transfer, so whichever instance sees the
//   decision or the cancel edits them all (their buttons gone);
// - `payment_anomalies`: what Crypto Pay told us that does not match a top-up (a signed update its own record
//   contradicts, an invoice in another asset), logged and alerted, never credited; one row per invoice and kind.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

/** The same reduction as core/topups.ts referenceKey (kept here: a migration never imports the code it predates). */
const keyOf = (reference: string) =>
  reference
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable("topups").addColumn("reference_key", "text").execute();
  const rows: Array<{ id: number; reference: string }> = await db
    .selectFrom("topups")
    .select(["id", "reference"])
    .where("reference", "is not", null)
    .execute();
  for (const row of rows)
    await db
      .updateTable("topups")
      .set({ reference_key: keyOf(row.reference) })
      .where("id", "=", row.id)
      .execute();
  await db.schema.createIndex("topups_reference").on("topups").column("reference_key").execute();
  // The daily creation bound counts an account's top-ups by their creation time.
  await db.schema.createIndex("topups_account_created").on("topups").columns(["account_id", "created_at"]).execute();

  await db.schema
    .createTable("topup_notices")
    .addColumn("topup_id", "bigint", (c) => c.notNull().references("topups.id"))
    .addColumn("chat_id", "text", (c) => c.notNull())
    .addColumn("message_id", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("topup_notices_pk", ["topup_id", "chat_id"])
    .execute();

  await db.schema
    .createTable("payment_anomalies")
    .addColumn("invoice_id", "bigint", (c) => c.notNull())
    .addColumn("topup_id", "bigint")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("payment_anomalies_once", ["invoice_id", "kind"])
    .execute();
  await db.schema.createIndex("payment_anomalies_time").on("payment_anomalies").column("created_at").execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("payment_anomalies").execute();
  await db.schema.dropTable("topup_notices").execute();
  await db.schema.dropIndex("topups_account_created").execute();
  await db.schema.dropIndex("topups_reference").execute();
  await db.schema.alterTable("topups").dropColumn("reference_key").execute();
}
