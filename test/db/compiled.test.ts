import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { accountById, insertStandardAccount, keyHolder, replaceKey } from "../../src/db/accounts.js";
import { compiledOnce, compiledWrite } from "../../src/db/compiled.js";
import type { Db } from "../../src/db/database.js";
import { transaction } from "../../src/db/transaction.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// Hot reads and a purchase's writes compiled once (issue 22): the same rows as the query built each time, with each call's values; outside
// a transaction on SQLite they run on the reader connection, which sees committed data only, never a transaction's.

let db: Db;
const at = "2026-01-01T00:00:00.000Z";
const NOW = "2026-01-02T00:00:00.000Z";

useMigratedDatabase(3, (opened) => (db = opened));

describe("compiled hot reads", () => {
  it("answer what the query built each time answers, for each call's values, and exact integers and flags as kysely does", async () => {
    const one = await insertStandardAccount(db, { telegramId: "880001", username: null, at });
    const two = await insertStandardAccount(db, { telegramId: "880002", username: null, at });
    await replaceKey(db, one.id, { hash: "a".repeat(64), displayPrefix: "sj_aaaa", at });
    await replaceKey(db, two.id, { hash: "b".repeat(64), displayPrefix: "sj_bbbb", at });
    await db.updateTable("accounts").set({ balance_micro: 1_000_000_000_000_000, blocked: true }).where("id", "=", two.id).execute();

    expect(await keyHolder(db, "a".repeat(64), NOW)).toMatchObject({
      keyHash: "a".repeat(64),
      account: { id: one.id, telegramId: "880001", balanceMicro: 0, blocked: false },
    });
    const holder = await keyHolder(db, "b".repeat(64), NOW);
    expect(holder).toMatchObject({
      keyHash: "b".repeat(64),
      account: { id: two.id, telegramId: "880002", balanceMicro: 1_000_000_000_000_000, blocked: true },
    });
    expect(await keyHolder(db, "c".repeat(64), NOW)).toBeUndefined();
  });

  it("see a transaction's writes inside it, and only once committed outside it", async () => {
    const account = await insertStandardAccount(db, { telegramId: "880003", username: null, at });
    await replaceKey(db, account.id, { hash: "d".repeat(64), displayPrefix: "sj_dddd", at });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside: unknown;
    let entered!: () => void;
    const open = new Promise<void>((resolve) => (entered = resolve));
    const rotation = transaction(db, async (trx) => {
      await replaceKey(trx, account.id, { hash: "e".repeat(64), displayPrefix: "sj_eeee", at });
      inside = await keyHolder(trx, "e".repeat(64), NOW);
      entered();
      await held;
    });
    // While the rotation is open, a read outside it still finds the old key, at once (SQLite: on the reader, which
    // neither waits for the transaction nor sees into it).
    await open;
    expect(await keyHolder(db, "d".repeat(64), NOW)).toMatchObject({ account: { id: account.id } });
    expect(await keyHolder(db, "e".repeat(64), NOW)).toBeUndefined();
    release();
    await rotation;
    expect(inside).toMatchObject({ keyHash: "e".repeat(64) });
    expect(await keyHolder(db, "d".repeat(64), NOW)).toBeUndefined();
    expect(await keyHolder(db, "e".repeat(64), NOW)).toMatchObject({ account: { id: account.id } });
  });

  it("read an integer JavaScript cannot hold exactly as an error, never a rounding", async () => {
    const account = await insertStandardAccount(db, { telegramId: "880004", username: null, at });
    const big = compiledOnce(1, (exec, id: number) =>
      exec
        .selectFrom("accounts")
        .select(sql<number>`9007199254740993`.as("big"))
        .where("id", "=", id),
    );
    await expect(big(db, account.id)).rejects.toThrow("not an integer JavaScript holds exactly");
    const safe = compiledOnce(1, (exec, id: number) =>
      exec
        .selectFrom("accounts")
        .select(sql<number>`9007199254740991`.as("big"))
        .where("id", "=", id),
    );
    expect(await safe(db, account.id)).toEqual([{ big: 9_007_199_254_740_991 }]);
  });

  it("refuse a write, and an argument the query does not use as a parameter", async () => {
    const write = compiledOnce(1, (exec, id: number) => exec.updateTable("accounts").set({ username: null }).where("id", "=", id) as never);
    await expect(write(db, 1)).rejects.toThrow("not a statement of the kind expected");
    const dropped = compiledOnce(1, (exec, _id: number) => exec.selectFrom("accounts").select("id").where("id", "=", 1));
    await expect(dropped(db, 5)).rejects.toThrow("each argument must be a parameter");
  });
});

describe("compiled writes", () => {
  const rename = compiledWrite(["id", "name"], (exec, v: { id: number; name: string | null }) =>
    exec.updateTable("accounts").set({ username: v.name }).where("id", "=", v.id).returning(["id", "username"]),
  );

  it("write each call's values, in the transaction they are given, an argument used twice in both places", async () => {
    const one = await insertStandardAccount(db, { telegramId: "880005", username: null, at });
    const two = await insertStandardAccount(db, { telegramId: "880006", username: null, at });
    expect(await rename(db, { id: one.id, name: "first" })).toEqual([{ id: one.id, username: "first" }]);
    expect(await rename(db, { id: two.id, name: "second" })).toEqual([{ id: two.id, username: "second" }]);
    await expect(
      transaction(db, async (trx) => {
        await rename(trx, { id: one.id, name: "rolled_back" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect((await accountById(db, one.id))?.username).toBe("first");

    const twice = compiledWrite(["id", "amount"], (exec, v: { id: number; amount: number }) =>
      exec
        .updateTable("accounts")
        .set({ balance_micro: sql<number>`balance_micro + ${v.amount}` })
        .where("id", "=", v.id)
        .where(sql<boolean>`balance_micro + ${v.amount} >= 0`)
        .returning("balance_micro"),
    );
    expect(await twice(db, { id: one.id, amount: 5 })).toEqual([{ balance_micro: 5 }]);
    expect(await twice(db, { id: one.id, amount: -6 })).toEqual([]);
    expect(await twice(db, { id: one.id, amount: -5 })).toEqual([{ balance_micro: 0 }]);
  });

  it("refuse a read, an argument left out of the statement, and one read but not named", async () => {
    const read = compiledWrite(["id"], (exec, v: { id: number }) => exec.selectFrom("accounts").select("id").where("id", "=", v.id) as never);
    await expect(read(db, { id: 1 })).rejects.toThrow("not a statement of the kind expected");
    const unused = compiledWrite(["id", "name"], (exec, v: { id: number; name: string }) =>
      exec.updateTable("accounts").set({ username: null }).where("id", "=", v.id),
    );
    await expect(unused(db, { id: 1, name: "x" })).rejects.toThrow("each argument must be a parameter");
    const unnamed = compiledWrite(["id"], (exec, v: { id: number; name: string }) =>
      exec.updateTable("accounts").set({ username: v.name }).where("id", "=", v.id),
    );
    await expect(unnamed(db, { id: 1, name: "x" })).rejects.toThrow("name is not among its arguments");
  });
});
