import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../config.js";
import { createVault } from "../core/vault.js";
import { BackupRefused, contentsOf, copySqlite, refuseTarget } from "../db/backup.js";
import { codesKeyFile } from "../core/codes-key.js";
import { engineOf, openDatabase } from "../db/database.js";
import { unbalancedAccounts } from "../db/ledger.js";

export { BackupRefused };

/** The backup copies SQLite only: PostgreSQL has its own tools, and the operator is pointed to them. */
export function refusePostgres(databaseUrl: string | undefined): void {
  if (databaseUrl && engineOf(databaseUrl) === "postgres") {
    throw new BackupRefused(
      "DATABASE_URL is PostgreSQL: back it up with pg_dump -Fc (restore with pg_restore) and keep CODES_KEY with the dump; see docs/operations.md, Backups and restore",
    );
  }
}

/** Where a backup's copy of the codes key goes: beside it, `<backup>.codes.key`. */
const keyCopyOf = (target: string) => `${resolve(target)}.codes.key`;

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(bytes < 10_485_760 ? 2 : 1)} MB`;

/**
 * `npm run admin -- backup <file> [--with-codes-key]`: an online copy of the SQLite database, verified (integrity,
 * and the books: every balance equals the sum of its entries, and the codes key opens the sealed codes). The codes
 * key is copied beside it only when asked (`withKey`) and the key lives in a file: a backup on its own, wherever
 * it is kept, then cannot open the gift card codes and webhook secrets sealed in it. Returns the lines to print;
 * refusals throw BackupRefused.
 */
export async function backupDatabase(config: Config, target: string, options: { withKey?: boolean } = {}): Promise<string[]> {
  refusePostgres(config.database.url);
  const keyFile = config.database.codesKey ? null : codesKeyFile(config.database.url);
  const keyText = config.database.codesKey ?? (keyFile && existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : null);
  const keyCopy = keyCopyOf(target);
  const copyKey = Boolean(options.withKey && keyFile && keyText);
  refuseTarget(target);
  if (copyKey) refuseTarget(keyCopy);

  let verified = "";
  const copy = await copySqlite(config.database.url, target, async (path) => {
    const started = performance.now();
    const db = openDatabase(path);
    try {
      const unbalanced = await unbalancedAccounts(db);
      if (unbalanced.length) {
        throw new BackupRefused(
          `the copy failed verification, nothing was kept: the books do not hold for accounts ${unbalanced.map((a) => a.accountId).join(", ")}`,
        );
      }
      const { accounts, orders, entries, sealed } = await contentsOf(db);
      let codes = "no sealed gift card codes or webhook secrets in it yet";
      if (sealed.length) {
        if (!keyText)
          throw new BackupRefused(`the database holds sealed codes but there is no codes key (no CODES_KEY, no ${keyFile}): nothing was kept`);
        try {
          const vault = createVault(Buffer.from(keyText, "base64"));
          for (const value of sealed) vault.open(value);
        } catch {
          throw new BackupRefused(`the codes key (${keyFile ?? "CODES_KEY"}) does not open the sealed codes in the database: nothing was kept`);
        }
        codes = "the codes key opens its sealed codes";
      }
      verified =
        `verified in ${Math.round(performance.now() - started)} ms: integrity_check ok; books whole, every balance equals the sum of its ` +
        `entries (${accounts} accounts, ${entries} ledger entries, ${orders} orders); ${codes}`;
    } finally {
      await db.destroy();
    }
  });

  const lines = [
    `backup of ${copy.source} written to ${copy.target}`,
    `copied ${megabytes(copy.bytes)}: ${copy.pages} pages of ${copy.pageSize} bytes, ${copy.tables} tables, in ${copy.copyMs} ms`,
    verified,
  ];
  if (copyKey && keyFile) {
    // Readable by the owner only, like the original; "wx" never replaces a file.
    writeFileSync(keyCopy, readFileSync(keyFile), { mode: 0o600, flag: "wx" });
    lines.push(`codes key: ${keyFile} copied to ${keyCopy} (mode 0600): keep the two files together; restore it as codes.key beside the database`);
  } else if (keyFile && keyText) {
    lines.push(
      `codes key: not copied (it opens the sealed gift card codes and webhook secrets, so it is kept apart from backups): keep ${keyFile} safe elsewhere, or add --with-codes-key to write a copy to ${keyCopy}`,
    );
  } else if (config.database.codesKey) {
    lines.push(
      "codes key: CODES_KEY comes from the environment and is not copied: keep it with this backup, or its gift card codes cannot be read after a restore",
    );
  } else {
    lines.push(`codes key: none yet (no CODES_KEY, no ${keyFile}); the service makes one on its first start`);
  }
  return lines;
}
