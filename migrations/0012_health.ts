import type { Kysely } from "kysely";

// The last round of health probes, shared by every instance: one instance probes per interval (the one whose
// conditional update claimed it) and every instance answers GET /v1/health from the stored round.
// biome-ignore lint: migrations see the database untyped
type AnyDb = Kysely<any>;

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable("health_probes")
    .addColumn("key", "text", (c) => c.primaryKey())
    // The round's readiness as JSON (core/health.ts `Health`), null before the first round.
    .addColumn("result", "text")
    .addColumn("probed_at", "text", (c) => c.notNull())
    // While an instance probes: until when its claim holds (a dead prober's claim lapses).
    .addColumn("claimed_until", "text")
    .execute();
  await db.insertInto("health_probes").values({ key: "current", result: null, probed_at: "1970-01-01T00:00:00.000Z", claimed_until: null }).execute();
}

export async function down(db: AnyDb): Promise<void> {
  await db.schema.dropTable("health_probes").execute();
}
