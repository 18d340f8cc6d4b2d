import { Pool, errors } from "undici";
import type { z } from "zod";

export interface UpstreamResponse {
  status: number;
  body: unknown;
}

/** The request never reached the provider (refused, unresolvable): safe to treat as "not done". */
export class NotSentError extends Error {}
/** The request may have reached the provider but no answer came in time: the outcome is unknown. */
export class NoAnswerError extends Error {}

/** Health probes answer fast or count as not ready; /v1/health must not hang on a stuck provider. */
const READY_TIMEOUT_MS = 2_000;

const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** One keep-alive pool per provider, every call bounded by `timeoutMs` (undici's defaults are 300 s). */
export function createHttpClient(baseUrl: string, timeoutMs: number) {
  const pool = new Pool(baseUrl, {
    connectTimeout: Math.min(timeoutMs, 5_000),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });

  async function call(method: "GET" | "POST", path: string, payload?: unknown, callTimeoutMs = timeoutMs): Promise<UpstreamResponse> {
    try {
      const response = await pool.request({
        method,
        path,
        headers: payload === undefined ? {} : { "content-type": "application/json" },
        body: payload === undefined ? undefined : JSON.stringify(payload),
        signal: AbortSignal.timeout(callTimeoutMs),
      });
      const text = await response.body.text();
      let body: unknown = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = { error: text.slice(0, 200) };
      }
      return { status: response.statusCode, body };
    } catch (error) {
      const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
      if (error instanceof errors.ConnectTimeoutError || (code && NOT_SENT_CODES.has(code))) {
        throw new NotSentError(`${method} ${path}: ${code ?? "connect timeout"}`, { cause: error });
      }
      throw new NoAnswerError(`${method} ${path}: ${(error as Error).message}`, { cause: error });
    }
  }

  return {
    call,
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
    close: () => pool.close(),
    /** Aborts the calls under way (a stop past its bound); they end as "no answer". */
    destroy: () => pool.destroy(),
  };
}

export type HttpClient = ReturnType<typeof createHttpClient>;
