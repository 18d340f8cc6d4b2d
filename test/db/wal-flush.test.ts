import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { transaction } from "../../src/db/transaction.js";
import { type DiskFlush, groupCommit } from "../../src/db/wal-flush.js";

// SQLite's commits reach the disk by a group commit: a writer goes on only once a flush begun after its write has
// ended, and the writers of one moment share that flush. (SQLite files, so the same on either project.)

/** A disk whose flushes end when the test says. */
function slowDisk() {
  const flushes: Array<{ end(error?: Error): void }> = [];
  const sync = () =>
    new Promise<void>((resolve, reject) => {
      flushes.push({ end: (error) => (error ? reject(error) : resolve()) });
    });
  return { flushes, sync };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the group commit", () => {
  it("flushes at once when none is under way; writers who come meanwhile share the next, begun after it", async () => {
    const disk = slowDisk();
    const seen: DiskFlush[] = [];
    const commits = groupCommit(disk.sync, (flush) => seen.push(flush));
    const done: string[] = [];
    const first = commits.durable().then(() => done.push("first"));
    expect(disk.flushes).toHaveLength(1);

    const later = [1, 2, 3].map((i) => commits.durable().then(() => done.push(`later ${i}`)));
    await settle();
    expect(disk.flushes).toHaveLength(1); // the one under way may have begun before their writes: not theirs
    disk.flushes[0]!.end();
    await first;
    await settle();
    expect(done).toEqual(["first"]);
    expect(disk.flushes).toHaveLength(2);

    disk.flushes[1]!.end();
    await Promise.all(later);
    expect(done).toEqual(["first", "later 1", "later 2", "later 3"]);
    expect(seen.map((flush) => flush.writes)).toEqual([1, 3]);
    await commits.settled();
    expect(disk.flushes).toHaveLength(2);
  });

  it("fails the writers of a flush the disk refuses, and starts afresh for the next", async () => {
    const disk = slowDisk();
    const commits = groupCommit(disk.sync);
    const refused = commits.durable();
    const waiting = commits.durable();
    disk.flushes[0]!.end(new Error("EIO"));
    await expect(refused).rejects.toThrow("EIO");
    await settle();
    disk.flushes[1]!.end(new Error("EIO"));
    await expect(waiting).rejects.toThrow("EIO");
    const after = commits.durable();
    expect(disk.flushes).toHaveLength(3);
    disk.flushes[2]!.end();
    await expect(after).resolves.toBeUndefined();
  });
});

describe("a SQLite database's writes", () => {
  const root = mkdtempSync(join(tmpdir(), "partner-flush-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("go on only after a flush of the WAL that covers them, shared by the writers of a moment; reads flush nothing", async () => {
    const events: string[] = [];
    const flushes: DiskFlush[] = [];
    const db = openDatabase(join(root, "partner.db"), {
      onDiskFlush: (flush) => {
        flushes.push(flush);
        events.push(`flush ${flush.writes}`);
      },
    });
    try {
      await migrateToLatest(db);
      expect((await sql<{ synchronous: number }>`pragma synchronous`.execute(db)).rows[0]!.synchronous).toBe(1); // NORMAL: no wait in the loop
      flushes.length = 0;
      events.length = 0;

      const at = "2026-01-01T00:00:00.000Z";
      await db.insertInto("bot_state").values({ key: "alone", value: "{}", updated_at: at }).execute();
      expect(flushes.map((flush) => flush.writes)).toEqual([1]);

      await db.selectFrom("bot_state").selectAll().execute();
      await sql`select count(*) from orders`.execute(db);
      expect(flushes).toHaveLength(1);

      events.length = 0;
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          transaction(db, async (trx) => {
            await trx
              .insertInto("bot_state")
              .values({ key: `k${i}`, value: "{}", updated_at: at })
              .execute();
          }).then(() => events.push("done")),
        ),
      );
      // Each writer went on only after a flush that covered it: never more done than flushed so far.
      let flushed = 0;
      let finished = 0;
      for (const event of events) {
        if (event === "done") expect(++finished).toBeLessThanOrEqual(flushed);
        else flushed += Number(event.split(" ")[1]);
      }
      expect(finished).toBe(10);
      expect(flushed).toBe(10);
      expect((await db.selectFrom("bot_state").select("key").execute()).length).toBe(11);
    } finally {
      await db.destroy();
    }
  });
});
