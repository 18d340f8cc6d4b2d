import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { type Delivery, healthResponse, healthView, livenessResponse, readinessResponse, readinessView } from "../../wire/account.js";

interface ProbeOptions {
  core: Core;
  delivery: Delivery;
  /** True from the moment the service begins to stop: readiness says so before the listener closes. */
  stopping?: () => boolean;
}

/** Liveness, readiness and the contract's health: public (no key) and never rate-limited. */
export const probeRoutes: FastifyPluginAsyncZod<ProbeOptions> = async (app, { core, delivery, stopping = () => false }) => {
  // For a load balancer and a process supervisor (docs/operations.md, "Database faults"): no key, no rate limit, nothing probed per
  // request (readiness answers from this instance's last database check, jobs/health-probe.ts).
  app.get(
    "/livez",
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: "Liveness: the process answers (no key)",
        description: "200 while the process's event loop runs. A supervisor restarts the process when this fails; it never depends on the database.",
        operationId: "getLiveness",
        tags: ["Service"],
        security: [],
        response: { 200: livenessResponse },
      },
    },
    async () => ({ alive: true as const }),
  );

  app.get(
    "/readyz",
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: "Readiness: whether this instance should get traffic (no key)",
        description:
          "200 while the database answers this instance's checks in time and the instance is not stopping; else 503 with the reason. A load balancer sends traffic only to instances answering 200.",
        operationId: "getReadiness",
        tags: ["Service"],
        security: [],
        response: { 200: readinessResponse, 503: readinessResponse },
      },
    },
    async (_request, reply) => {
      const answer = readinessView((await core.health.current()).databaseReady, stopping());
      return reply.code(answer.ready ? 200 : 503).send(answer);
    },
  );

  app.get(
    "/v1/health",
    {
      // Always 200 (the contract lists nothing else): no key, and no share in any rate-limit counter. Answered
      // from the last round of probes (jobs/health-probe.ts), so a flood of requests probes nothing.
      config: { public: true, keyOptional: true, rateLimit: false },
      schema: {
        summary: "Service and provider readiness (no key)",
        description:
          "No key needed. Readiness means the provider answers, not that its balance covers a sale (a purchase checks that before the charge). With a valid key the body also names the suppliers: `delivery_provider` as configured, `gift_ready` and `backends`.",
        operationId: "getHealth",
        tags: ["Service"],
        security: [],
        response: { 200: healthResponse },
      },
    },
    async (request) => healthView(await core.health.current(), delivery, request.caller !== null),
  );
};
