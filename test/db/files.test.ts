import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copySqlite } from "../../src/db/backup.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";

// The SQLite files the service writes are the owner's alone, whatever the umask: the folder it makes 0700, the
// database, its WAL and a backup 0600. (SQLite files, so the same on either project.)

const root = mkdtempSync(join(tmpdir(), "partner-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("the database's files", () => {
  it("are made owner-only: the folder 0700, the database and its WAL 0600, a backup 0600", async () => {
    const path = join(root, "made", "partner.db");
    const db = openDatabase(path);
    await migrateToLatest(db);
    await db.insertInto("bot_state").values({ key: "k", value: "{}", updated_at: "2026-01-01T00:00:00.000Z" }).execute();
    expect(modeOf(join(root, "made"))).toBe(0o700);
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
    await db.destroy();

    const target = join(root, "backup.db");
    await copySqlite(path, target, async () => undefined);
    expect(modeOf(target)).toBe(0o600);
  });

  it("tightens a database an older start left readable by others", async () => {
    const path = join(root, "older.db");
    writeFileSync(path, "");
    chmodSync(path, 0o644);
    const db = openDatabase(path);
    await migrateToLatest(db);
    expect(modeOf(path)).toBe(0o600);
    await db.destroy();
  });
});
