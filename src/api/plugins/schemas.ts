import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { validatorCompiler } from "fastify-type-provider-zod";
import { checkedSerializerCompiler, fastSerializerCompiler } from "../serializers.js";

interface SchemasOptions {
  /** RESPONSE_CHECK: every answer checked by zod against its schema (tests); else written by fast-json-stringify. */
  checkAnswers?: boolean;
}

/** The routes' zod schemas validate what comes in and write what goes out (src/api/serializers.ts). */
const schemasPlugin: FastifyPluginCallback<SchemasOptions> = (app, { checkAnswers }, done) => {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(checkAnswers ? checkedSerializerCompiler : fastSerializerCompiler);
  done();
};

export const schemas = fp(schemasPlugin, { name: "schemas", fastify: "5.x" });
