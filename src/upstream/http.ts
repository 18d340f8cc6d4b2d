import { createRequire } from "node:module";
import type { Pool } from "undici";
import type { z } from "zod";
import type { ProviderName } from "../core/ports.js";
import { currentRequestId } from "../observability/context.js";

export interface UpstreamResponse {
  status: number;
  body: unknown;
}

const require = createRequire(import.meta.url);

/**
 * undici, required at a pool's first call rather than imported: building the service's clients costs nothing, and
 * a process that calls no provider (most admin CLI commands) never loads it (a tenth of a command's start).
 */
export const loadUndici = (): typeof import("undici") => require("undici");

/**
 * A keep-alive pool to one origin, every call bounded by `timeoutMs` (connecting by CONNECT_TIMEOUT_MS at most),
 * opened at its first call (see loadUndici); closing one never opened does nothing.
 */
export function lazyPool(url: string, timeoutMs: number) {
  let opened: Pool | null = null;
  return {
    get: () =>
      (opened ??= new (loadUndici().Pool)(url, {
        connectTimeout: Math.min(timeoutMs, CONNECT_TIMEOUT_MS),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })),
    close: async () => opened?.close(),
    destroy: async () => opened?.destroy(),
  };
}

/** The request never reached the provider (refused, unresolvable): safe to treat as "not done". */
export class NotSentError extends Error {}
/** The request may have reached the provider but no answer came in time: the outcome is unknown. */
class NoAnswerError extends Error {}

/** Health probes answer fast or count as not ready; /v1/health must not hang on a stuck provider. */
export const READY_TIMEOUT_MS = 2_000;
/** Connecting takes at most this (or the call's whole bound, when shorter). */
export const CONNECT_TIMEOUT_MS = 5_000;

/** How much of an answer other than 2xx a call reports (`refusal`). */
const REFUSAL_CHARS = 120;

const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** One provider call as it went, for the log and metrics: never its bodies (gift card codes come back in them). */
export interface UpstreamCall {
  provider: ProviderName;
  method: string;
  /** Where it went: the provider's origin (preflight names it beside a failure). */
  origin: string;
  path: string;
  /** Null when no answer came (refused, timed out, cut off). */
  statusCode: number | null;
  /** Why no answer came; null when one did. */
  error: string | null;
  /** An answer other than 2xx: its first characters, for preflight to show what was seen (never logged). */
  refusal: string | null;
  durationMs: number;
  /** The request, bot update or background pass that made the call. */
  requestId: string | null;
}

export interface HttpClientOptions {
  provider: ProviderName;
  /** Told once per call, after it; must not throw (a throw is swallowed). */
  onCall?: (call: UpstreamCall) => void;
}

/**
 * One keep-alive pool per provider, every call bounded by `timeoutMs` (undici's defaults are 300 s). The id
 * of the work under way goes to the provider as `X-Request-Id`, so both sides' logs can be matched.
 */
export function createHttpClient(baseUrl: string, timeoutMs: number, options: HttpClientOptions) {
  const origin = new URL(baseUrl).origin;
  const pool = lazyPool(baseUrl, timeoutMs);

  function told(call: Omit<UpstreamCall, "provider" | "origin" | "durationMs" | "refusal"> & { refusal?: string }, started: number) {
    try {
      options.onCall?.({
        provider: options.provider,
        origin,
        ...call,
        refusal: call.refusal ?? null,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
      });
    } catch {
      // The log or a metric failing must not fail the call.
    }
  }

  async function call(
    method: "GET" | "POST",
    path: string,
    payload?: unknown,
    callTimeoutMs = timeoutMs,
    /** A provider's own headers (Reloadly's bearer token and media type); none by default. */
    extraHeaders: Record<string, string> = {},
  ): Promise<UpstreamResponse> {
    const started = performance.now();
    const requestId = currentRequestId();
    let statusCode: number | null = null;
    try {
      const response = await pool.get().request({
        method,
        path,
        headers: {
          ...extraHeaders,
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
          ...(requestId ? { "x-request-id": requestId } : {}),
        },
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal: AbortSignal.timeout(callTimeoutMs),
      });
      statusCode = response.statusCode;
      const text = await response.body.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { error: text.slice(0, 200) };
      }
      const refusal = statusCode >= 200 && statusCode < 300 ? undefined : text.replace(/\s+/g, " ").slice(0, REFUSAL_CHARS);
      told({ method, path, statusCode, error: null, requestId, refusal }, started);
      return { status: response.statusCode, body };
    } catch (error) {
      // An answer whose body was cut off counts as no answer, as the caller sees it.
      told({ method, path, statusCode: null, error: describe(error, statusCode), requestId }, started);
      throw failed(`${method} ${path}`, error);
    }
  }

  /** A GET of raw bytes (a file download), bounded and reported like `call`. */
  async function download(path: string, callTimeoutMs = timeoutMs): Promise<{ status: number; bytes: Buffer }> {
    const started = performance.now();
    const requestId = currentRequestId();
    let statusCode: number | null = null;
    try {
      const response = await pool.get().request({
        method: "GET",
        path,
        headers: requestId ? { "x-request-id": requestId } : {},
        signal: AbortSignal.timeout(callTimeoutMs),
      });
      statusCode = response.statusCode;
      const bytes = Buffer.from(await response.body.arrayBuffer());
      told({ method: "GET", path, statusCode, error: null, requestId }, started);
      return { status: response.statusCode, bytes };
    } catch (error) {
      told({ method: "GET", path, statusCode: null, error: describe(error, statusCode), requestId }, started);
      throw failed(`GET ${path}`, error);
    }
  }

  return {
    call,
    download,
    /** Parses a provider body with a zod schema; a body of the wrong shape is an unknown answer, never a guess. */
    parse<T>(schema: z.ZodType<T>, response: UpstreamResponse): T {
      const result = schema.safeParse(response.body);
      if (!result.success) throw new NoAnswerError(`unexpected provider answer (HTTP ${response.status})`);
      return result.data;
    },
    /** True when the provider's health path answers 200. */
    async ready(path: string): Promise<boolean> {
      try {
        return (await call("GET", path, undefined, Math.min(timeoutMs, READY_TIMEOUT_MS))).status === 200;
      } catch {
        return false;
      }
    },
    close: pool.close,
    /** Aborts the calls under way (a stop past its bound); they end as "no answer". */
    destroy: pool.destroy,
  };
}

/** What a call that failed throws: NotSentError when the request surely never reached the provider, else NoAnswerError. */
function failed(call: string, error: unknown): NotSentError | NoAnswerError {
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  if (error instanceof loadUndici().errors.ConnectTimeoutError || (code && NOT_SENT_CODES.has(code))) {
    return new NotSentError(`${call}: ${code ?? "connect timeout"}`, { cause: error });
  }
  return new NoAnswerError(`${call}: ${(error as Error).message}`, { cause: error });
}

function describe(error: unknown, statusCode: number | null): string {
  const err = error as { code?: string; name?: string; message?: string; cause?: { code?: string } };
  const what = err.name === "TimeoutError" || err.name === "AbortError" ? "timeout" : (err.code ?? err.cause?.code ?? err.message ?? "failed");
  return statusCode === null ? what : `${what} (after HTTP ${statusCode})`;
}

export type HttpClient = ReturnType<typeof createHttpClient>;
