import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SimContext } from "../context.js";
import { authRoutes } from "./auth.js";
import { orderRoutes } from "./orders.js";
import { productRoutes } from "./products.js";
import {
  type Account,
  createState,
  ENVIRONMENTS,
  type Environment,
  finish,
  frameworkError,
  GIFTCARDS_V1,
  PREFIX,
  type ReloadlyState,
  reloadlyError,
  settle,
  STATUSES,
  stamp,
} from "./state.js";

// The simulated Reloadly (Gift Cards API), following its published documentation (docs/providers/reloadly-giftcards.md;
// what the simulator serves and accepts: docs/providers/reloadly-simulator.md). One simulator stands in for its
// three hosts, each under a prefix a base URL can point at:
//   https://auth.reloadly.com               -> /reloadly/auth
//   https://giftcards-sandbox.reloadly.com  -> /reloadly/giftcards-sandbox
//   https://giftcards.reloadly.com          -> /reloadly/giftcards

/** Every gift-card call: the provider's faults, then the bearer token of this environment, then the Accept header. */
function giftcardHost(app: FastifyInstance, sim: SimContext, state: ReloadlyState, environment: Environment): void {
  const prefix = PREFIX[environment];
  const account = state.accounts[environment];
  app.addHook("preHandler", async (request, reply) => {
    if (await sim.blocked("reloadly", reply)) return reply;
    const path = request.url.split("?")[0]!.slice(prefix.length);
    reply.type(GIFTCARDS_V1);
    const header = request.headers.authorization ?? "";
    const token = header.startsWith("Bearer ") ? state.tokens.get(header.slice("Bearer ".length)) : undefined;
    if (!token) return reloadlyError(reply, 401, path, "Full authentication is required to access this resource", "INVALID_TOKEN");
    if (token.environment !== environment) {
      return reloadlyError(reply, 401, path, "Invalid token, make sure token is valid for the given environment", "INVALID_TOKEN");
    }
    // TOKEN_EXPIRED is the code public clients test for; its wording and status are the simulator's (UNCONFIRMED).
    if (token.expiresAt <= Date.now()) return reloadlyError(reply, 401, path, "The access token has expired", "TOKEN_EXPIRED");
    if (!(request.headers.accept ?? "").includes(GIFTCARDS_V1)) return frameworkError(reply, 406, path);
    settle(account);
    return undefined;
  });
  productRoutes(app, prefix);
  orderRoutes(app, sim, state, account, prefix);
}

/** For the tests: the wallet's balance, every token expired, a PENDING transaction ended. */
function controlRoutes(app: FastifyInstance, sim: SimContext, state: ReloadlyState): void {
  app.post("/control/balance", async (request, reply) => {
    const parsed = z.object({ environment: z.enum(ENVIRONMENTS), balance: z.number().min(0) }).safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const account = state.accounts[parsed.data.environment];
    account.balance = parsed.data.balance;
    account.updatedAt = stamp();
    return { ok: true, balance: account.balance };
  });
  app.post("/control/tokens/expire", async () => {
    for (const token of state.tokens.values()) token.expiresAt = 0;
    return { ok: true, expired: state.tokens.size };
  });
  app.post<{ Params: { id: string } }>("/control/transactions/:id/settle", async (request, reply) => {
    const parsed = z.object({ status: z.enum(STATUSES).exclude(["PENDING", "PROCESSING"]) }).safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const id = Number(request.params.id);
    const account = Object.values(state.accounts).find((a: Account) => a.byId.has(id));
    const held = account?.byId.get(id);
    if (!account || !held) return reply.code(404).send({ error: "no such transaction" });
    if (held.transaction.status !== "PENDING" && held.transaction.status !== "PROCESSING") {
      return reply.code(409).send({ error: `the transaction is ${held.transaction.status}` });
    }
    finish(account, held, parsed.data.status);
    return { ok: true, transaction: held.transaction };
  });
}

/** The simulated Reloadly under /reloadly: its token endpoint, both gift-card hosts and the control routes. */
export function reloadlyRoutes(app: FastifyInstance, sim: SimContext): void {
  const state = createState();
  app.register(
    async (reloadly) => {
      // Bodies in the versioned media type are JSON too.
      reloadly.addContentTypeParser(/^application\/[\w.-]+\+json/, { parseAs: "string" }, (_request, body, done) => {
        try {
          done(null, JSON.parse(body as string));
        } catch (error) {
          done(error as Error, undefined);
        }
      });
      // A URL no host has: the framework's 404 (R3 404 examples), with the path as the host sees it.
      reloadly.setNotFoundHandler(async (request, reply) => {
        const path = request.url.split("?")[0]!.replace(/^\/reloadly\/(auth|giftcards-sandbox|giftcards)(?=\/|$)/, "") || "/";
        return frameworkError(reply, 404, path);
      });
      authRoutes(reloadly, sim, state);
      for (const environment of ENVIRONMENTS) {
        reloadly.register(async (host) => giftcardHost(host, sim, state, environment), { prefix: PREFIX[environment].slice("/reloadly".length) });
      }
      controlRoutes(reloadly, sim, state);
    },
    { prefix: "/reloadly" },
  );
}
