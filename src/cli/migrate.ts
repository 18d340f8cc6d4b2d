import { loadConfig, loadDotEnv } from "../config.js";
import { migrateDatabase } from "../db/migrate.js";

loadDotEnv();
const config = loadConfig();
const applied = await migrateDatabase(config.DATABASE_URL, config.DATABASE_POOL_MAX);
console.log(applied.length ? `applied: ${applied.join(", ")}` : "schema is up to date");
