import { Migrator } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "../../migrations/index.js";
import { accountByUsername, insertStandardAccount, updateAccount } from "../../src/db/accounts.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

// A Telegram username names one account at a time, on either engine: an admin's @username cannot reach a
// stale holder (issue 19).

let database: TestDatabase;
let db: Db;
const at = "2026-01-01T00:00:00.000Z";

beforeAll(async () => {
  database = await testDatabase();
  db = openDatabase(database.url, { poolMax: 2 });
});
afterAll(async () => {
  await db.destroy();
  await database.drop();
});

const usernameOf = async (telegramId: string) =>
  (await db.selectFrom("accounts").select("username").where("telegram_id", "=", telegramId).executeTakeFirstOrThrow()).username;

describe("usernames", () => {
  it("are cleared where several accounts held one when the unique index comes, then held by one account at a time", async () => {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error } = await migrator.migrateTo("0010_tenant_bounds");
    expect(error).toBeUndefined();
    // Before: a stale holder and the current one share a name; another name is held once.
    for (const [telegramId, username] of [
      ["1001", "partner"],
      ["1002", "Partner"],
      ["1003", "solo"],
    ]) {
      await db.insertInto("accounts").values({ kind: "standard", telegram_id: telegramId, username, created_at: at }).execute();
    }
    await migrateToLatest(db);
    expect([await usernameOf("1001"), await usernameOf("1002"), await usernameOf("1003")]).toEqual([null, null, "solo"]);

    // Seen again: whoever takes a name takes it from its last holder, case-insensitively.
    const taker = await insertStandardAccount(db, { telegramId: "1004", username: "SOLO", at });
    expect([await usernameOf("1003"), await usernameOf("1004")]).toEqual([null, "SOLO"]);
    const first = (await db.selectFrom("accounts").select("id").where("telegram_id", "=", "1001").executeTakeFirstOrThrow()).id;
    await updateAccount(db, first, { username: "solo" });
    expect([await usernameOf("1001"), await usernameOf("1004")]).toEqual(["solo", null]);
    expect((await accountByUsername(db, "Solo"))?.telegramId).toBe("1001");
    expect(taker.telegramId).toBe("1004");

    // The schema itself refuses a second holder.
    await expect(
      db.insertInto("accounts").values({ kind: "standard", telegram_id: "1005", username: "SoLo", created_at: at }).execute(),
    ).rejects.toThrow();
  });
});
