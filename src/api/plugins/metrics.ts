import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import type { AnsweredRequest } from "../../observability/metrics.js";

interface MetricsOptions {
  /** Told of every answered request. */
  onAnswered: (answer: AnsweredRequest) => void;
}

/** Every answer, told to the metrics: its route (not its URL), status, time and whether a caller was known. */
const metricsPlugin: FastifyPluginCallback<MetricsOptions> = (app, { onAnswered }, done) => {
  // A callback hook, not an async one: under AsyncLocalStorage (the request id) each promise costs.
  app.addHook("onResponse", (request, reply, next) => {
    onAnswered({
      method: request.method,
      route: request.routeOptions.url ?? "unmatched",
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
      authenticated: request.caller !== null,
    });
    next();
  });
  done();
};

export const metrics = fp(metricsPlugin, { name: "metrics", fastify: "5.x", dependencies: ["auth"] });
