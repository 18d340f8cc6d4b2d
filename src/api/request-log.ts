import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

/**
 * One log line per request, when it is answered, with its status and time (Fastify's default is two lines:
 * received and answered). The request's URL goes through the logger's `req` serializer, which masks keys.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { req: request, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.error({ ...line, err: error }, "request errored");
    else reply.log.info(line, "request completed");
  }
}
