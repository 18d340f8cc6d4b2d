import type pino from "pino";
import { PROVIDER_NAMES, type Providers } from "../core/ports.js";
import { maskSecrets } from "../observability/log.js";
import { createGamesAdapter } from "./games.js";
import { createGatewayAdapter } from "./gateway.js";
import { createGiftcardsAdapter } from "./giftcards.js";
import { createGiftsAdapter } from "./gifts.js";
import { createHttpClient, type HttpClient, type UpstreamCall } from "./http.js";
import { createRatesAdapter } from "./rates.js";
import { createStoreAdapter } from "./store.js";

const ADAPTERS: { [N in keyof Providers]: (http: HttpClient | null) => Providers[N] } = {
  gateway: createGatewayAdapter,
  rates: createRatesAdapter,
  store: createStoreAdapter,
  games: createGamesAdapter,
  giftcards: createGiftcardsAdapter,
  gifts: createGiftsAdapter,
};

export interface ProvidersOptions {
  /** Each provider's base URL; a provider without one is not configured (its products answer 503). */
  urls: Partial<Record<keyof Providers, string>>;
  timeoutMs: number;
  log: pino.Logger;
  /** Told of every call (metrics). */
  onCall(call: UpstreamCall): void;
}

/** Every provider adapter over its own keep-alive pool; one log line per call, never its bodies. */
export function openProviders(options: ProvidersOptions) {
  const onCall = (call: UpstreamCall) => {
    options.onCall(call);
    options.log.info(
      {
        provider: call.provider,
        ...(call.requestId ? { reqId: call.requestId } : {}),
        method: call.method,
        path: maskSecrets(call.path),
        statusCode: call.statusCode,
        ...(call.error ? { error: maskSecrets(call.error) } : {}),
        ms: call.durationMs,
      },
      "provider call",
    );
  };
  const clients = PROVIDER_NAMES.map((name) => {
    const url = options.urls[name];
    return url ? createHttpClient(url, options.timeoutMs, { provider: name, onCall }) : null;
  });
  const providers = Object.fromEntries(PROVIDER_NAMES.map((name, i) => [name, ADAPTERS[name](clients[i])])) as unknown as Providers;
  return {
    providers,
    /** Waits for the calls under way, then closes the pools. */
    close: () => Promise.all(clients.map((client) => client?.close())),
    /** Cuts the calls under way (they end as "no answer"). */
    abort: () => Promise.all(clients.map((client) => client?.destroy())),
  };
}
