import { onServer, runPrefix } from "./databases.js";

/** Names this run, so its PostgreSQL databases can be told apart from another run's on the same server. */
export function setup() {
  process.env.TEST_RUN_ID = String(process.pid);
}

/** Drops whatever databases of this run a crashed or killed test file left behind. */
export async function teardown() {
  if (process.env.TEST_POSTGRES_REACHABLE !== "1") return;
  const prefix = runPrefix(String(process.pid));
  await onServer(async (client) => {
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname like $1", [`${prefix}%`]);
    for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
  });
}
