import { describe, expect, it } from "vitest";
import { runAdmin } from "../../src/cli/admin.js";
import type { Harness } from "../support/harness.js";
import { runScript } from "../support/processes.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({}, (started) => (h = started));

/**
 * `npm run admin -- ...` as its own process (the compiled CLI), against the running service's database. A real
 * process is the point here: better-sqlite3 waits for a lock synchronously, so a second connection in the
 * service's own process would block the very transaction it waits for.
 */
const admin = (...args: string[]) => runScript("admin", { DATABASE_URL: h.databaseUrl, ...h.databaseEnv }, ...args);

describe("admin CLI processes beside a running service", () => {
  it("answers every CLI credit and every purchase while both run at once, and the books stay whole", async () => {
    const buyers = await Promise.all(Array.from({ length: 4 }, () => h.newKey(100)));
    // Set up in-process (nothing runs beside it yet); only the racing runs below are processes.
    const env = { DATABASE_URL: h.databaseUrl, ...h.databaseEnv };
    expect(await runAdmin(["key", "555005"], { env, out: () => {} })).toBe(0);
    // Enough for the two debits among the runs, whatever order they land in.
    expect(await runAdmin(["credit", "555005", "2"], { env, out: () => {} })).toBe(0);
    // Purchases run until the CLI runs have ended and a few batches are in: how many land during the runs depends on
    // the machine's speed, that some do does not.
    let runsDone = false;
    let duringRuns = 0;
    const purchases: number[] = [];
    const load = (async () => {
      let i = 0;
      while (!runsDone || purchases.length < 24) {
        const batch = buyers.map(({ key }) =>
          h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50, idempotency_key: `load-${i++}` } }),
        );
        for (const res of await Promise.all(batch)) purchases.push(res.status);
        if (!runsDone) duringRuns += batch.length;
      }
    })();
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => admin(i % 4 === 3 ? "debit" : "credit", "555005", "1")));
    runsDone = true;
    await load;
    expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
    expect(duringRuns).toBeGreaterThan(0);
    expect(purchases.filter((status) => status !== 200)).toEqual([]);
    const [telegram] = await h.service.db.selectFrom("accounts").select("balance_micro").where("telegram_id", "=", "555005").execute();
    expect(Number(telegram.balance_micro)).toBe(6_000_000);
    await h.assertLedgerInvariant();
  });
});
