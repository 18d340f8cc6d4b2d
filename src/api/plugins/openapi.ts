import swagger from "@fastify/swagger";
import type { FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import { API_VERSION } from "../../wire/account.js";
import { finishDocument } from "../openapi.js";

/**
 * The OpenAPI document, generated from the routes' zod schemas as they are added (so register this before them)
 * and finished by src/api/openapi.ts; served at GET /openapi.json, public and never rate-limited.
 */
const openApiPlugin: FastifyPluginAsync = async (app) => {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Partner Purchase API", version: API_VERSION },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          bearer: { type: "http", scheme: "bearer" },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (document) =>
      finishDocument(jsonSchemaTransformObject(document) as Parameters<typeof finishDocument>[0]) as ReturnType<typeof jsonSchemaTransformObject>,
  });
  app.get("/openapi.json", { config: { public: true, rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
};

export const openApi = fp(openApiPlugin, { name: "openapi", fastify: "5.x" });
