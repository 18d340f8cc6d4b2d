import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { allProvidersAt } from "../../src/simulator/settings.js";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { startSimulator } from "../../src/simulator/server.js";
import { withAdmin } from "../support/admin-core.js";
import { assertBooks } from "../support/books.js";
import { type TestDatabase, testDatabase } from "../support/databases.js";
import { eventually } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";

// A real service process killed (-9) after an invoice was made and before it was credited: the invoice is paid
// while the service is down (its webhook finds nobody), and after the restart it is credited exactly once.

let simulator: Awaited<ReturnType<typeof startSimulator>>;
let database: TestDatabase;
let service: ServiceProcess | undefined;

beforeAll(async () => {
  simulator = await startSimulator(0, { timeScale: 0.02 });
});
afterEach(async () => {
  if (service) await kill(service.proc);
  await database?.drop();
});
afterAll(async () => simulator.app.close());

describe("a top-up paid while the service was down", () => {
  it("is credited once after a restart, and a webhook delivered later credits nothing more", async () => {
    database = await testDatabase();
    const db = openDatabase(database.url);
    await migrateToLatest(db);
    const { key } = await withAdmin({ DATABASE_URL: database.url, ...database.env }, (admin) => admin.issueKey("515151"));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      UPSTREAM: "external",
      ...allProvidersAt(simulator.url),
      CRYPTO_PAY_URL: `${simulator.url}/cryptopay`,
      CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN,
      TOPUP_POLL_MS: "200",
      LOG_LEVEL: "warn",
    };
    await http("POST", `${simulator.url}/cryptopay/control/webhook`, undefined, { url: `${base}/cryptopay/webhook` });
    service = await startServiceProcess(env, port);
    const { topup } = (await http("POST", `${base}/v1/topups`, key, { amount_usdt: 30 })).body;
    expect(topup.status).toBe("active");

    await kill(service.proc);
    // Paid now: the webhook finds the port closed (and is retried, in vain, while the service is down).
    expect((await http("POST", `${simulator.url}/cryptopay/control/invoices/${topup.invoice_id}/pay`, undefined, {})).status).toBe(200);

    service = await startServiceProcess(env, port);
    // Read in the database: polling the API every 50 ms would run into the key's rate limit (60 a minute) on a slow machine.
    await eventually(async () => {
      const row = await db.selectFrom("topups").select("status").where("id", "=", topup.topup_id).executeTakeFirstOrThrow();
      return row.status === "credited" ? true : undefined;
    });
    expect((await http("GET", `${base}/v1/balance`, key)).body.balance_usdt).toBe(30);

    // The provider delivers the webhook now (a late retry): nothing more is credited.
    expect((await http("POST", `${simulator.url}/cryptopay/control/invoices/${topup.invoice_id}/webhook`, undefined, {})).status).toBe(200);
    // The control call returns once the service answered the delivery: answered 200, it was handled, and the
    // provider sends it no more.
    await eventually(async () => {
      const { deliveries } = (await http("GET", `${simulator.url}/cryptopay/control/deliveries`)).body as {
        deliveries: Array<{ invoiceId: number; status: number | null }>;
      };
      return deliveries.filter((d) => d.invoiceId === topup.invoice_id).at(-1)?.status === 200 ? true : undefined;
    });
    expect((await http("GET", `${base}/v1/balance`, key)).body.balance_usdt).toBe(30);
    const entries = await db.selectFrom("ledger_entries").select(["kind", "amount_micro"]).where("kind", "=", "topup").execute();
    expect(entries).toEqual([{ kind: "topup", amount_micro: 30_000_000 }]);
    await assertBooks(db);
    await db.destroy();
  });
});
