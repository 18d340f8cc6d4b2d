import { Migrator } from "kysely";
import { migrations } from "../../migrations/index.js";
import { type Db, openDatabase } from "./database.js";

/** Brings the schema to the newest migration in migrations/; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) {
    const failed = results.find((r) => r.status === "Error");
    throw new Error(`migration ${failed?.migrationName ?? "(unknown)"} failed: ${String(error)}`, { cause: error });
  }
  return results.filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/** Opens the database at `url`, brings it to the latest schema and closes it; returns the migrations applied. */
export async function migrateDatabase(url: string, poolMax: number): Promise<string[]> {
  const db = openDatabase(url, { poolMax });
  try {
    return await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
