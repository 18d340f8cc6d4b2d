import { randomUUID } from "node:crypto";
import type { components, operations } from "./api-types.js";
import { IdempotencyKeyReuseError, PartnerApiError, PartnerConnectionError, PartnerTimeoutError, PurchaseFailedError } from "./errors.js";

type Schemas = components["schemas"];
type JsonOf<C> = C extends { content: { "application/json": infer B } } ? B : never;
type Success<O> = O extends { responses: infer R } ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonOf<R[S]> : never }[keyof R] : never;
type BodyOf<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The document types numeric query parameters as strings (they arrive as text): a number is taken too. */
type Loose<Q> = { [K in keyof Q]?: string extends Q[K] ? string | number : Q[K] };

/** The answer of an operation of the OpenAPI document (its 2xx JSON body), by its operationId. */
export type Answer<Id extends keyof operations> = Success<operations[Id]>;
/** The JSON body an operation takes, by its operationId. */
export type RequestBody<Id extends keyof operations> = BodyOf<operations[Id]>;
/** The query an operation takes, by its operationId. */
export type Query<Id extends keyof operations> = Loose<QueryOf<operations[Id]>>;

/** What every purchase takes beside its body: the idempotency key (made by the client when not given). */
type Purchase<Id extends keyof operations> = Omit<RequestBody<Id>, "idempotency_key"> & { idempotency_key?: string };

export type StarsPurchase = Purchase<"buyStars">;
export type PremiumPurchase = Purchase<"buyPremium">;
export type StorePurchase = Purchase<"topUpStore">;
export type GamePurchase = Purchase<"orderGameCredit"> & { game_code: string };
export type GiftcardPurchase = Purchase<"orderGiftcards"> & { category_id: string };
export type GiftPurchase = Purchase<"sendGift">;
export type QuoteRequest = RequestBody<"createQuote">;
export type BindingQuote = Schemas["BindingQuote"];
export type PurchaseResponse = Schemas["PurchaseResponse"];
export type StoreOrder = Schemas["StoreOrderResponse"];
export type GameOrder = Schemas["GameOrderResponse"];
export type GiftcardOrder = Schemas["GiftcardOrderResponse"];
export type GiftOrder = Schemas["GiftOrder"];
export type OrderSummary = Schemas["OrderSummary"];
export type LedgerEntry = Schemas["LedgerEntry"];
export type LedgerStatement = Schemas["LedgerStatement"];
export type Topup = Schemas["Topup"];
export type Webhook = Schemas["Webhook"];
export type WebhookAttempt = Schemas["WebhookAttempt"];
/** Any order a purchase answers. */
export type Order = PurchaseResponse | StoreOrder | GameOrder | GiftcardOrder | GiftOrder;

export interface ClientOptions {
  /** Where the service answers, e.g. `https://api.example.com` (no trailing path); `http://` only on loopback. */
  baseUrl: string;
  /** The key (`sj_…`), sent as `X-API-Key`. */
  apiKey: string;
  /** A fetch of your own (a proxy, a test); Node's global fetch by default. */
  fetch?: typeof globalThis.fetch;
  /** Retries after a network error, a timeout, a 5xx (not a purchase's 502) or a 429 (default 3): each with the same idempotency key. */
  retries?: number;
  /** One attempt's time limit in milliseconds (default 30 000); a timed-out attempt counts as a network error. */
  timeoutMs?: number;
  /** The first backoff in milliseconds (default 250), doubled per retry up to 8 s, with full jitter. */
  backoffMs?: number;
  /** The longest `Retry-After` the client waits out, in seconds (default 60); a longer one throws the 429. */
  maxRetryAfterSeconds?: number;
}

/**
 * Which failures an operation's request may be sent again after:
 * - `all`: network errors, timeouts, 5xx and 429. GETs and DELETEs; purchases (they always carry an idempotency
 *   key, so a repeat answers the same order and never charges twice); and the POSTs that change nothing for
 *   money: `POST /v1/search` and `POST /v1/games/{code}/check-player` (reads), `POST /v1/quotes` (a quote holds no
 *   funds and no stock, and an unused one expires).
 * - `refused`: only a 429 (refused before anything was done) and a network error before the connection was made.
 *   The other POSTs, where a repeat after a lost answer would do the thing twice or lose what the first answer
 *   said: `POST /v1/topups` (a second invoice), `POST /v1/topups/{id}/cancel`, `POST /v1/webhook` (the first
 *   answer shows the secret once), `POST /v1/webhook/secret` (a second rotation ends the first new secret's use)
 *   and `POST /v1/webhook/ping` (a second event).
 */
type RetryPolicy = "all" | "refused";

interface Call {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: object;
  body?: object;
  retry: RetryPolicy;
  /** What the answer is read as. */
  as?: "json" | "text";
  /** A purchase: its 502 is the order's outcome (failed, refunded), never retried. */
  purchase?: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_BACKOFF_MS = 8_000;

/** A fetch's failure by cause: no answer in time, a redirect (never followed), or a connection that failed (its code). */
function causeOf(error: unknown): "timeout" | "redirect" | { code: string | null } {
  const failure = error as { name?: string; code?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  if (failure?.name === "TimeoutError") return "timeout";
  // undici's fetch with `redirect: "error"` fails with this cause.
  if (failure?.cause?.message === "unexpected redirect") return "redirect";
  const code = failure?.cause?.code ?? failure?.code;
  return { code: typeof code === "string" ? code : null };
}

/** A connection that was never made: the request cannot have reached the service. */
const beforeSending = (code: string | null) => code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN";

/** `https`, or `http` on this machine only (localhost, 127.0.0.0/8, ::1): the key and purchases never cross a network in clear. */
function checkedBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback))
    throw new TypeError(`baseUrl must be https:// (http:// only on localhost, 127.0.0.0/8 or ::1): ${url.origin}`);
  return baseUrl.replace(/\/+$/, "");
}

/** How many idempotency keys a client remembers (the oldest forgotten first). */
const REMEMBERED_KEYS = 10_000;
/** Fields of a purchase that decide nothing of the order's identity (the contract's idempotency rule 2). */
const NOT_IDENTIFYING = new Set(["idempotency_key", "max_usdt", "quote_id"]);
/** Written as the service reads them: a username's `@` and case, and the defaults of optional fields. */
const NORMALISED: Record<string, (value: unknown) => unknown> = {
  username: (value) => (typeof value === "string" ? value.trim().replace(/^@/, "").toLowerCase() : value),
  recipient: (value) => (typeof value === "string" ? value.trim().replace(/^@/, "").toLowerCase() : value),
  login: (value) => (typeof value === "string" ? value.trim().toLowerCase() : value),
  server_id: (value) => (value === "" || value === undefined ? null : value),
  quantity: (value) => value ?? 1,
  hide_name: (value) => value ?? false,
  message: (value) => value ?? null,
};

/** What a purchase is for: the route and its identifying fields, normalised, in a stable order. */
function fingerprint(path: string, body: object): string {
  const fields = Object.entries(body)
    .filter(([name]) => !NOT_IDENTIFYING.has(name))
    .map(([name, value]): [string, unknown] => [name, NORMALISED[name]?.(value) ?? value])
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([path, fields]);
}

const isOrder = (body: unknown): body is Order =>
  typeof body === "object" && body !== null && typeof (body as { order_id?: unknown }).order_id === "number" && "status" in body;

function queryString(query: object | undefined): string {
  const entries = Object.entries(query ?? {}).filter(([, value]) => value !== undefined && value !== null);
  return entries.length === 0 ? "" : `?${new URLSearchParams(entries.map(([name, value]): [string, string] => [name, String(value)])).toString()}`;
}

const segment = (value: string | number) => encodeURIComponent(String(value));

/** A CSV statement with its totals (the export's headers). */
export interface LedgerExport {
  csv: string;
  filename: string | null;
  openingBalanceUsdt: number;
  closingBalanceUsdt: number;
  entryCount: number;
}

export type PartnerClient = ReturnType<typeof createClient>;

/** A client for the partner API: one typed method per partner route of the OpenAPI document. */
export function createClient(options: ClientOptions) {
  const baseUrl = checkedBaseUrl(options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const retries = Math.max(0, options.retries ?? 3);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const backoffMs = options.backoffMs ?? 250;
  const maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 60;
  /** The quotes this client made, so `buy({ quoteId })` knows what they are for. */
  const quotes = new Map<string, BindingQuote>();
  /** The idempotency keys this client sent, and what for: a key is never sent for another purchase. */
  const keys = new Map<string, string>();

  const backoff = (attempt: number) => Math.random() * Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** attempt);

  async function send(call: Call): Promise<{ body: unknown; headers: Headers; status: number }> {
    const url = `${baseUrl}${call.path}${queryString(call.query)}`;
    // One id for the call and its retries: the service logs it, and every error carries it.
    const requestId = randomUUID();
    const idempotencyKey = (call.body as { idempotency_key?: unknown } | undefined)?.idempotency_key;
    const context = { requestId, idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : null };
    const headers: Record<string, string> = {
      "x-api-key": options.apiKey,
      "x-request-id": requestId,
      accept: call.as === "text" ? "text/csv" : "application/json",
    };
    if (call.body !== undefined) headers["content-type"] = "application/json";
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      let text: string;
      try {
        // Never follow a redirect: it would carry the key (and on a 307 the purchase) to wherever it points.
        response = await fetchImpl(url, { method: call.method, headers, body: payload, redirect: "error", signal: AbortSignal.timeout(timeoutMs) });
        text = await response.text();
      } catch (error) {
        const cause = causeOf(error);
        const retriable = cause !== "redirect" && (call.retry === "all" || (typeof cause === "object" && beforeSending(cause.code)));
        if (!retriable || attempt >= retries) {
          if (cause === "timeout") throw new PartnerTimeoutError(timeoutMs, context, error);
          throw new PartnerConnectionError(cause === "redirect" ? "redirect" : cause.code, context, error);
        }
        await sleep(backoff(attempt));
        continue;
      }
      let body: unknown = text;
      if (call.as !== "text" || !response.ok) {
        try {
          body = text === "" ? null : JSON.parse(text);
        } catch {
          body = text;
        }
      }
      if (response.ok) return { body, headers: response.headers, status: response.status };
      // A purchase's 502 is its order's outcome (failed, refunded): a retry would only answer the same failed order.
      if (call.purchase && response.status === 502) {
        throw new PurchaseFailedError(
          response.status,
          body,
          response.headers,
          context,
          isOrder(body) ? body : await failedOrder(call, context.idempotencyKey),
        );
      }
      const error = new PartnerApiError(response.status, body, response.headers, context);
      const retriable = response.status === 429 || (call.retry === "all" && response.status >= 500);
      if (!retriable || attempt >= retries) throw error;
      if (response.status === 429) {
        const wait = error.retryAfter ?? 1;
        if (wait > maxRetryAfterSeconds) throw error;
        // The wait asked for, and a little jitter so that clients refused together do not come back together.
        await sleep(wait * 1000 + Math.random() * Math.min(1000, backoffMs * 2 ** attempt));
      } else await sleep(backoff(attempt));
    }
  }

  /**
   * The failed order of a purchase whose 502 is an Error body (Premium's): read back, never bought again. The newest
   * failed orders of the product are read, and the one with this idempotency key is the order; null if not found.
   */
  async function failedOrder(call: Call, idempotencyKey: string | null): Promise<Order | null> {
    const productType = call.path.endsWith("/premium") ? "premium" : call.path.endsWith("/stars") ? "stars" : null;
    if (productType === null || idempotencyKey === null) return null;
    try {
      const { orders } = await client.orders({ product_type: productType, status: "failed", limit: 5 });
      for (const summary of orders) {
        const order = await client.order(summary.order_id);
        if ("idempotency_key" in order && order.idempotency_key === idempotencyKey) return order;
      }
    } catch {
      // The 502 is the answer that matters; the order is a convenience.
    }
    return null;
  }

  /**
   * A purchase: with its idempotency key (the caller's, or a new UUID kept for every retry), refused before sending
   * when this client already sent the key for another purchase (the service would place and charge a second order).
   */
  async function purchase<T>(path: string, body: { idempotency_key?: string | null }): Promise<T> {
    const idempotencyKey = body.idempotency_key ?? randomUUID();
    const sandbox = path.startsWith("/test/");
    const what = fingerprint(path, body);
    const known = sandbox ? undefined : keys.get(idempotencyKey);
    if (known !== undefined && known !== what) throw new IdempotencyKeyReuseError(idempotencyKey);
    if (!sandbox && known === undefined) {
      keys.set(idempotencyKey, what);
      if (keys.size > REMEMBERED_KEYS) keys.delete(keys.keys().next().value!);
    }
    try {
      return (await send({ method: "POST", path, body: { ...body, idempotency_key: idempotencyKey }, retry: "all", purchase: true })).body as T;
    } catch (error) {
      // A 4xx placed nothing: the key may be used again, e.g. with the field corrected.
      if (known === undefined && error instanceof PartnerApiError && error.status < 500) keys.delete(idempotencyKey);
      throw error;
    }
  }

  const json = async <T>(call: Call): Promise<T> => (await send(call)).body as T;
  const get = <T>(path: string, query?: object) => json<T>({ method: "GET", path, query, retry: "all" });
  const post = <T>(path: string, body: object | undefined, retry: RetryPolicy) => json<T>({ method: "POST", path, body, retry });
  const del = <T>(path: string) => json<T>({ method: "DELETE", path, retry: "all" });

  const client = {
    // ---- Service ----
    /** GET /v1/health (no key needed). */
    health: () => get<Answer<"getHealth">>("/v1/health"),
    /** GET /v1/balance. */
    balance: () => get<Answer<"getBalance">>("/v1/balance"),
    /** GET /v1/keys: this key, and the replaced keys still answering in their grace period. */
    keys: () => get<Answer<"getKeys">>("/v1/keys"),
    /** DELETE /v1/keys/previous: the replaced keys stop answering now (a rotation's grace ended at once). */
    endKeyGrace: () => del<Answer<"endKeyGrace">>("/v1/keys/previous"),
    /** GET /v1/pricing: the key's prices. */
    pricing: () => get<Answer<"getPricing">>("/v1/pricing"),
    /** GET /v1/rates. */
    rates: () => get<Answer<"getRates">>("/v1/rates"),
    /** POST /v1/search: a recipient by username (read-only, retried). */
    search: (body: RequestBody<"searchRecipient">) => post<Answer<"searchRecipient">>("/v1/search", body, "all"),

    // ---- Purchases: each with an idempotency key, so a retry never buys twice ----
    /** POST /v1/stars. */
    buyStars: (body: StarsPurchase) => purchase<Answer<"buyStars">>("/v1/stars", body),
    /** POST /v1/premium. */
    buyPremium: (body: PremiumPurchase) => purchase<Answer<"buyPremium">>("/v1/premium", body),
    /** POST /v1/store: a Steam wallet top-up (202 while processing: poll `storeOrder`, or wait for the webhook). */
    buyStore: (body: StorePurchase) => purchase<Answer<"topUpStore">>("/v1/store", body),
    /** POST /v1/games/{code}/order. */
    buyGame: ({ game_code, ...body }: GamePurchase) => purchase<Answer<"orderGameCredit">>(`/v1/games/${segment(game_code)}/order`, body),
    /** POST /v1/giftcards/{category_id}/order: the codes come later, from `giftcardOrder`. */
    buyGiftcards: ({ category_id, ...body }: GiftcardPurchase) =>
      purchase<Answer<"orderGiftcards">>(`/v1/giftcards/${segment(category_id)}/order`, body),
    /** POST /v1/gifts: a Telegram gift. */
    sendGift: (body: GiftPurchase) => purchase<Answer<"sendGift">>("/v1/gifts", body),

    // ---- Sandbox: answers as a purchase would, charges nothing ----
    sandboxStars: (body: StarsPurchase) => purchase<Answer<"sandboxStars">>("/test/v1/stars", body),
    sandboxPremium: (body: PremiumPurchase) => purchase<Answer<"sandboxPremium">>("/test/v1/premium", body),
    sandboxStore: (body: StorePurchase) => purchase<Answer<"sandboxStore">>("/test/v1/store", body),

    // ---- Binding quotes ----
    /** POST /v1/quotes: the exact charge of a purchase, binding for `ttl_seconds`; then `buy({ quoteId })`. */
    async quote(body: QuoteRequest): Promise<BindingQuote> {
      const quote = await post<BindingQuote>("/v1/quotes", body, "all");
      // Expired quotes are forgotten (the service refuses them anyway), so the map stays small.
      for (const [id, known] of quotes) if (Date.parse(known.expires_at) < Date.now()) quotes.delete(id);
      quotes.set(quote.quote_id, quote);
      return quote;
    },
    /**
     * The purchase a quote is for, charged exactly its `charge_usdt`: give the quote (or the id of one this client
     * made). The quote's own fields are sent; `idempotency_key` and `max_usdt` may be added.
     */
    async buy(input: ({ quote: BindingQuote } | { quoteId: string }) & { idempotency_key?: string; max_usdt?: number }): Promise<Order> {
      const quote = "quote" in input ? input.quote : quotes.get(input.quoteId);
      if (!quote) throw new Error(`Quote ${"quoteId" in input ? input.quoteId : ""} was not made by this client: pass the quote itself`);
      const { game_code, category_id, ...fields } = quote.fields as Record<string, unknown> & { game_code?: string; category_id?: string };
      const extra = {
        quote_id: quote.quote_id,
        idempotency_key: input.idempotency_key,
        ...(input.max_usdt === undefined ? {} : { max_usdt: input.max_usdt }),
      };
      const body = { ...fields, ...extra } as never;
      switch (quote.product_type) {
        case "stars":
          return client.buyStars(body);
        case "premium":
          return client.buyPremium(body);
        case "store":
          return client.buyStore(body);
        case "game":
          return client.buyGame({ ...(body as object), game_code: String(game_code) } as GamePurchase);
        case "giftcard":
          return client.buyGiftcards({ ...(body as object), category_id: String(category_id) } as GiftcardPurchase);
        case "gift":
          return client.sendGift(body);
      }
    },

    // ---- Orders ----
    /** GET /v1/orders: one page, newest first. */
    orders: (query: Query<"listOrders"> = {}) => get<Answer<"listOrders">>("/v1/orders", query),
    /** Every order matching the filters, newest first, fetched a page at a time. */
    async *allOrders(query: Omit<Query<"listOrders">, "before"> = {}): AsyncGenerator<OrderSummary> {
      let before: number | undefined;
      const limit = Number(query.limit ?? 100);
      for (;;) {
        const page = await client.orders({ ...query, limit, before });
        yield* page.orders;
        if (page.orders.length < limit) return;
        before = page.orders[page.orders.length - 1]!.order_id;
      }
    },
    /** GET /v1/orders/{order_id}: any product's order. */
    order: (orderId: number) => get<Answer<"getOrder">>(`/v1/orders/${segment(orderId)}`),
    /** GET /v1/store/{order_id}. */
    storeOrder: (orderId: number) => get<Answer<"getStoreOrder">>(`/v1/store/${segment(orderId)}`),
    /** GET /v1/games/orders/{order_id}. */
    gameOrder: (orderId: number) => get<Answer<"getGameOrder">>(`/v1/games/orders/${segment(orderId)}`),
    /** GET /v1/giftcards/orders/{order_id}: with its `codes` once completed. */
    giftcardOrder: (orderId: number) => get<Answer<"getGiftcardOrder">>(`/v1/giftcards/orders/${segment(orderId)}`),

    // ---- Catalogues ----
    /** GET /v1/store/pricing. */
    storePricing: (query: Query<"getStorePricing"> = {}) => get<Answer<"getStorePricing">>("/v1/store/pricing", query),
    /** GET /v1/games. */
    games: () => get<Answer<"listGames">>("/v1/games"),
    /** GET /v1/games/{code}/catalogue. */
    gameCatalogue: (code: string, query: Query<"getGameCatalogue"> = {}) =>
      get<Answer<"getGameCatalogue">>(`/v1/games/${segment(code)}/catalogue`, query),
    /** POST /v1/games/{code}/check-player (read-only, retried). */
    checkPlayer: (code: string, body: RequestBody<"checkGamePlayer">) =>
      post<Answer<"checkGamePlayer">>(`/v1/games/${segment(code)}/check-player`, body, "all"),
    /** GET /v1/giftcards. */
    giftcardBrands: () => get<Answer<"listGiftcardBrands">>("/v1/giftcards"),
    /** GET /v1/giftcards/{category_id}/catalogue. */
    giftcardCatalogue: (categoryId: string) => get<Answer<"getGiftcardCatalogue">>(`/v1/giftcards/${segment(categoryId)}/catalogue`),
    /** GET /v1/gifts. */
    gifts: () => get<Answer<"listGifts">>("/v1/gifts"),
    /** GET /v1/gifts/{gift_id}/sticker: the gift's Lottie animation, as JSON. */
    giftSticker: (giftId: string) => get<unknown>(`/v1/gifts/${segment(giftId)}/sticker`),

    // ---- Statement ----
    /** GET /v1/ledger: one page of the statement, newest first. */
    ledger: (query: Query<"getLedger"> = {}) => get<LedgerStatement>("/v1/ledger", query),
    /** Every page of the statement, newest first (each with the range's opening and closing balance). */
    async *ledgerPages(query: Omit<Query<"getLedger">, "before"> = {}): AsyncGenerator<LedgerStatement> {
      let before: string | undefined;
      for (;;) {
        const page = await client.ledger({ limit: 100, ...query, before });
        yield page;
        if (!page.next_before) return;
        before = page.next_before;
      }
    },
    /** Every entry of the statement, newest first. */
    async *ledgerEntries(query: Omit<Query<"getLedger">, "before"> = {}): AsyncGenerator<LedgerEntry> {
      for await (const page of client.ledgerPages(query)) yield* page.entries;
    },
    /** GET /v1/ledger/export: the range as CSV (oldest first) with its totals. */
    async exportLedger(query: Query<"exportLedger">): Promise<LedgerExport> {
      const { body, headers } = await send({ method: "GET", path: "/v1/ledger/export", query, retry: "all", as: "text" });
      const filename = /filename="([^"]+)"/.exec(headers.get("content-disposition") ?? "")?.[1] ?? null;
      return {
        csv: String(body),
        filename,
        openingBalanceUsdt: Number(headers.get("x-opening-balance-usdt")),
        closingBalanceUsdt: Number(headers.get("x-closing-balance-usdt")),
        entryCount: Number(headers.get("x-entry-count")),
      };
    },

    // ---- Top-ups ----
    /** POST /v1/topups: an invoice or a transfer (not retried after it may have been sent: a repeat makes another). */
    createTopup: (body: RequestBody<"createTopup">) => post<Answer<"createTopup">>("/v1/topups", body, "refused"),
    /** GET /v1/topups. */
    topups: (query: Query<"listTopups"> = {}) => get<Answer<"listTopups">>("/v1/topups", query),
    /** GET /v1/topups/{topup_id}. */
    topup: (topupId: number) => get<Answer<"getTopup">>(`/v1/topups/${segment(topupId)}`),
    /** POST /v1/topups/{topup_id}/cancel. */
    cancelTopup: (topupId: number) => post<Answer<"cancelTopup">>(`/v1/topups/${segment(topupId)}/cancel`, undefined, "refused"),

    // ---- Webhook endpoint ----
    /** GET /v1/webhook: the endpoint (never its secret), or `webhook: null`. */
    webhook: () => get<Answer<"getWebhook">>("/v1/webhook"),
    /** POST /v1/webhook: sets the URL; the first time answers the `secret`, once. */
    setWebhook: (url: string) => post<Answer<"setWebhook">>("/v1/webhook", { url }, "refused"),
    /** DELETE /v1/webhook. */
    removeWebhook: () => del<Answer<"removeWebhook">>("/v1/webhook"),
    /** POST /v1/webhook/secret: a new secret, once; the previous one signs too until `previous_secret_until`. */
    rotateWebhookSecret: () => post<Answer<"rotateWebhookSecret">>("/v1/webhook/secret", undefined, "refused"),
    /** DELETE /v1/webhook/secret/previous: the previous secret stops signing now. */
    revokePreviousWebhookSecret: () => del<Answer<"revokePreviousWebhookSecret">>("/v1/webhook/secret/previous"),
    /** POST /v1/webhook/ping: a signed `ping` now, and what the endpoint answered. */
    pingWebhook: () => post<Answer<"pingWebhook">>("/v1/webhook/ping", undefined, "refused"),
    /** GET /v1/webhook/attempts. */
    webhookAttempts: (query: Query<"listWebhookAttempts"> = {}) => get<Answer<"listWebhookAttempts">>("/v1/webhook/attempts", query),
  };
  return client;
}
