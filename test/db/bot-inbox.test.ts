import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botInbox } from "../../src/db/bot-inbox.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";

// The inbox hands out a chat's updates one at a time across every instance (src/db/bot-inbox.ts). Two handles on
// one database stand for two instances: each has its own pool, as two processes would.

let database: TestDatabase;
let a: Db;
let b: Db;

beforeAll(async () => {
  database = await testDatabase();
  a = openDatabase(database.url, { poolMax: 4 });
  await migrateToLatest(a);
  b = openDatabase(database.url, { poolMax: 4 });
});
afterAll(async () => {
  await a?.destroy();
  await b?.destroy();
  await database?.drop();
});

const update = (updateId: number, chat: string) => ({ updateId, chat, update: { update_id: updateId } });

describe("the bot inbox", () => {
  it("hands out no update of a chat while another of it is leased, even one stored later with a lower id", async () => {
    const inbox = botInbox(a);
    // Posted at once to two instances, the later update's row can be committed (and claimed) first.
    await inbox.store([update(101, "chat-1")]);
    expect((await inbox.claim("b", 10, 10_000)).map((u) => u.updateId)).toEqual([101]);
    await inbox.store([update(100, "chat-1")]);
    expect(await inbox.claim("a", 10, 10_000)).toEqual([]);
    expect(await inbox.anyFree()).toBe(false);
    await inbox.done(101);
    expect((await inbox.claim("a", 10, 10_000)).map((u) => u.updateId)).toEqual([100]);
    await inbox.done(100);
  });

  it("lets one of two instances claiming at once take a chat, however their stores and claims interleave", async () => {
    // Each round: a new chat's two updates, each stored by one instance which then claims at once (as a webhook
    // post wakes its own worker). A claim that read the inbox before the other's store or claim committed must
    // still not take the chat's other update.
    const rounds = 60;
    const both: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const chat = `race-${round}`;
      const low = 1_000 + round * 2;
      const claims = await Promise.all(
        [
          [a, low],
          [b, low + 1],
        ].map(async ([db, id]) => {
          const inbox = botInbox(db as Db);
          await inbox.store([update(id as number, chat)]);
          return inbox.claim(`owner-${String(id)}`, 10, 10_000);
        }),
      );
      const taken = claims.flat().filter((u) => u.chat === chat);
      if (taken.length > 1) both.push(round);
      for (const u of taken) await botInbox(a).done(u.updateId);
    }
    expect(both).toEqual([]);
  });
});
