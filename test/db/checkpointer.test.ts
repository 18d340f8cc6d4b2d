import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startCheckpointer } from "../../src/db/checkpointer.js";
import { checkpointInBackground, openDatabase } from "../../src/db/database.js";

// SQLite's checkpoints, in the service (root.ts's openService), run in a worker thread instead of inside a commit on
// the event loop. (SQLite files, so the same on either project.)

describe("the background checkpointer", () => {
  const root = mkdtempSync(join(tmpdir(), "partner-checkpoint-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("copies committed pages into the database file without the main connection's checkpoint, which waits far longer", async () => {
    const path = join(root, "partner.db");
    const failures: string[] = [];
    const db = openDatabase(path);
    const checkpointer = checkpointInBackground(db, (message) => failures.push(message));
    try {
      expect((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db)).rows[0]!.wal_autocheckpoint).toBe(10_000);
      await sql`create table blobs (data blob not null)`.execute(db);
      // About 500 pages: under SQLite's own threshold of 1,000, so only the worker would copy them now.
      await sql`insert into blobs (data) values (randomblob(2000000))`.execute(db);
      await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(2_000_000), { timeout: 5_000, interval: 50 });
      expect(failures).toEqual([]);
    } finally {
      await checkpointer?.close();
      await db.destroy();
    }
  });

  it("says why it cannot checkpoint, and closes all the same", async () => {
    const failures: string[] = [];
    const checkpointer = startCheckpointer(join(root, "missing.db"), (message) => failures.push(message));
    await vi.waitFor(() => expect(failures[0]).toMatch(/unable to open database file/), { timeout: 5_000, interval: 50 });
    await checkpointer.close();
  });
});
