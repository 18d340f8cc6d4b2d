import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botStateStore } from "../../src/db/bot-state.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { createPurges } from "../../src/jobs/purges.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

let database: TestDatabase;
let db: Db;
let accountId: number;
const now = new Date("2026-01-01T12:00:00.000Z");
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const HOUR = 3_600_000;
const warned: string[] = [];
const log = { warn: (_obj: object, msg: string) => void warned.push(msg) };

beforeAll(async () => {
  database = await testDatabase({ migrated: true });
  db = openDatabase(database.url);
  await migrateToLatest(db);
  accountId = (
    await db
      .insertInto("accounts")
      .values({ kind: "standard", created_at: ago(HOUR) })
      .returning("id")
      .executeTakeFirstOrThrow()
  ).id;
});
afterAll(async () => {
  await db.destroy();
  await database.drop();
});

describe("the purges", () => {
  it("delete what is past keeping and nothing else, each on its own", async () => {
    const quote = (id: string, expiresAt: string) => ({
      id,
      account_id: accountId,
      product_type: "stars",
      request_hash: "h",
      recipient: "alice",
      details: "{}",
      charge_micro: 1,
      created_at: ago(3 * HOUR),
      expires_at: expiresAt,
    });
    // Expired two hours ago (gone), half an hour ago (kept: a late purchase still hears quote_expired), not yet.
    await db
      .insertInto("quotes")
      .values([quote("q_old", ago(2 * HOUR)), quote("q_recent", ago(HOUR / 2)), quote("q_live", ago(-HOUR))])
      .execute();
    const window = 60_000;
    const current = Math.floor(now.getTime() / window) * window;
    await db
      .insertInto("rate_limits")
      .values([
        { key: "gone", window_start: current - window, hits: 3 },
        { key: "current", window_start: current, hits: 1 },
      ])
      .execute();
    const sessions = botStateStore<object>(db);
    await sessions.write("fresh", {});

    const purges = createPurges({
      db,
      clock: { now: () => now },
      requestCounts: { db, windowMs: window },
      webhookRetentionMs: 30 * 24 * HOUR,
      contactsRetentionMs: 90 * 24 * HOUR,
      botSessions: sessions,
      log,
    });
    expect(await purges.quotes()).toBe(1);
    expect((await db.selectFrom("quotes").select("id").orderBy("id").execute()).map((row) => row.id)).toEqual(["q_live", "q_recent"]);
    expect(await purges.requestCounts()).toBe(1);
    expect((await db.selectFrom("rate_limits").select("key").execute()).map((row) => row.key)).toEqual(["current"]);
    expect(await purges.botSessions()).toBe(0);
    expect(await sessions.read("fresh")).toEqual({});
    expect(await purges.webhookEvents()).toBe(0);
    expect(warned).toEqual([]);
  });

  it("leave out the purges of what a deployment does not have", async () => {
    const purges = createPurges({ db, clock: { now: () => now }, webhookRetentionMs: HOUR, contactsRetentionMs: HOUR, log });
    expect(await purges.requestCounts()).toBe(0);
    expect(await purges.botSessions()).toBe(0);
    purges.start();
    await purges.stop();
  });
});
