import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { allProvidersAt } from "../../src/simulator/settings.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { startSimulator } from "../../src/simulator/server.js";
import { cryptoPaySignature } from "../../src/upstream/crypto-pay.js";
import { withAdmin } from "../support/admin-core.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// PostgreSQL only: two instances receive the same paid invoice's webhook, again and again, while both polls
// look at it too; it is credited once.

let simulator: Awaited<ReturnType<typeof startSimulator>>;
let database: TestDatabase;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  simulator = await startSimulator(0, { timeScale: 0.02 });
});
afterEach(async () => {
  for (const instance of running.splice(0)) await kill(instance.proc);
  await database?.drop();
});
afterAll(async () => simulator.app.close());

describe("two instances and one paid invoice", () => {
  it("credit it once, however many webhooks and polls reach them", async () => {
    database = await testDatabase({ migrated: true });
    const db = openDatabase(database.url);
    await migrateToLatest(db);
    const { key } = await withAdmin({ DATABASE_URL: database.url, ...database.env }, (admin) => admin.issueKey("626262"));
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      UPSTREAM: "external",
      ...allProvidersAt(simulator.url),
      CRYPTO_PAY_URL: `${simulator.url}/cryptopay`,
      CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN,
      TOPUP_POLL_MS: "100",
      LOG_LEVEL: "warn",
    };
    const [a, b] = await Promise.all([freePort(), freePort()]).then((ports) => Promise.all(ports.map((port) => startServiceProcess(env, port))));
    running.push(a, b);
    const { topup } = (await http("POST", `${a.base}/v1/topups`, key, { amount_usdt: 18 })).body;
    const paid = await http("POST", `${simulator.url}/cryptopay/control/invoices/${topup.invoice_id}/pay`, undefined, { deliver: false });
    expect(paid.status).toBe(200);

    // The provider's update, signed as it signs it, delivered to both instances at once, five times each.
    const body = JSON.stringify({ update_id: 1, update_type: "invoice_paid", request_date: new Date().toISOString(), payload: paid.body.invoice });
    const deliveries = [a, b].flatMap((instance) =>
      Array.from({ length: 5 }, async () => {
        const response = await request(`${instance.base}/cryptopay/webhook`, {
          method: "POST",
          headers: { "content-type": "application/json", "crypto-pay-api-signature": cryptoPaySignature(SIMULATOR_CRYPTO_PAY_TOKEN, body) },
          body,
        });
        await response.body.dump();
        return response.statusCode;
      }),
    );
    expect(await Promise.all(deliveries)).toEqual(Array(10).fill(200));
    // Read in the database: polling the API every 50 ms would run into the key's rate limit (60 a minute) on a slow machine.
    await eventually(async () => {
      const row = await db.selectFrom("topups").select("status").where("id", "=", topup.topup_id).executeTakeFirstOrThrow();
      return row.status === "credited" ? true : undefined;
    });
    // Both polls have had their turns meanwhile; a few more (100 ms each) change nothing. Kept on purpose: the
    // polls run in other processes, and no sign marks a pass that found nothing to do.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await http("GET", `${a.base}/v1/balance`, key)).body.balance_usdt).toBe(18);
    const entries = await db.selectFrom("ledger_entries").select("amount_micro").where("kind", "=", "topup").execute();
    expect(entries).toEqual([{ amount_micro: 18_000_000 }]);
    await assertBooks(db);
    await db.destroy();
  });
});
