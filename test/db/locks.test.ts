import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../../src/db/database.js";
import { holdRole, keyedLock, type Role } from "../../src/db/locks.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { eventually } from "../support/harness.js";
import { TEST_ENGINE, type TestDatabase, testDatabase } from "../support/databases.js";

// The locks several instances coordinate by (today's src/db/coordination.ts), on both engines: two pools on one
// database stand for two instances. On SQLite (one instance) a role is simply taken and a keyed lock runs its work.

let database: TestDatabase;
const pools: Db[] = [];
beforeAll(async () => {
  database = await testDatabase();
  for (let i = 0; i < 2; i++) pools.push(openDatabase(database.url, { poolMax: 4 }));
  await migrateToLatest(pools[0]);
});
afterAll(async () => {
  for (const db of pools) await db.destroy();
  await database.drop();
});

const quiet = { info: () => {}, warn: () => {} };

function role() {
  const state = { taken: 0, resigned: 0 };
  const value: Role = {
    take: async () => void state.taken++,
    resign: async () => void state.resigned++,
    working: () => true,
  };
  return { state, value };
}

describe(`locks on ${TEST_ENGINE}`, () => {
  it("a role runs on one holder at a time; when it stops, another takes it over", async () => {
    const [a, b] = [role(), role()];
    const first = holdRole(pools[0], "test-role", a.value, quiet, 100);
    await first.started;
    expect(a.state.taken).toBe(1);
    if (TEST_ENGINE === "sqlite") {
      await first.stop();
      expect(a.state.resigned).toBe(1);
      return;
    }
    const second = holdRole(pools[1], "test-role", b.value, quiet, 100);
    await second.started;
    // The second has contended (its first round settled) and stands by while the first holds the role.
    expect(b.state.taken).toBe(0);
    await first.stop();
    expect(a.state.resigned).toBe(1);
    await eventually(async () => (b.state.taken === 1 ? true : undefined));
    await second.stop();
    expect(b.state.resigned).toBe(1);
  });

  it("work under one key runs one at a time across holders, and other keys run beside it", async () => {
    const locks = pools.map((db) => keyedLock(db, 2));
    const running = new Map<string, number>();
    const overlaps: string[] = [];
    const work = (key: string) => async () => {
      running.set(key, (running.get(key) ?? 0) + 1);
      if (running.get(key)! > 1) overlaps.push(key);
      // Kept on purpose: work that lasts 20 ms, so works under one key would overlap if the lock let them.
      await new Promise((resolve) => setTimeout(resolve, 20));
      running.set(key, running.get(key)! - 1);
      return key;
    };
    // Four works under "chat-a" (two through each holder), four under keys of their own.
    const key = (i: number) => (i < 4 ? "chat-a" : `chat-${i}`);
    const started = Date.now();
    const done = await Promise.all(Array.from({ length: 8 }, (_, i) => locks[i % 2](key(i), work(key(i)))));
    expect(done).toHaveLength(8);
    // On SQLite (one instance) the work runs as it is: the overlap shows the check would see one.
    if (TEST_ENGINE === "postgres") expect(overlaps).toEqual([]);
    else expect(overlaps).toContain("chat-a");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
