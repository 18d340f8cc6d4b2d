import { loadConfig, loadDotEnv } from "../config.js";
import { migrateDatabase } from "../wiring.js";

loadDotEnv();
const applied = await migrateDatabase(loadConfig());
console.log(applied.length ? `applied: ${applied.join(", ")}` : "schema is up to date");
