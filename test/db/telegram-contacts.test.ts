import { describe, expect, it } from "vitest";
import { createContacts } from "../../src/core/contacts.js";
import type { Db } from "../../src/db/database.js";
import { contactByUsername, noteContact } from "../../src/db/telegram-contacts.js";
import { createPurges } from "../../src/jobs/purges.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// The users the bot knows, by @username (issue 37): on a real file (SQLite) and on PostgreSQL (test/db runs on both).

let db: Db;
useMigratedDatabase(2, (opened) => (db = opened));

/** A clock a test moves by hand. */
function handClock(start = "2026-03-01T10:00:00.000Z") {
  let ms = Date.parse(start);
  return { now: () => new Date(ms), advance: (by: number) => (ms += by) };
}

const RECORDING = { recording: true, admins: [], adminsReceive: false };
const DAY = 86_400_000;

const rows = async (telegramId: string) => db.selectFrom("telegram_contacts").selectAll().where("telegram_id", "=", telegramId).execute();

describe("the contacts", () => {
  it("keep a user as their last update showed them, found by username in any case, with or without the @", async () => {
    const clock = handClock();
    const contacts = createContacts({ db, clock, ...RECORDING });
    await contacts.note({ id: 5001, username: "Alice_W", first_name: "Alice", last_name: "W", is_premium: true });
    const found = await contacts.find("@alice_w");
    expect(found).toEqual({
      telegramId: "5001",
      username: "Alice_W",
      firstName: "Alice",
      lastName: "W",
      isPremium: true,
      seenAt: "2026-03-01T10:00:00.000Z",
    });
    expect(await contacts.find("ALICE_W")).toEqual(found);
    expect(await contacts.find("nobody_here")).toBeNull();
    expect(await contacts.find("@")).toBeNull();

    clock.advance(60_000);
    await contacts.note({ id: 5001, username: "alice_new", first_name: "Alice" });
    expect(await contacts.find("alice_w")).toBeNull();
    expect(await contacts.find("alice_new")).toMatchObject({
      telegramId: "5001",
      lastName: null,
      isPremium: false,
      seenAt: "2026-03-01T10:01:00.000Z",
    });
    expect(await rows("5001")).toHaveLength(1);
  });

  it("write nothing when nothing changed, and name the most recent holder of a username held by two ids", async () => {
    const at = "2026-03-02T10:00:00.000Z";
    const bob = { telegramId: "6001", username: "bob", firstName: "Bob", lastName: null, isPremium: false, seenAt: at };
    expect(await noteContact(db, bob, 60_000)).toBe(true);
    expect(await noteContact(db, { ...bob, seenAt: "2026-03-02T10:00:30.000Z" }, 60_000)).toBe(false);
    expect((await rows("6001"))[0]!.seen_at).toBe(at);
    // Past the refresh window the same user is written again, so seen_at stays current.
    expect(await noteContact(db, { ...bob, seenAt: "2026-03-02T10:02:00.000Z" }, 60_000)).toBe(true);
    // A stale holder (never seen since the name moved) and the new one: the newer is the one.
    await noteContact(db, { ...bob, telegramId: "6002", firstName: "Robert", seenAt: "2026-03-02T11:00:00.000Z" }, 60_000);
    expect(await contactByUsername(db, "BOB")).toMatchObject({ telegramId: "6002", firstName: "Robert" });
    // A user without a username is kept, found by no name.
    expect(await noteContact(db, { ...bob, telegramId: "6003", username: null }, 60_000)).toBe(true);
    expect((await rows("6003"))[0]).toMatchObject({ username: null, username_lower: null });
  });

  it("note no one without a Telegram backend", async () => {
    const contacts = createContacts({ db, clock: handClock(), ...RECORDING, recording: false });
    await contacts.note({ id: 7001, username: "dora", first_name: "Dora" });
    expect(await rows("7001")).toEqual([]);
  });

  it("forget a user, and note them again on their next update even if just remembered", async () => {
    const contacts = createContacts({ db, clock: handClock(), ...RECORDING });
    await contacts.note({ id: 7101, username: "erin", first_name: "Erin" });
    expect(await contacts.forget("7101")).toMatchObject({ telegramId: "7101", username: "erin" });
    expect(await rows("7101")).toEqual([]);
    expect(await contacts.forget("7101")).toBeNull();
    await contacts.note({ id: 7101, username: "erin", first_name: "Erin" });
    expect(await rows("7101")).toHaveLength(1);
  });

  it("are purged once not seen for the retention, and kept while seen", async () => {
    const clock = handClock("2026-04-01T10:00:00.000Z");
    const contacts = createContacts({ db, clock, ...RECORDING });
    await contacts.note({ id: 7201, username: "old_fay", first_name: "Fay" });
    clock.advance(80 * DAY);
    await contacts.note({ id: 7202, username: "new_gus", first_name: "Gus" });
    clock.advance(11 * DAY);
    const purges = createPurges({ db, clock, webhookRetentionMs: DAY, contactsRetentionMs: 90 * DAY, log: { warn: () => {} } });
    expect(await purges.contacts()).toBeGreaterThanOrEqual(1);
    expect(await rows("7201")).toEqual([]);
    expect(await rows("7202")).toHaveLength(1);
  });

  it("bar administrators as recipients unless allowed, by their contact or their account's username", async () => {
    const clock = handClock();
    const barring = createContacts({ db, clock, recording: true, admins: [7301, 7302], adminsReceive: false });
    await barring.note({ id: 7301, username: "boss_one", first_name: "Boss" });
    await db
      .insertInto("accounts")
      .values({ kind: "standard", telegram_id: "7302", username: "boss_two", created_at: clock.now().toISOString() })
      .execute();
    expect(await barring.barred("@Boss_One")).toBe(true);
    expect(await barring.barred("boss_two")).toBe(true);
    expect(await barring.barred("erin")).toBe(false);
    const allowing = createContacts({ db, clock, recording: true, admins: [7301, 7302], adminsReceive: true });
    expect(await allowing.barred("boss_one")).toBe(false);
  });
});
