import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { newVaultKey } from "./vault.js";

/** Where the codes key is kept when CODES_KEY is not set: `codes.key` beside the SQLite database. */
export const codesKeyFile = (databaseUrl: string) => join(dirname(databaseUrl), "codes.key");

/**
 * The key that seals gift card codes: CODES_KEY when set, else `codes.key` beside the database, made on
 * first start (readable by the owner only). Losing it makes stored codes unreadable, so back it up with the database.
 */
export function codesKey(configured: string | undefined, databaseUrl: string): Buffer {
  if (configured) return Buffer.from(configured, "base64");
  const file = codesKeyFile(databaseUrl);
  try {
    // "wx": of two processes starting at once, one writes and the other reads what it wrote.
    writeFileSync(file, newVaultKey().toString("base64"), { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  return Buffer.from(readFileSync(file, "utf8").trim(), "base64");
}
