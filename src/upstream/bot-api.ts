import { z } from "zod";
import { UpstreamError } from "../core/ports.js";
import type { ProviderName } from "../core/ports.js";
import { createHttpClient, type UpstreamCall, type UpstreamResponse } from "./http.js";

// One caller of the Telegram Bot API for the adapters that use the bot's token (gifts and Premium in telegram.ts,
// Stars payments in telegram-payments.ts): JSON POSTs, the answer envelope read (docs/providers/telegram-bot-api.md
// T1 "Making requests"), and the token kept out of every error, log line and metric.

const errorSchema = z.object({
  ok: z.literal(false),
  error_code: z.number().int(),
  description: z.string(),
  parameters: z.object({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
});
const okOf = <T extends z.ZodType>(result: T) => z.object({ ok: z.literal(true), result });

export type Answer<T> = { ok: true; result: T } | { ok: false; status: number; code: number; description: string };

/** An answer that is no Bot API envelope (a proxy's page, a cut body): its effect is unknown. */
class GarbledAnswer extends Error {}

/** A base URL as undici's pool (the origin) and the path prefix every call carries. */
function split(url: string) {
  const parsed = new URL(url);
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, "") };
}

export interface BotApiOptions {
  token: string;
  /** https://api.telegram.org, or the emulator's URL. */
  apiRoot: string;
  timeoutMs: number;
  provider: ProviderName;
  onCall?: (call: UpstreamCall) => void;
}

export function createBotApi(options: BotApiOptions) {
  const { token } = options;
  const root = split(options.apiRoot);
  // The token is in every path: it never reaches the log or a metric label.
  const redact = (path: string) => path.split(token).join("<token>");
  const http = createHttpClient(root.origin, options.timeoutMs, {
    provider: options.provider,
    onCall: options.onCall && ((call) => options.onCall!({ ...call, path: redact(call.path) })),
  });

  /** A failed call's error, its message and stack cleared of the token its path carried (orders, logs, the CLI show them). */
  const hidden = (error: unknown) => {
    if (error instanceof Error) {
      error.message = redact(error.message);
      if (error.stack) error.stack = redact(error.stack);
    }
    return error;
  };

  /** One Bot API call, JSON POST; throws NotSentError or a no-answer error from http, or GarbledAnswer. */
  async function api<T>(method: string, params: object, result: z.ZodType<T>, timeoutMs?: number): Promise<Answer<T>> {
    const response: UpstreamResponse = await http.call("POST", `${root.prefix}/bot${token}/${method}`, params, timeoutMs).catch((error: unknown) => {
      throw hidden(error);
    });
    const ok = okOf(result).safeParse(response.body);
    if (ok.success && response.status === 200) return { ok: true, result: ok.data.result };
    const refused = errorSchema.safeParse(response.body);
    if (refused.success) return { ok: false, status: response.status, code: refused.data.error_code, description: refused.data.description };
    throw new GarbledAnswer(`${method}: unexpected Bot API answer (HTTP ${response.status})`);
  }

  /** A read that must succeed: its result, or UpstreamError. */
  async function read<T>(method: string, params: object, result: z.ZodType<T>, timeoutMs?: number): Promise<T> {
    let answer: Answer<T>;
    try {
      answer = await api(method, params, result, timeoutMs);
    } catch (error) {
      throw new UpstreamError(`${method}: ${(error as Error).message}`, error);
    }
    if (!answer.ok) throw new UpstreamError(`${method}: ${answer.description}`);
    return answer.result;
  }

  return { api, read, hidden, http, root };
}
