import { sql } from "kysely";
import { type Db, directReader, type Executor } from "./database.js";
import { claim } from "./leases.js";

// The shared round of health probes (one row): who probes next, and what the last round found.

const KEY = "current";

/** The last round: its result (JSON, null before the first) and when it was probed. */
export async function lastProbe(exec: Executor): Promise<{ result: string | null; probedAt: string }> {
  const row = await exec.selectFrom("health_probes").select(["result", "probed_at"]).where("key", "=", KEY).executeTakeFirstOrThrow();
  return { result: row.result, probedAt: row.probed_at };
}

/**
 * Claims the next round when the last was probed before `staleBefore` and nobody holds a claim at `now` (the
 * one claim, db/leases.ts), so of several instances exactly one probes. True when this caller claimed it.
 */
export async function claimProbe(db: Db, round: { now: string; staleBefore: string; until: string }): Promise<boolean> {
  const claimed = await claim(db, {
    limit: 1,
    due: (exec, limit) =>
      exec
        .selectFrom("health_probes")
        .select("key")
        .where("key", "=", KEY)
        .where("probed_at", "<", round.staleBefore)
        .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<", round.now)]))
        .limit(limit),
    take: async (trx, rows) => {
      await trx.updateTable("health_probes").set({ claimed_until: round.until }).where("key", "=", KEY).execute();
      return rows;
    },
  });
  return claimed.length > 0;
}

/** Stores a round and lets the claim go. */
export async function storeProbe(exec: Executor, round: { result: string; probedAt: string }): Promise<void> {
  await exec
    .updateTable("health_probes")
    .set({ result: round.result, probed_at: round.probedAt, claimed_until: null })
    .where("key", "=", KEY)
    .execute();
}

/**
 * Whether the database answers a trivial statement: on SQLite on the reader connection (never queued behind a
 * write), on PostgreSQL as a named statement on the pool. False on any error; the caller bounds the wait.
 */
export async function databaseAnswers(db: Db): Promise<boolean> {
  const read = directReader(db);
  try {
    if (read) await read("select 1 as one", []);
    else await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
