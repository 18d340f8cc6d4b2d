import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { z } from "zod";

/**
 * A stand-in for the paid upstream providers, speaking HTTP like they do. Test inputs (see README):
 * usernames starting with fail_ (delivery fails), slow_ (delivery takes seconds), missing_ (search 404),
 * premium_ (search says premium). Faults for reliability tests: POST /control/faults.
 */
export interface SimulatorOptions {
  /** Multiplies every simulated delay; tests use a small one. */
  timeScale?: number;
  tonUsd?: number;
  logger?: boolean;
}

export const PROVIDERS = ["gateway", "rates"] as const;
type ProviderName = (typeof PROVIDERS)[number];
/** ok: normal; down: 503 on every call; timeout: answers after a very long time; fail_next: the next order fails. */
type Fault = "ok" | "down" | "timeout" | "fail_next";

const SLOW_DELIVERY_MS = 4_000;
const HANG_MS = 10 * 60 * 1000;

const searchSchema = z.object({ query: z.string().min(1), product_type: z.enum(["stars", "premium", "ads"]) });
const deliverySchema = z.object({
  reference: z.string().min(1).max(200),
  product_type: z.enum(["stars", "premium"]),
  username: z.string().min(1),
  amount: z.number().int().positive(),
});
const faultSchema = z.object({ provider: z.enum(PROVIDERS), mode: z.enum(["ok", "down", "timeout", "fail_next"]) });

type Delivery = { status: "completed"; transaction_id: string } | { status: "failed"; error: string } | { status: "processing" };

export function buildSimulator(options: SimulatorOptions = {}): FastifyInstance {
  const scale = options.timeScale ?? 1;
  const app = Fastify({ logger: options.logger ?? false });
  const faults = new Map<ProviderName, Fault>();
  const deliveries = new Map<string, Delivery>();
  // Aborted on close, so a hanging or slow simulated call never keeps the process alive.
  const closing = new AbortController();
  const wait = (ms: number) => sleep(ms, undefined, { signal: closing.signal }).catch(() => undefined);

  /** Applies the provider's fault; true when the reply has been handled. */
  async function faulted(provider: ProviderName, reply: FastifyReply): Promise<boolean> {
    const fault = faults.get(provider) ?? "ok";
    if (fault === "down") {
      await reply.code(503).send({ error: `${provider} unavailable (simulated)` });
      return true;
    }
    if (fault === "timeout") {
      await wait(HANG_MS);
      return false;
    }
    return false;
  }

  const invalid = (reply: FastifyReply, error: z.ZodError) => reply.code(400).send({ error: z.prettifyError(error) });
  const display = (username: string) => username.replace(/^(premium_|slow_|fail_)/, "").replace(/^./, (c) => c.toUpperCase());

  app.get("/health", async () => ({ ok: true, providers: Object.fromEntries(PROVIDERS.map((p) => [p, faults.get(p) ?? "ok"])) }));
  for (const provider of PROVIDERS) {
    app.get(`/${provider}/health`, async (_request, reply) => {
      if (await faulted(provider, reply)) return reply;
      return { ok: true };
    });
  }

  app.post("/gateway/search", async (request, reply) => {
    if (await faulted("gateway", reply)) return reply;
    const parsed = searchSchema.safeParse(request.body);
    if (!parsed.success) return invalid(reply, parsed.error);
    const username = parsed.data.query.replace(/^@/, "");
    if (username.toLowerCase().startsWith("missing_")) return reply.code(404).send({ error: "user not found" });
    return {
      username,
      name: display(username),
      photo: `https://cdn.simulator.invalid/photos/${encodeURIComponent(username.toLowerCase())}.jpg`,
      premium: username.toLowerCase().startsWith("premium_"),
    };
  });

  app.post("/gateway/deliveries", async (request, reply) => {
    if (await faulted("gateway", reply)) return reply;
    const parsed = deliverySchema.safeParse(request.body);
    if (!parsed.success) return invalid(reply, parsed.error);
    const { reference, username } = parsed.data;
    // Idempotent by reference, as a real provider's order reference is: a resend never delivers twice.
    const known = deliveries.get(reference);
    if (known) return known;
    const lower = username.toLowerCase();
    if (faults.get("gateway") === "fail_next" || lower.startsWith("fail_")) {
      faults.delete("gateway");
      const failed: Delivery = { status: "failed", error: `Delivery to @${username} failed at the provider` };
      deliveries.set(reference, failed);
      return reply.code(422).send(failed);
    }
    deliveries.set(reference, { status: "processing" });
    if (lower.startsWith("slow_")) {
      await wait(SLOW_DELIVERY_MS * scale);
    }
    const done: Delivery = { status: "completed", transaction_id: `sim_${randomUUID()}` };
    deliveries.set(reference, done);
    return done;
  });

  app.get<{ Params: { reference: string } }>("/gateway/deliveries/:reference", async (request, reply) => {
    if (await faulted("gateway", reply)) return reply;
    const known = deliveries.get(request.params.reference);
    if (!known) return reply.code(404).send({ error: "no such delivery" });
    return known;
  });

  app.get("/rates/ton", async (_request, reply) => {
    if (await faulted("rates", reply)) return reply;
    return { ton_usd: options.tonUsd ?? 5.4 };
  });

  app.post("/control/faults", async (request, reply) => {
    const parsed = faultSchema.safeParse(request.body);
    if (!parsed.success) return invalid(reply, parsed.error);
    if (parsed.data.mode === "ok") faults.delete(parsed.data.provider);
    else faults.set(parsed.data.provider, parsed.data.mode);
    return { ok: true, ...parsed.data };
  });

  app.addHook("preClose", async () => closing.abort());
  return app;
}

/** Starts the simulator on loopback; port 0 picks a free one. Returns its base URL. */
export async function startSimulator(port = 0, options: SimulatorOptions = {}): Promise<{ url: string; app: FastifyInstance }> {
  const app = buildSimulator(options);
  await app.listen({ host: "127.0.0.1", port });
  const address = app.server.address();
  if (!address || typeof address === "string") throw new Error("simulator did not bind a TCP port");
  return { url: `http://127.0.0.1:${address.port}`, app };
}
