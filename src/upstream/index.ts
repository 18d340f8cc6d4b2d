import type pino from "pino";
import { PROVIDER_NAMES, type Providers, type StatusQuestion } from "../core/ports.js";
import type { ProductType } from "../core/model/products.js";
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
  /**
   * Orders still processing at a backend that takes no new orders, by product and backend: it is still opened for
   * theirs (asked about, never sent to); one this configuration cannot open is reported (`stranded`), naming them.
   */
  formerOrders?: Array<{ productType: ProductType; backend: string | null; ids: number[] }>;
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
  // A backend that took orders still open, but no new ones: opened to settle them.
  const former = options.formerOrders ?? [];
  const formerAt = (productType: ProductType, backend: string) => former.some((g) => g.productType === productType && g.backend === backend);
  if (formerAt("gift", "protocol")) replaced.delete("gifts");
  if (formerAt("giftcard", "protocol")) replaced.delete("giftcards");
  const clients = PROVIDER_NAMES.map((name) => {
    const url = options.urls[name];
    return url && !replaced.has(name) ? createHttpClient(url, options.timeoutMs, { provider: name, onCall }) : null;
  });
  const protocol = Object.fromEntries(PROVIDER_NAMES.map((name, i) => [name, ADAPTERS[name](clients[i])])) as unknown as Providers;
  const providers: Providers = { ...protocol };
  const pools: Array<{ close(): Promise<unknown>; destroy(): Promise<unknown> }> = clients.filter((client) => client !== null);
  const bounds = { timeoutMs: options.timeoutMs, onCall };
  const reloadly =
    (backends.giftcards === "reloadly" || formerAt("giftcard", "reloadly")) && options.reloadly
      ? createReloadlyAdapter({ ...options.reloadly, ...bounds })
      : null;
  if (reloadly) pools.push({ close: reloadly.close, destroy: reloadly.destroy });
  if (backends.giftcards === "reloadly") {
    if (!reloadly) throw new Error("GIFTCARDS_BACKEND=reloadly needs Reloadly's credentials");
    providers.giftcards = reloadly;
  }
  const usesTelegram = backends.gifts === "telegram" || backends.premium === "telegram" || former.some((g) => g.backend === "telegram");
  const telegram = usesTelegram && options.telegram ? createTelegramBackend({ ...options.telegram, ...bounds }) : null;
  if (telegram) pools.push(telegram);
  if (backends.gifts === "telegram" || backends.premium === "telegram") {
    if (!telegram) throw new Error("a telegram backend needs the bot's token");
    if (backends.gifts === "telegram") providers.gifts = telegram.gifts;
    if (backends.premium === "telegram") providers.gateway = premiumVia(providers.gateway, telegram.premium);
  }
  // Each former backend's status question, where this configuration can open it.
  const sources: Record<string, StatusQuestion | undefined> = {
    "premium protocol": protocol.gateway.configured ? protocol.gateway.status : undefined,
    "premium telegram": telegram?.premium.status,
    "gift protocol": protocol.gifts.configured ? protocol.gifts.status : undefined,
    "gift telegram": telegram?.gifts.status,
    "giftcard protocol": protocol.giftcards.configured ? protocol.giftcards.status : undefined,
    "giftcard reloadly": reloadly?.status,
  };
  const formerBackends: Partial<Record<ProductType, Record<string, StatusQuestion>>> = {};
  const stranded: string[] = [];
  for (const group of former) {
    const source = sources[`${group.productType} ${group.backend}`];
    if (source) formerBackends[group.productType] = { ...formerBackends[group.productType], [group.backend!]: source };
    else stranded.push(`${group.ids.length} ${group.productType} order(s) at the ${group.backend} backend (#${group.ids.join(", #")})`);
  }
  return {
    providers,
    formerBackends,
    /** What the service refuses to start over: orders still open at a backend this configuration cannot open. */
    stranded: stranded.length
      ? `orders still processing at a backend this configuration removes: ${stranded.join("; ")}. Restore that backend's settings until they have settled, then switch`
      : null,
    /** Links Star transactions to completed Telegram orders that have none yet (the reconciler's passes call it). */
    linkDeliveries: telegram ? () => telegram.linkDeliveries() : undefined,
    /** Waits for the calls under way, then closes the pools. */
    close: () => Promise.all(pools.map((pool) => pool.close())),
    /** Cuts the calls under way (they end as "no answer"). */
    abort: () => Promise.all(pools.map((pool) => pool.destroy())),
  };
}
