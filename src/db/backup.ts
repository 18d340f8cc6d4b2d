import { existsSync, linkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import type { Executor } from "./database.js";
import { loadSqliteDriver } from "./native.js";
import { syncDirectory } from "./wal-flush.js";

/** A backup that was not made, and why, in one line: the operator's mistake or state, never a crash. */
export class BackupRefused extends Error {}

/** A backup's file (or its companion) goes into an existing folder, under a name not taken. */
export function refuseTarget(path: string): void {
  const target = resolve(path);
  if (!existsSync(dirname(target)) || !statSync(dirname(target)).isDirectory()) {
    throw new BackupRefused(`the folder ${dirname(target)} does not exist: make it first`);
  }
  if (existsSync(target)) throw new BackupRefused(`${target} already exists: a backup never overwrites a file, choose a new name`);
}

export interface SqliteCopy {
  source: string;
  target: string;
  bytes: number;
  pages: number;
  pageSize: number;
  tables: number;
  copyMs: number;
}

/**
 * A consistent copy of a live SQLite database through SQLite's online backup API, checked before it is put in
 * place. The copy goes to a temporary file beside the target and takes the target's name only once `verify`
 * and `pragma integrity_check` pass, and never over an existing file: a failed or interrupted backup leaves
 * nothing under that name, and an earlier backup is never replaced.
 */
export async function copySqlite(sourcePath: string, targetPath: string, verify: (copyPath: string) => Promise<void>): Promise<SqliteCopy> {
  const source = resolve(sourcePath);
  const target = resolve(targetPath);
  refuseTarget(target);
  if (!existsSync(source) || !statSync(source).isFile()) throw new BackupRefused(`there is no SQLite database at ${source} (DATABASE_URL)`);

  // Only read (in WAL mode a reader blocks no writer). Not opened read-only: a read-only connection could not
  // remove the -wal and -shm files it makes beside a stopped service's database; this one, last out, does.
  loadSqliteDriver(); // another Node's native module: one line, not a stack
  const live = new SQLite(source, { fileMustExist: true });
  const partial = `${target}.partial-${process.pid}`;
  try {
    live.pragma("busy_timeout = 5000");
    let ours: boolean;
    try {
      ours = live.prepare("select 1 from sqlite_master where type = 'table' and name = 'accounts'").get() !== undefined;
    } catch {
      throw new BackupRefused(`${source} is not a SQLite database`);
    }
    if (!ours) throw new BackupRefused(`${source} is not a database of this service (it has no accounts table)`);

    const started = performance.now();
    // After the first step, the rest in one step: one read transaction on the source, so one point in time;
    // a write by the service between the two steps makes SQLite start the copy again, within that step.
    // Made the owner's alone before a byte is copied into it (the backup keeps the file's mode).
    writeFileSync(partial, "", { flag: "wx", mode: 0o600 });
    await live.backup(partial, { progress: () => 0x7fffffff });
    const copyMs = Math.round(performance.now() - started);

    await verify(partial);
    const copy = new SQLite(partial, { fileMustExist: true });
    let pages: number, pageSize: number, tables: number;
    try {
      // One self-contained file, no -wal beside it; the service turns WAL on again when it opens a restored copy.
      copy.pragma("journal_mode = DELETE");
      const integrity = copy.pragma("integrity_check") as Array<{ integrity_check: string }>;
      if (integrity.length !== 1 || integrity[0].integrity_check !== "ok") {
        throw new BackupRefused(`the copy failed integrity_check, nothing was kept: ${integrity.map((row) => row.integrity_check).join("; ")}`);
      }
      pages = copy.pragma("page_count", { simple: true }) as number;
      pageSize = copy.pragma("page_size", { simple: true }) as number;
      tables = (copy.prepare("select count(*) as n from sqlite_master where type = 'table' and name not like 'sqlite_%'").get() as { n: number }).n;
    } finally {
      copy.close();
    }
    // A hard link fails when the name is taken meanwhile (EEXIST), so even a race cannot overwrite a file.
    try {
      linkSync(partial, target);
    } catch (error) {
      if ((error as { code?: string }).code === "EEXIST") throw new BackupRefused(`${target} appeared while copying: nothing was overwritten`);
      throw error;
    }
    // The copy's pages are on disk (SQLite synced them); its name must be too, before "written" is said.
    syncDirectory(dirname(target));
    return { source, target, bytes: statSync(target).size, pages, pageSize, tables, copyMs };
  } finally {
    live.close();
    for (const leftover of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`]) rmSync(leftover, { force: true });
  }
}

/**
 * What a backup's verification reports of a copy: its row counts, and the newest sealed values (a gift card's
 * codes, a webhook secret), which the codes key kept with the backup must open.
 */
export async function contentsOf(exec: Executor): Promise<{ accounts: number; orders: number; entries: number; sealed: string[] }> {
  const count = async (table: "accounts" | "orders" | "ledger_entries") =>
    (
      await exec
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n;
  const codes = await exec
    .selectFrom("orders")
    .select("sealed_codes as s")
    .where("sealed_codes", "is not", null)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  const secret = await exec.selectFrom("webhook_endpoints").select("secret_sealed as s").orderBy("updated_at", "desc").limit(1).executeTakeFirst();
  return {
    accounts: await count("accounts"),
    orders: await count("orders"),
    entries: await count("ledger_entries"),
    sealed: [codes?.s, secret?.s].filter((s): s is string => Boolean(s)),
  };
}
