import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { z } from "zod";
import { createContext, FAULTS, PROVIDERS } from "./context.js";
import { cryptoPayRoutes } from "./cryptopay.js";
import { gameRoutes } from "./games.js";
import { gatewayRoutes } from "./gateway.js";
import { giftcardRoutes } from "./giftcards.js";
import { giftRoutes } from "./gifts.js";
import { reloadlyRoutes } from "./reloadly/index.js";
import { storeRoutes } from "./store.js";

/**
 * A stand-in for the paid upstream providers, speaking HTTP as they do. Its test inputs are listed in
 * docs/api-guide.md; POST /control/faults sets faults per provider for the reliability tests, GET /control/requests counts
 * the requests each route has had.
 */
export interface SimulatorOptions {
  /** Multiplies every simulated delay; tests use a small one. */
  timeScale?: number;
  tonUsd?: number;
  logger?: boolean;
  /** Multiplies every gift card's starting stock (the benchmark orders far more cards than a test). */
  stockScale?: number;
  /** Where the simulated Crypto Pay app posts its webhooks (also settable through its control endpoint). */
  cryptoPayWebhookUrl?: string;
}

const faultSchema = z.object({ provider: z.enum(PROVIDERS), mode: z.enum(FAULTS) });

function buildSimulator(options: SimulatorOptions = {}): FastifyInstance {
  const app = Fastify({ logger: options.logger ?? false });
  const { context: sim, setFault, faults, close } = createContext(options.timeScale ?? 1);
  app.addHook("preClose", async () => close());

  // Requests by route since the start: what tests count the service's calls with (health probes, say).
  const requests = new Map<string, number>();
  app.addHook("onRequest", async (request) => {
    const route = `${request.method} ${request.routeOptions.url ?? request.url}`;
    requests.set(route, (requests.get(route) ?? 0) + 1);
  });
  app.get("/control/requests", async () => ({ requests: Object.fromEntries(requests) }));

  app.get("/health", async () => ({ ok: true, faults: Object.fromEntries(faults) }));
  app.post("/control/faults", async (request, reply) => {
    const parsed = faultSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    setFault(parsed.data.provider, parsed.data.mode);
    return { ok: true, ...parsed.data };
  });

  app.get("/rates/health", async (_request, reply) => ((await sim.blocked("rates", reply)) ? reply : { ok: true }));
  app.get("/rates/ton", async (_request, reply) => ((await sim.blocked("rates", reply)) ? reply : { ton_usd: options.tonUsd ?? 5.4 }));

  gatewayRoutes(app, sim);
  storeRoutes(app, sim);
  gameRoutes(app, sim);
  giftcardRoutes(app, sim, options.stockScale ?? 1);
  giftRoutes(app, sim);
  cryptoPayRoutes(app, sim, { webhookUrl: options.cryptoPayWebhookUrl });
  reloadlyRoutes(app, sim);
  return app;
}

/** Starts the simulator on loopback; port 0 picks a free one. Returns its base URL. */
export async function startSimulator(port = 0, options: SimulatorOptions = {}): Promise<{ url: string; app: FastifyInstance }> {
  const app = buildSimulator(options);
  await app.listen({ host: "127.0.0.1", port });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app };
}
