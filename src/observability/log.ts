import type { FastifyBaseLogger } from "fastify";
import pino from "pino";
import { currentRequestId } from "./context.js";
import { transientFields } from "./transient.js";

/**
 * Secret-shaped text masked wherever the log writes free text (URLs, error messages and stacks): API keys
 * (`sj_…`, also percent-encoded), webhook secrets (`whsec_…`) and Bot API tokens as they appear in Bot API
 * URLs (`…/bot<id>:<secret>/method`, which a network error's message can carry).
 */
const SECRETS: Array<[RegExp, string]> = [
  [/sj(?:_|%5f)[A-Za-z0-9_%-]+/gi, "sj_[redacted]"],
  [/whsec(?:_|%5f)[A-Za-z0-9_%-]+/gi, "whsec_[redacted]"],
  [/bot\d+(?::|%3a)[A-Za-z0-9_%-]+/gi, "bot[redacted]"],
];

export function maskSecrets(text: string): string {
  return SECRETS.reduce((masked, [pattern, replacement]) => masked.replace(pattern, replacement), text);
}

/**
 * Fields of an error that hold what was being sent, never logged: grammY's GrammyError keeps the Bot API call's
 * `payload` (a notice's text can hold gift card codes).
 */
const UNLOGGED = new Set(["payload"]);

/** Every string in a serialized value masked, and the unlogged fields left out (serializers make new objects). */
function maskDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return maskSecrets(value);
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, depth + 1));
  return Object.fromEntries(Object.entries(value).flatMap(([key, item]) => (UNLOGGED.has(key) ? [] : [[key, maskDeep(item, depth + 1)]])));
}

/**
 * pino's error serializer (message, stack, causes, nested errors), with secret-shaped text masked throughout; a
 * transient error (src/observability/transient.ts) as its message and cause alone, without stacks.
 */
function errSerializer(error: Error): unknown {
  return maskDeep(transientFields(error) ?? pino.stdSerializers.err(error));
}

/** Loggers Fastify made for one request: they carry the request's id as a binding already. */
const perRequest = new WeakSet<object>();

/** Fastify's `childLoggerFactory`: the default child (bound to `reqId`), remembered as such. */
export function requestLogger(logger: FastifyBaseLogger, bindings: pino.Bindings, options: pino.ChildLoggerOptions): FastifyBaseLogger {
  const child = logger.child(bindings, options);
  perRequest.add(child);
  return child;
}

/**
 * pino's `mixin`: every line logged while a request, bot update or background pass is under way carries
 * its id as `reqId` (a request's own logger has it bound already: not twice).
 */
function requestIdMixin(_object: object, _level: number, logger: object): object {
  const id = currentRequestId();
  return id && !perRequest.has(logger) ? { reqId: id } : {};
}

/**
 * Masks secret-shaped text in an error's own message and stack and in those of the errors it wraps, in place:
 * for errors printed by code that does not use this log (grammY's runner prints failed getUpdates calls,
 * whose network error names the Bot API URL with the token in it).
 */
export function maskErrorInPlace<E>(error: E, depth = 0): E {
  if (depth > 4 || !(error instanceof Error)) return error;
  error.message = maskSecrets(error.message);
  if (error.stack) error.stack = maskSecrets(error.stack);
  const nested = error as Error & { error?: unknown; cause?: unknown };
  maskErrorInPlace(nested.error, depth + 1);
  maskErrorInPlace(nested.cause, depth + 1);
  return error;
}

/** Paths of request data that must never reach a log line. */
const REDACTED_PATHS = ['req.headers["x-api-key"]', "req.headers.authorization", "key", "apiKey"];

/**
 * A key (or a webhook secret, or a bot token) pasted into a URL by mistake must not reach the log either,
 * percent-encoded or not: the URL is decoded first (when it decodes), then every secret-shaped token is masked.
 */
function maskKeys(text: string): string {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // Not decodable as a whole: the encoded underscore form is masked too.
  }
  return maskSecrets(decoded);
}

/** Request log serializer: what Fastify logs by default, with key-shaped tokens masked in the URL. */
function requestSerializer(request: { method: string; url: string; host?: string; ip?: string }) {
  return { method: request.method, url: maskKeys(request.url), host: request.host, remoteAddress: request.ip };
}

/** The service's one log: JSON lines, secrets redacted and masked, each line carrying the id of the work it belongs to. */
export function createLog(level: pino.LevelWithSilent, destination?: pino.DestinationStream): pino.Logger {
  return pino(
    {
      level,
      redact: REDACTED_PATHS,
      serializers: { req: requestSerializer, err: errSerializer },
      // Lines logged during a request, bot update or background pass carry its id (src/observability).
      mixin: requestIdMixin,
    },
    // Written asynchronously: lines logged while a write is under way go out together in the next one.
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
