import SQLite from "better-sqlite3";
import Fastify from "fastify";
import pg from "pg";
import pino from "pino";
import { OneLinePerRequest } from "../src/api/request-log.js";
import { hashKey } from "../src/core/keys.js";
import { engineOf } from "../src/db/database.js";

// The floor under a keyed read, measured beside the ceiling: bare Fastify with the service's logging, the key hashed
// (SHA-256, as the service does) and one indexed read of its account: a prepared statement on SQLite, one round trip
// on PostgreSQL. What answering a balance physically needs; the read rows are reported as a share of it.
const port = Number(process.argv[2] ?? 0);
const url = process.argv[3]!;
const SQL = `select accounts.balance_micro from api_keys inner join accounts on accounts.id = api_keys.account_id
  where api_keys.key_hash = $1 and api_keys.revoked_at is null`;

let read: (hash: string) => Promise<number | undefined>;
if (engineOf(url) === "postgres") {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  read = async (hash) => (await pool.query<{ balance_micro: string }>({ name: "floor", text: SQL, values: [hash] })).rows[0]?.balance_micro as never;
} else {
  const statement = new SQLite(url, { readonly: true }).prepare(SQL.replace("$1", "?"));
  read = async (hash) => (statement.get(hash) as { balance_micro: number } | undefined)?.balance_micro;
}

const app = Fastify({ loggerInstance: pino({ level: "info" }, pino.destination({ dest: 1, sync: false })), logController: new OneLinePerRequest() });
app.get("/floor", async (request, reply) => {
  const balance = await read(hashKey(String(request.headers["x-api-key"] ?? "")));
  if (balance === undefined) return reply.code(401).send({ success: false, error: "API key is not valid" });
  return reply.type("application/json").send(`{"success":true,"balance_usdt":${Number(balance) / 1e6},"currency":"USDT"}`);
});
await app.listen({ host: "127.0.0.1", port });
console.error(`floor ready on ${port}`);
