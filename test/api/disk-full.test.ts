import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { EmulatedChat } from "../../src/emulator/client.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// SQLite with a full disk (issue 35, 3). The disk fills through SQLite's own limit on the database's size, PRAGMA
// max_page_count on the service's writing connection: a write that needs one more page fails with SQLITE_FULL and
// SQLite rolls its transaction back by itself, exactly as on a full filesystem (ENOSPC); unlike a tmpfs it needs no
// mount, and unlike a file-size limit (RLIMIT_FSIZE, which SQLite reports as SQLITE_IOERR_WRITE) it is SQLITE_FULL
// itself, and the disk is "freed" by raising the limit again.

const ADMIN = 940_000_035;
let bots: BotHarness;
let h: Harness;
let admin: EmulatedChat;
useBotHarness(350_000_001, { admins: [ADMIN], env: { ALERT_CHECK_INTERVAL_MS: "200" } }, (started) => {
  bots = started;
  h = started.h;
  admin = new EmulatedChat(bots.emulatorUrl, { id: ADMIN, first_name: "Admin", language_code: "en" });
});

const toAdmin = async (part: string) => (await admin.messages()).filter((m) => m.from_bot && m.text.includes(part));

describe("SQLite with a full disk", () => {
  it("answers 503 with the reason, logs SQLITE_FULL, alerts the administrators, and writes nothing by halves", async () => {
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) keys.push((await h.newKey(100)).key);
    expect((await h.call("POST", "/v1/stars", { key: keys[0], body: { username: "alice", stars: 50 } })).status).toBe(200);

    const db = h.service.db;
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(db);
    let answers: Array<{ status: number; body: any }> = [];
    const fullAt = Date.now();
    try {
      // 80 purchases under load, 20 at a time, while no page can be added.
      for (let wave = 0; wave < 4; wave++) {
        answers = answers.concat(
          await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              h.call("POST", "/v1/stars", {
                key: keys[i % keys.length],
                body: { username: "alice", stars: 50 + i, idempotency_key: `full-${wave}-${i}` },
              }),
            ),
          ),
        );
      }
      await eventually(async () => ((await toAdmin("The database has no room left")).length ? true : undefined));
    } finally {
      await sql.raw("pragma max_page_count = 1073741823").execute(db);
    }

    const refused = answers.filter((a) => a.status === 503);
    console.log(JSON.stringify({ purchases: answers.length, refused503: refused.length, alertedAfterMs: Date.now() - fullAt }));
    expect(answers.filter((a) => ![200, 202, 503].includes(a.status)).map((a) => [a.status, a.body])).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.body).toEqual({
        success: false,
        error: "The database has no room to store this (its disk is full): retry later",
        error_code: "database_unavailable",
      });
    }
    const logs = h.logs.join("");
    expect(logs).toContain("SQLITE_FULL");
    expect(logs).not.toContain("cannot rollback");
    const alert = (await toAdmin("The database has no room left"))[0];
    expect(alert.text).toContain("SQLITE_FULL");

    // Room again: the same purchases go through (a refused one was never placed), and the alert ends.
    const again = await h.call("POST", "/v1/stars", { key: keys[0], body: { username: "alice", stars: 50, idempotency_key: "full-0-0" } });
    expect(again.status).toBe(200);
    await eventually(async () => ((await toAdmin("The database answers again")).length ? true : undefined));
    await eventually(async () => {
      const row = await db
        .selectFrom("orders")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("status", "=", "processing")
        .executeTakeFirstOrThrow();
      return Number(row.n) === 0 ? true : undefined;
    });
    await h.assertLedgerInvariant();
    // Each answered purchase is one order, each refused one left none behind (the first one, sent again, is new if it was refused).
    const placed = 1 + answers.filter((a) => a.status !== 503).length + (answers[0].status === 503 ? 1 : 0);
    expect(await h.orderCount()).toBe(placed);
  });
});
