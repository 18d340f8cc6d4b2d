import { loadConfig, loadDotEnv } from "../config.js";
import { openDatabase } from "../db/database.js";
import { migrateToLatest } from "../db/migrate.js";

loadDotEnv();
const config = loadConfig();
const db = openDatabase(config.DATABASE_URL);
try {
  const applied = await migrateToLatest(db);
  console.log(applied.length ? `applied: ${applied.join(", ")}` : "schema is up to date");
} finally {
  await db.destroy();
}
