import pg from "pg";
import { describe, expect, it } from "vitest";
import { databaseCpuMs } from "../../bench/processes.js";
import { testDatabase } from "../support/databases.js";
import { eventually } from "../support/harness.js";

// The benchmark's database CPU column (PostgreSQL): what the server spent over an interval, read from /proc,
// counting the backends that exit during it (their time moves to the postmaster's reaped children).

describe("the database's CPU time, as the benchmark reads it", () => {
  it("grows with the work the server does, including that of connections closed meanwhile, and never falls", async () => {
    const database = await testDatabase();
    try {
      const before = databaseCpuMs();
      expect(before).not.toBeNull();
      // Work on connections that close before the second reading: their backends are gone by then.
      for (let round = 0; round < 3; round++) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        await client.query("select count(*) from generate_series(1, 3000000)");
        await client.end();
      }
      // The backends' time reaches the reading once the postmaster has reaped them: waited for, not slept for.
      const after = await eventually(async () => {
        const now = databaseCpuMs()!;
        return now - before! > 100 ? now : undefined;
      });
      // Three counts of 3 million rows take well over 100 ms of a server's CPU on any machine this runs on.
      expect(after - before!).toBeGreaterThan(100);
      expect(databaseCpuMs()!).toBeGreaterThanOrEqual(after);
    } finally {
      await database.drop();
    }
  });
});
