import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";

/**
 * Bodies are plain JSON: Fastify's default text/plain parser would let a plain-text body through to validation,
 * and a compressed body is an unsupported media type (415), not "invalid JSON".
 */
const encodingPlugin: FastifyPluginCallback = (app, _options, done) => {
  app.removeContentTypeParser("text/plain");
  app.addHook("preParsing", (request, _reply, payload, next) => {
    const encoding = request.headers["content-encoding"];
    if (encoding && encoding.trim().toLowerCase() !== "identity") {
      return next(Object.assign(new Error(`Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`), { statusCode: 415 }));
    }
    next(null, payload);
  });
  done();
};

export const encoding = fp(encodingPlugin, { name: "encoding", fastify: "5.x" });
