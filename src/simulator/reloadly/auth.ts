import { createHmac, randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { SimContext } from "../context.js";
import { SIMULATOR_RELOADLY_CREDENTIALS } from "../../config/simulated-credentials.js";
import { AUDIENCE, ENVIRONMENTS, type Environment, hostPath, type ReloadlyState, reloadlyError } from "./state.js";

// Reloadly's token endpoint, `POST https://auth.reloadly.com/oauth/token`, served at /reloadly/auth/oauth/token:
// OAuth2 client credentials with an audience (docs/providers/reloadly-giftcards.md, "Authentication": R2, R3
// AccessTokenRequest/AccessTokenResponse200, R6 fixtures).

const AUTH_PREFIX = "/reloadly/auth";

/** The published `expires_in`: 5184000 s, 60 days (R2, R3, R6 fixture). */
const TOKEN_LIFETIME_S = 5_184_000;

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT shaped like Reloadly's (R3 example: `aud` the gift-card host, `https://reloadly.com/sandbox` set for TEST). */
function jwt(key: Buffer, environment: Environment, clientId: string, now: number): string {
  const iat = Math.floor(now / 1000);
  const head = base64url({ alg: "HS256", typ: "JWT" });
  const body = base64url({
    iss: "https://auth.reloadly.com/",
    sub: `${clientId}@clients`,
    aud: AUDIENCE[environment],
    iat,
    nbf: iat,
    exp: iat + TOKEN_LIFETIME_S,
    scope: "developer",
    "https://reloadly.com/sandbox": environment === "sandbox",
  });
  const signature = createHmac("sha256", key).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${signature}`;
}

export function authRoutes(app: FastifyInstance, sim: SimContext, state: ReloadlyState): void {
  const key = randomBytes(32);
  app.post("/auth/oauth/token", async (request, reply) => {
    if (await sim.blocked("reloadly", reply)) return reply;
    const path = hostPath(request, AUTH_PREFIX);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const environment = ENVIRONMENTS.find(
      (env) =>
        body.client_id === SIMULATOR_RELOADLY_CREDENTIALS[env].clientId && body.client_secret === SIMULATOR_RELOADLY_CREDENTIALS[env].clientSecret,
    );
    // A wrong id or secret, or another grant, is refused alike: 401 INVALID_CREDENTIALS "Access Denied" (R3).
    if (!environment || body.grant_type !== "client_credentials") return reloadlyError(reply, 401, path, "Access Denied", "INVALID_CREDENTIALS");
    // The TEST pair gets sandbox tokens only and the LIVE pair production ones (R1: one pair per mode). The status
    // of INVALID_AUDIENCE is not published (R6 has the body only): 400 is the simulator's choice.
    if (body.audience !== AUDIENCE[environment]) return reloadlyError(reply, 400, path, "The provided audience is not valid", "INVALID_AUDIENCE");
    const now = Date.now();
    const token = jwt(key, environment, String(body.client_id), now);
    state.tokens.set(token, { environment, expiresAt: now + TOKEN_LIFETIME_S * 1000 });
    return { access_token: token, scope: "developer", expires_in: TOKEN_LIFETIME_S, token_type: "Bearer" };
  });
}
