// The Mini App's calls: sign-in by init data, then the session as a bearer token on the Mini App's and the API's
// own routes (the same bodies, views, limits and reasons as a partner's key; refusals in the user's language). The
// answers' types are generated from the service's OpenAPI document (api-types.ts, `npm run web:types`).

import type { components, operations } from "./api-types.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** What an operation (by its operationId) answers with a status, as the service's OpenAPI document has it. */
export type Answer<Id extends keyof operations, Status extends number = 200> = operations[Id]["responses"] extends {
  [S in Status]: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** What an operation takes as its JSON body. */
type BodyOf<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { "application/json": infer Body } } } ? Body : never;

type KeysOfAny<U> = U extends unknown ? keyof U : never;
type ValueIn<U, K extends PropertyKey> = U extends { [P in K]?: infer V } ? V : never;
/** A union of answers read as one: the fields every member has, and the fields only some have, as optional. */
type Merged<U> = { [K in keyof U]: U[K] } & { [K in Exclude<KeysOfAny<U>, keyof U>]?: ValueIn<U, K> };

export type Session = Answer<"miniAppSession">;
export type Me = Answer<"miniAppMe">;
export type Check = Answer<"miniAppCheck">;
/** A new API key ends every session of the account; this one carries on the page's. */
export type IssuedKey = Answer<"miniAppRotateKey">;
export type Quote = Answer<"createQuote">;
export type Topup = components["schemas"]["Topup"];
export type OrderSummary = components["schemas"]["OrderSummary"];

/** Any product's order as the API answers it (a gift card's with its codes once completed). */
export type Order = Merged<Answer<"getOrder"> | Answer<"getGiftcardOrder">>;

/** A purchase's body as a quote takes it (the API's quote body). */
export type Purchase = BodyOf<"createQuote">;

async function answer<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; error_code?: string; order_id?: number };
  // A failed order (502) is an answer with its outcome, not an error.
  if (response.ok || (response.status === 502 && body.order_id !== undefined)) return body as T;
  throw new ApiError(response.status, body.error ?? `HTTP ${response.status}`, body.error_code ?? null);
}

export async function signIn(initData: string): Promise<Session> {
  const response = await fetch("/miniapp/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ init_data: initData }),
  });
  return answer<Session>(response);
}

export type Api = ReturnType<typeof client>;

export function client(session: Session) {
  let headers = { authorization: `Bearer ${session.token}` };
  const catalogue = new Map<string, { at: number; answer: Promise<unknown> }>();
  const call = <T>(method: string, path: string, body?: object) =>
    fetch(path, {
      method,
      headers: body ? { ...headers, "content-type": "application/json" } : headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then((response) => answer<T>(response));
  return {
    /**
     * A new API key, with Telegram's init data as the page holds it (the service takes it only when at most 5
     * minutes old), the old key answering `graceHours` more; the page goes on with the session the answer carries,
     * the only one left.
     */
    async rotateKey(initData: string, graceHours = 0): Promise<IssuedKey> {
      const issued = await call<IssuedKey>("POST", "/miniapp/key", { init_data: initData, grace_hours: graceHours });
      headers = { authorization: `Bearer ${issued.session.token}` };
      return issued;
    },
    get: <T>(path: string) => call<T>("GET", path),
    /**
     * A catalogue read (prices, gifts, brands, the health's backends) shared for `ttlMs`: the first screen reads
     * several, and going back and forth must not spend the session's requests a minute (RATE_LIMIT_PER_MINUTE).
     * The price charged is always the core's, by the check and the quote.
     */
    cached<T>(path: string, ttlMs = 30_000): Promise<T> {
      const hit = catalogue.get(path);
      if (hit && Date.now() - hit.at < ttlMs) return hit.answer as Promise<T>;
      const answer = call<T>("GET", path);
      catalogue.set(path, { at: Date.now(), answer });
      answer.catch(() => catalogue.delete(path));
      return answer;
    },
    post: <T>(path: string, body: object = {}) => call<T>("POST", path, body),
    delete: <T>(path: string) => call<T>("DELETE", path),
    /** A file (the statement's CSV) as a blob to save. */
    async file(path: string): Promise<Blob> {
      const response = await fetch(path, { headers });
      if (!response.ok) await answer(response);
      return response.blob();
    },
  };
}

/** Buys at a quote, with one idempotency key per confirmation: the product's own purchase route. */
export function buy(api: Api, purchase: Purchase, quoteId: string, idempotencyKey: string): Promise<Order> {
  const guard = { quote_id: quoteId, idempotency_key: idempotencyKey };
  switch (purchase.product_type) {
    case "stars":
      return api.post("/v1/stars", { username: purchase.username, stars: purchase.stars, ...guard });
    case "premium":
      return api.post("/v1/premium", { username: purchase.username, months: purchase.months, ...guard });
    case "store":
      return api.post("/v1/store", { login: purchase.login, amount_usd: purchase.amount_usd, ...guard });
    case "game": {
      const { denomination, player_id, server_id } = purchase;
      return api.post(`/v1/games/${encodeURIComponent(purchase.game_code)}/order`, { denomination, player_id, server_id, ...guard });
    }
    case "giftcard":
      return api.post(`/v1/giftcards/${encodeURIComponent(purchase.category_id)}/order`, {
        card_id: purchase.card_id,
        quantity: purchase.quantity,
        ...guard,
      });
    case "gift": {
      const { recipient, gift_id, hide_name, message } = purchase;
      return api.post("/v1/gifts", { recipient, gift_id, hide_name, message, ...guard });
    }
  }
}

/** One order as it is now (refreshed from the provider while processing); a gift card order with its codes once completed. */
export async function orderNow(api: Api, id: number, product: string): Promise<Order> {
  const order = await api.get<Order>(`/v1/orders/${id}`);
  if (product === "giftcard" && order.status === "completed") return api.get<Order>(`/v1/giftcards/orders/${id}`);
  return order;
}
