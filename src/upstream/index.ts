import type pino from "pino";
import { PROVIDER_NAMES, type Providers } from "../core/ports.js";
import { maskSecrets } from "../observability/log.js";
import { createGamesAdapter } from "./games.js";
import { createGatewayAdapter } from "./gateway.js";
import { createGiftcardsAdapter } from "./giftcards.js";
import { createGiftsAdapter } from "./gifts.js";
import { createHttpClient, type HttpClient, type UpstreamCall } from "./http.js";
import { createRatesAdapter } from "./rates.js";
import { type Backends, premiumVia } from "./backends.js";
import { createReloadlyAdapter, type ReloadlyOptions } from "./reloadly.js";
import { createTelegramBackend, type TelegramBackendOptions } from "./telegram.js";
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
  /** What delivers Premium, gifts and gift cards; the protocol's providers by default. */
  backends?: Backends;
  /** Reloadly's account, for `backends.giftcards: "reloadly"`. */
  reloadly?: Omit<ReloadlyOptions, "timeoutMs" | "onCall">;
  /** The bot's Bot API, for a `telegram` backend: its token and server, and the users it knows. */
  telegram?: Omit<TelegramBackendOptions, "timeoutMs" | "onCall">;
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
  const backends = options.backends ?? { premium: "protocol", gifts: "protocol", giftcards: "protocol" };
  // A provider another backend replaces gets no pool: nothing simulated or stale is ever called beside it.
  const replaced = new Set<keyof Providers>([
    ...(backends.gifts === "protocol" ? [] : (["gifts"] as const)),
    ...(backends.giftcards === "protocol" ? [] : (["giftcards"] as const)),
  ]);
  const clients = PROVIDER_NAMES.map((name) => {
    const url = options.urls[name];
    return url && !replaced.has(name) ? createHttpClient(url, options.timeoutMs, { provider: name, onCall }) : null;
  });
  const providers = Object.fromEntries(PROVIDER_NAMES.map((name, i) => [name, ADAPTERS[name](clients[i])])) as unknown as Providers;
  const pools: Array<{ close(): Promise<unknown>; destroy(): Promise<unknown> }> = clients.filter((client) => client !== null);
  const bounds = { timeoutMs: options.timeoutMs, onCall };
  if (backends.giftcards === "reloadly") {
    if (!options.reloadly) throw new Error("GIFTCARDS_BACKEND=reloadly needs Reloadly's credentials");
    const reloadly = createReloadlyAdapter({ ...options.reloadly, ...bounds });
    providers.giftcards = reloadly;
    pools.push({ close: reloadly.close, destroy: reloadly.destroy });
  }
  if (backends.gifts === "telegram" || backends.premium === "telegram") {
    if (!options.telegram) throw new Error("a telegram backend needs the bot's token");
    const telegram = createTelegramBackend({ ...options.telegram, ...bounds });
    if (backends.gifts === "telegram") providers.gifts = telegram.gifts;
    if (backends.premium === "telegram") providers.gateway = premiumVia(providers.gateway, telegram.premium);
    pools.push(telegram);
  }
  return {
    providers,
    /** Waits for the calls under way, then closes the pools. */
    close: () => Promise.all(pools.map((pool) => pool.close())),
    /** Cuts the calls under way (they end as "no answer"). */
    abort: () => Promise.all(pools.map((pool) => pool.destroy())),
  };
}
