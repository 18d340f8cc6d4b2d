import { AsyncLocalStorage } from "node:async_hooks";
import type pino from "pino";
import type { BotApi, ProductBackends, ProductName, ProtocolBackend, ReloadlyBackend } from "../config/deployment.js";
import { PRODUCTS, type ProductType } from "../core/model/products.js";
import { type Funds, PORT_NAMES, type Ports, type ProviderName, type StatusQuestion } from "../core/ports.js";
import { maskSecrets } from "../observability/log.js";
import { createGamesAdapter } from "./games.js";
import { createGatewayAdapter } from "./gateway.js";
import { createGiftcardsAdapter } from "./giftcards.js";
import { createGiftsAdapter } from "./gifts.js";
import { createHttpClient, type HttpClient, type UpstreamCall } from "./http.js";
import { createRatesAdapter } from "./rates.js";
import { createReloadlyAdapter } from "./reloadly.js";
import { createStoreAdapter } from "./store.js";
import { createTelegramBackend, type TelegramBackendOptions } from "./telegram.js";

/** The protocol provider (its pool, its URL variable, its calls' metrics) that serves each product over the protocol. */
export const PROTOCOL_PROVIDER: Record<ProductName | "rates", ProviderName> = {
  stars: "gateway",
  premium: "gateway",
  store: "store",
  games: "games",
  giftcards: "giftcards",
  gifts: "gifts",
  rates: "rates",
};

/** The product type an order records (`game`, `gift`, …) for each product's port. */
const ORDER_TYPE = Object.fromEntries(PRODUCTS.map((product) => [product.port, product.type])) as Record<ProductName, ProductType>;

/** A balance a backend pays deliveries from, read for the alerts and preflight: the bot's Stars, Reloadly's USD. */
export interface FundsSource {
  /** The alert's name (`funds:<source>`): one per balance, however many products it pays for. */
  source: "stars" | "reloadly";
  unit: Funds["unit"];
  read(): Promise<Funds>;
}

export interface UpstreamOptions {
  products: ProductBackends;
  rates: ProtocolBackend;
  /** Backends no product sends new orders to, opened only for the orders they took (config's `retired`). */
  retired: { protocol: Partial<Record<ProductName, string | null>>; telegram: BotApi | null; reloadly: ReloadlyBackend | null };
  /**
   * Orders still processing, by product type and the backend that took them: a backend that takes no new orders is
   * still opened for theirs (asked about, never sent to); one this configuration cannot open is reported (`stranded`).
   */
  formerOrders: Array<{ productType: ProductType; backend: string | null; ids: number[] }>;
  /** The bot's contacts and the orders it delivered: what a Telegram backend addresses users and matches transactions by. */
  telegram: Pick<TelegramBackendOptions, "find" | "correct" | "book">;
  timeoutMs: number;
  log: pino.Logger;
  /** Told of every call (metrics). */
  onCall(call: UpstreamCall): void;
}

/**
 * One port per product, each built from its backend's variant in the deployment's map, every one over its own
 * keep-alive pool; one log line per call, never its bodies. Two products on one provider (stars and Premium on the
 * gateway) share its pool and its adapter. A health probe's calls are logged at debug (every few seconds, on every
 * backend); a backend whose probe changes its answer is logged once (see `watchProbes`).
 */
export function openUpstream(options: UpstreamOptions) {
  const { products, formerOrders } = options;
  const probing = new AsyncLocalStorage<Probe>();
  const onCall = (call: UpstreamCall) => {
    options.onCall(call);
    const probe = probing.getStore();
    if (probe) probe.last = call;
    options.log[probe ? "debug" : "info"](
      {
        provider: call.provider,
        ...(call.requestId ? { reqId: call.requestId } : {}),
        method: call.method,
        ...callFields(call),
        ms: call.durationMs,
      },
      "provider call",
    );
  };
  const bounds = { timeoutMs: options.timeoutMs, onCall };
  const pools: Array<{ close(): Promise<unknown>; destroy(): Promise<unknown> }> = [];
  const formerAt = (product: ProductName, backend: string) =>
    formerOrders.some((group) => group.productType === ORDER_TYPE[product] && group.backend === backend);

  // The protocol's pools, one per provider, opened only for a product it serves now or still settles.
  const clients = new Map<ProviderName, HttpClient | null>();
  const protocolClient = (product: ProductName | "rates", url: string | null): HttpClient | null => {
    const provider = PROTOCOL_PROVIDER[product];
    if (!clients.has(provider)) {
      const client = url ? createHttpClient(url, options.timeoutMs, { provider, onCall }) : null;
      if (client) pools.push(client);
      clients.set(provider, client);
    }
    return clients.get(provider)!;
  };
  const protocolUrl = (product: ProductName): string | null => {
    const backend = products[product];
    if (backend.kind === "protocol") return backend.url;
    // A product moved off the protocol: its provider is opened only to settle what it took before.
    return formerAt(product, "protocol") ? (options.retired.protocol[product] ?? null) : null;
  };

  // The bot's Bot API, for the products it delivers now or still settles.
  const bot =
    (products.premium.kind === "telegram" && products.premium.bot) ||
    (products.gifts.kind === "telegram" && products.gifts.bot) ||
    (formerOrders.some((group) => group.backend === "telegram") ? options.retired.telegram : null) ||
    null;
  const telegram = bot ? createTelegramBackend({ token: bot.token, apiRoot: bot.apiRoot, ...options.telegram, ...bounds }) : null;
  if (telegram) pools.push(telegram);

  // Reloadly's account, for gift cards now or still settling.
  const reloadlyBackend =
    products.giftcards.kind === "reloadly" ? products.giftcards : formerAt("giftcards", "reloadly") ? options.retired.reloadly : null;
  if (reloadlyBackend && !reloadlyBackend.credentials)
    throw new Error("GIFTCARDS_BACKEND=reloadly needs Reloadly's credentials (RELOADLY_CLIENT_ID, RELOADLY_CLIENT_SECRET)");
  const reloadly = reloadlyBackend?.credentials
    ? createReloadlyAdapter({
        environment: reloadlyBackend.environment,
        ...reloadlyBackend.credentials,
        ...(reloadlyBackend.authUrl ? { authUrl: reloadlyBackend.authUrl } : {}),
        ...(reloadlyBackend.giftcardsUrl ? { giftcardsUrl: reloadlyBackend.giftcardsUrl } : {}),
        senderName: reloadlyBackend.senderName,
        ...bounds,
      })
    : null;
  if (reloadly) pools.push({ close: reloadly.close, destroy: reloadly.destroy });

  const protocol = <P extends object>(port: P) => ({ ...port, backend: "protocol" as const });
  const gateway = protocol(createGatewayAdapter(protocolClient("stars", protocolUrl("stars"))));
  const protocolGifts = protocol(createGiftsAdapter(protocolClient("gifts", protocolUrl("gifts"))));
  const protocolGiftcards = protocol(createGiftcardsAdapter(protocolClient("giftcards", protocolUrl("giftcards"))));
  const ports: Ports = {
    stars: gateway,
    premium: products.premium.kind === "telegram" ? { ...telegram!.premium, backend: "telegram" } : gateway,
    store: protocol(createStoreAdapter(protocolClient("store", protocolUrl("store")))),
    games: protocol(createGamesAdapter(protocolClient("games", protocolUrl("games")))),
    giftcards: products.giftcards.kind === "reloadly" ? { ...reloadly!, backend: "reloadly" } : protocolGiftcards,
    gifts: products.gifts.kind === "telegram" ? { ...telegram!.gifts, backend: "telegram" } : protocolGifts,
    rates: protocol(createRatesAdapter(protocolClient("rates", options.rates.url))),
  };
  watchProbes(ports, probing, options.log);

  // Each former backend's status question, where this configuration can open it.
  const sources: Record<string, StatusQuestion | undefined> = {
    "premium protocol": gateway.configured ? gateway.status : undefined,
    "premium telegram": telegram?.premium.status,
    "gift protocol": protocolGifts.configured ? protocolGifts.status : undefined,
    "gift telegram": telegram?.gifts.status,
    "giftcard protocol": protocolGiftcards.configured ? protocolGiftcards.status : undefined,
    "giftcard reloadly": reloadly?.status,
  };
  const formerBackends: Partial<Record<ProductType, Record<string, StatusQuestion>>> = {};
  const stranded: string[] = [];
  for (const group of formerOrders) {
    const source = sources[`${group.productType} ${group.backend}`];
    if (source) formerBackends[group.productType] = { ...formerBackends[group.productType], [group.backend!]: source };
    else stranded.push(`${group.ids.length} ${group.productType} order(s) at the ${group.backend} backend (#${group.ids.join(", #")})`);
  }

  // The balances deliveries are paid from: the bot's Stars (one balance, whichever products it delivers), Reloadly's.
  const funds: FundsSource[] = [
    ...(telegram && (products.premium.kind === "telegram" || products.gifts.kind === "telegram")
      ? [{ source: "stars" as const, unit: "stars" as const, read: telegram.premium.funds }]
      : []),
    ...(products.giftcards.kind === "reloadly" && reloadly ? [{ source: "reloadly" as const, unit: "USD" as const, read: reloadly.funds }] : []),
  ];

  return {
    ports,
    formerBackends,
    /** What the service refuses to start over: orders still open at a backend this configuration cannot open. */
    stranded: stranded.length
      ? `orders still processing at a backend this configuration removes: ${stranded.join("; ")}. Restore that backend's settings until they have settled, then switch`
      : null,
    funds,
    /** Links Star transactions to completed Telegram orders that have none yet (the reconciler's passes call it). */
    linkDeliveries: telegram ? () => telegram.linkDeliveries() : undefined,
    /** Waits for the calls under way, then closes the pools. */
    close: () => Promise.all(pools.map((pool) => pool.close())),
    /** Cuts the calls under way (they end as "no answer"). */
    abort: () => Promise.all(pools.map((pool) => pool.destroy())),
  };
}

/** A probe under way: its last call, for the line that tells a backend's change of state. */
type Probe = { last?: UpstreamCall };

/** What a call's log lines say of where it went and what came back (secrets masked). */
function callFields(call: UpstreamCall) {
  return {
    path: maskSecrets(call.path),
    statusCode: call.statusCode,
    ...(call.error ? { error: maskSecrets(call.error) } : {}),
  };
}

/**
 * Each configured port's health check, wrapped so its calls are known as a probe's (logged at debug) and the
 * backend's state is logged when it changes: down at warn (the first probe's included), up again at info. Ports
 * sharing one check (stars and Premium on one gateway) share its wrapper, so a round still asks it once.
 */
function watchProbes(ports: Ports, probing: AsyncLocalStorage<Probe>, log: pino.Logger): void {
  type Watched = { configured: boolean; backend: string; ready(): Promise<boolean> };
  const configured = PORT_NAMES.filter((name) => ports[name].configured);
  // The checks as built, before any is wrapped (two names may share one port object).
  const checks = new Map(configured.map((name) => [name, ports[name].ready] as const));
  const wrapped = new Map<() => Promise<boolean>, () => Promise<boolean>>();
  for (const name of configured) {
    const port = ports[name] as Watched;
    const check = checks.get(name)!;
    if (!wrapped.has(check)) {
      const products = configured.filter((other) => checks.get(other) === check);
      let up: boolean | null = null;
      wrapped.set(check, async () => {
        const probe: Probe = {};
        const ready = await probing.run(probe, check);
        if (ready !== up) {
          const fields = { products, backend: port.backend, ...(probe.last ? { provider: probe.last.provider, ...callFields(probe.last) } : {}) };
          if (!ready) log.warn(fields, "backend down: its health probe failed");
          else if (up === false) log.info(fields, "backend up again: its health probe answers");
          up = ready;
        }
        return ready;
      });
    }
    port.ready = wrapped.get(check)!;
  }
}
