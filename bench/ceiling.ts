import Fastify from "fastify";
import pino from "pino";
import { OneLinePerRequest } from "../src/api/request-log.js";

// The ceiling of the stack on this machine: bare Fastify answering a constant JSON body of the given size,
// with the same logger settings as the service (info, to the same kind of sink).
const port = Number(process.argv[2] ?? 0);
const bodies = new Map<number, string>();
/** A constant JSON body of `size` bytes (the size of the measured row's answer). */
const body = (size: number) => {
  let found = bodies.get(size);
  if (!found) bodies.set(size, (found = JSON.stringify({ success: true, padding: "x".repeat(Math.max(0, size - 31)) })));
  return found;
};
// The service's logging: info, one line per request when answered, written asynchronously to stdout.
const app = Fastify({ loggerInstance: pino({ level: "info" }, pino.destination({ dest: 1, sync: false })), logController: new OneLinePerRequest() });
app.get<{ Params: { size?: string } }>("/:size?", async (request, reply) =>
  reply.type("application/json").send(body(Number(request.params.size ?? 64))),
);
await app.listen({ host: "127.0.0.1", port });
console.error(`ceiling ready on ${port}`);
