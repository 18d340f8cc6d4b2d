import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withAdmin } from "../support/admin-core.js";
import { fromUsdt, toUsdt } from "../../src/core/model/money.js";
import { type Db, openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { startSimulator } from "../../src/simulator/server.js";
import { backupCli } from "../support/backup-cli.js";
import { assertBooks } from "../support/books.js";
import { eventually } from "../support/harness.js";
import { freePort, http, kill, type ServiceProcess, startServiceProcess } from "../support/processes.js";
import { fastEnv } from "../support/fast-env.js";

const ledgerSum = async (db: Db, accountId: number) =>
  Number(
    (
      await db
        .selectFrom("ledger_entries")
        .select(sql<number>`coalesce(sum(amount_micro), 0)`.as("s"))
        .where("account_id", "=", accountId)
        .executeTakeFirstOrThrow()
    ).s,
  );

describe("npm run admin -- backup while the service runs, then a restore", () => {
  let simulator: Awaited<ReturnType<typeof startSimulator>>;
  const dir = mkdtempSync(join(tmpdir(), "partner-backup-"));
  const services: ServiceProcess[] = [];
  const dbs: Db[] = [];

  beforeAll(async () => {
    simulator = await startSimulator(0, { timeScale: 0.02, stockScale: 100 });
  });
  afterAll(async () => {
    for (const service of services) await kill(service.proc);
    for (const db of dbs) await db.destroy();
    await simulator.app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const serviceEnv = (databaseUrl: string) => ({
    DATABASE_URL: databaseUrl,
    ...fastEnv(simulator.url, 3000),
    LOG_LEVEL: "warn",
  });

  it("copies a consistent database under purchase load; a service started on the copy has its books, balances and codes", async () => {
    const liveUrl = join(dir, "live", "partner.db");
    const live = openDatabase(liveUrl);
    dbs.push(live);
    await migrateToLatest(live);
    const keys: Array<{ key: string; accountId: number }> = [];
    await withAdmin({ DATABASE_URL: liveUrl }, async (admin) => {
      for (let i = 0; i < 6; i++) {
        const { key, account } = await admin.issueKey(String(777_000 + i));
        await admin.credit(String(777_000 + i), fromUsdt(5000), "test", { confirmed: true });
        keys.push({ key, accountId: account.id });
      }
    });
    const first = await startServiceProcess(serviceEnv(liveUrl), await freePort());
    services.push(first);
    // A reader held open from here keeps SQLite from checkpointing what follows into the database file: until
    // it ends, every purchase below lives only in the -wal file, which a copy of the file alone would miss.
    const reader = new SQLite(liveUrl);
    reader.prepare("begin").run();
    reader.prepare("select count(*) from orders").get();

    // Every key buys at once, over and over: deliveries, failures refunded at once, gift cards completed (or failed
    // and refunded) by polling.
    let stop = false;
    const cardOrders: Array<{ key: string; id: number }> = [];
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const load = keys.map(async ({ key }, i) => {
      for (let round = 0; !stop; round++) {
        const [ok, failed, card] = await Promise.all([
          http("POST", `${first.base}/v1/stars`, key, { username: "alice", stars: 50 + i }),
          http("POST", `${first.base}/v1/stars`, key, { username: `fail_bob${i}`, stars: 60 }),
          http(
            "POST",
            `${first.base}/v1/giftcards/${round % 3 === 2 ? "apple-us" : "psn-us"}/order`,
            key,
            round % 3 === 2 ? { card_id: "apple-us-fail", quantity: 1 } : { card_id: "psn-us-10", quantity: 1 + (round % 2) },
          ),
        ]);
        for (const answer of [ok, failed, card]) count(answer.status);
        cardOrders.push({ key, id: card.body.order_id });
        for (const order of cardOrders.filter((o) => o.key === key).slice(-4))
          await http("GET", `${first.base}/v1/giftcards/orders/${order.id}`, key);
      }
    });
    const completedCards = async (db: Db) =>
      Number(
        (
          await db
            .selectFrom("orders")
            .select(sql<number>`count(*)`.as("n"))
            .where("product_type", "=", "giftcard")
            .where("status", "=", "completed")
            .executeTakeFirstOrThrow()
        ).n,
      );
    await eventually(async () => ((await completedCards(live)) >= 3 ? true : undefined), 15_000);

    mkdirSync(join(dir, "backups"));
    const target = join(dir, "backups", "partner-1.db");
    const ordersBefore = Number(
      (
        await live
          .selectFrom("orders")
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const backup = await backupCli({ DATABASE_URL: liveUrl }, target, "--with-codes-key");
    reader.close();
    const ordersDuringBackup = await live
      .selectFrom("orders")
      .select(sql<number>`count(*)`.as("n"))
      .executeTakeFirstOrThrow();
    // The load goes on after the copy: orders placed after it, waited for.
    await eventually(async () => {
      const { n } = await live
        .selectFrom("orders")
        .select(sql<number>`count(*)`.as("n"))
        .executeTakeFirstOrThrow();
      return Number(n) > Number(ordersDuringBackup.n) ? true : undefined;
    });
    stop = true;
    await Promise.all(load);

    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    const lines = backup.stdout.trim().split("\n");
    expect(lines[0]).toBe(`backup of ${liveUrl} written to ${target}`);
    expect(lines[1]).toMatch(/^copied \d+\.\d\d MB: \d+ pages of 4096 bytes, \d+ tables, in \d+ ms$/);
    expect(lines[2]).toMatch(
      /^verified in \d+ ms: integrity_check ok; books whole, every balance equals the sum of its entries \(\d+ accounts, \d+ ledger entries, \d+ orders\); the codes key opens its sealed codes$/,
    );
    expect(lines[3]).toContain(`codes key: ${join(dir, "live", "codes.key")} copied to ${target}.codes.key (mode 0600)`);
    expect(statSync(`${target}.codes.key`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${target}.codes.key`)).toEqual(readFileSync(join(dir, "live", "codes.key")));
    // Purchases succeeded, failed and were refunded, and went on while the copy was made.
    expect([...statuses.keys()].sort()).toEqual([200, 202, 502]);

    // The copy: one self-contained file, whole books, taken in the middle of the load.
    const copy = openDatabase(target);
    dbs.push(copy);
    await assertBooks(copy);
    const copied = Number(
      (
        await copy
          .selectFrom("orders")
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const finalLive = Number(
      (
        await live
          .selectFrom("orders")
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    // Everything committed before the command started is in the copy (most of it still in the -wal file then).
    expect(copied).toBeGreaterThanOrEqual(ordersBefore);
    expect(copied).toBeLessThanOrEqual(Number(ordersDuringBackup.n));
    expect(copied).toBeLessThan(finalLive);
    expect(await copy.selectFrom("ledger_entries").select("id").where("kind", "=", "refund").executeTakeFirst()).toBeDefined();
    const sealed = await copy
      .selectFrom("orders")
      .select(["id", "account_id"])
      .where("product_type", "=", "giftcard")
      .where("status", "=", "completed")
      .where("sealed_codes", "is not", null)
      .orderBy("id")
      .executeTakeFirstOrThrow();
    await copy.destroy();
    dbs.pop();

    // The restore, as docs/operations.md says: the copy in place of the database file, the codes key beside it, start.
    const restoredUrl = join(dir, "restored", "partner.db");
    mkdirSync(join(dir, "restored"));
    copyFileSync(target, restoredUrl);
    copyFileSync(`${target}.codes.key`, join(dir, "restored", "codes.key"));
    const second = await startServiceProcess(serviceEnv(restoredUrl), await freePort());
    services.push(second);
    const restored = openDatabase(restoredUrl);
    dbs.push(restored);
    // Orders caught in flight by the copy are settled by the restored service's reconciler.
    await eventually(async () => {
      const processing = await restored.selectFrom("orders").select("id").where("status", "=", "processing").executeTakeFirst();
      return processing ? undefined : true;
    }, 15_000);
    await assertBooks(restored);
    for (const { key, accountId } of keys) {
      const balance = (await http("GET", `${second.base}/v1/balance`, key)).body.balance_usdt;
      expect(balance).toBe(toUsdt(await ledgerSum(restored, accountId)));
    }
    const owner = keys.find((k) => k.accountId === Number(sealed.account_id))!;
    const fromCopy = await http("GET", `${second.base}/v1/giftcards/orders/${sealed.id}`, owner.key);
    const fromLive = await http("GET", `${first.base}/v1/giftcards/orders/${sealed.id}`, owner.key);
    expect(fromCopy.status).toBe(200);
    expect(fromCopy.body.status).toBe("completed");
    expect(fromCopy.body.codes).toHaveLength(fromCopy.body.quantity);
    expect(fromCopy.body.codes).toEqual(fromLive.body.codes);
  }, 40_000);
});
