import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadConfig, loadDotEnv } from "../config.js";
import { migrateDatabase } from "../db/migrate.js";
import { secretMask } from "./secrets.js";

/** `npm run migrate` in-process: brings the configured database to the latest schema and says what it applied. */
export async function runMigrate(env: Record<string, string | undefined> = process.env, out: (line: string) => void = (line) => console.log(line)) {
  const config = loadConfig(env);
  const applied = await migrateDatabase(config.database.url, config.database.poolMax);
  out(applied.length ? `applied: ${applied.join(", ")}` : "schema is up to date");
}

// Run as a program (node dist/src/cli/migrate.js, or tsx), not when imported by the tests.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  loadDotEnv();
  try {
    await runMigrate();
  } catch (error) {
    console.error(secretMask(process.env)(String((error as Error).stack ?? error)));
    process.exitCode = 1;
  }
}
