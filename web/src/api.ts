// The Mini App's calls to the service: sign-in by init data, then the session as a bearer token.

export interface Session {
  token: string;
  expires_at: string;
  user: { telegram_id: string; username: string | null; language: string | null };
}

export interface Me {
  telegram_id: string;
  username: string | null;
  balance_usdt: number;
  balance_uzs: number;
  balance_ton: number | null;
}

export interface OrderSummary {
  order_id: number;
  product_type: string;
  username: string;
  amount: number;
  usdt_charged: number;
  status: "processing" | "completed" | "failed";
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  const response = await fetch(path, init);
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  // A failed order (502) is an answer with its outcome, not an error.
  if (!response.ok && response.status !== 502) throw new ApiError(response.status, body.error ?? `HTTP ${response.status}`);
  return body as T;
}

export const signIn = (initData: string) =>
  call<Session>("/miniapp/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ init_data: initData }),
  });

export const me = (session: Session) => call<Me>("/miniapp/me", { headers: { authorization: `Bearer ${session.token}` } });

/** The newest orders (the API's order list). */
export const recentOrders = (session: Session, limit = 5) =>
  call<{ orders: OrderSummary[] }>(`/miniapp/orders?limit=${limit}`, { headers: { authorization: `Bearer ${session.token}` } }).then((r) => r.orders);

export interface Quote {
  quote_id: string;
  charge_usdt: number;
  expires_at: string;
}

export interface Order {
  order_id: number;
  status: "processing" | "completed" | "failed";
  usdt_charged: number;
  balance_remaining_usdt: number;
  error: string | null;
}

const post = <T>(session: Session, path: string, body: object) =>
  call<T>(path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${session.token}` },
    body: JSON.stringify(body),
  });

/** The core's binding quote for stars (the exact charge the purchase will take). */
export const quoteStars = (session: Session, username: string, stars: number) =>
  post<Quote>(session, "/miniapp/quotes", { product_type: "stars", username, stars });

/** Buys at the quote; one idempotency key per confirmation, so a double tap buys once. */
export const buyStars = (session: Session, order: { username: string; stars: number; quoteId: string; idempotencyKey: string }) =>
  post<Order>(session, "/miniapp/stars", {
    username: order.username,
    stars: order.stars,
    quote_id: order.quoteId,
    idempotency_key: order.idempotencyKey,
  });

export interface Topup {
  topup_id: number;
  status: "creating" | "active" | "pending" | "credited" | "expired" | "cancelled" | "rejected" | "failed";
  amount_usdt: number;
  credited_usdt: number | null;
  pay_url: string | null;
  expires_at: string | null;
}

/** A Crypto Pay invoice for `amount` USDT: its pay link opens @CryptoBot (through Telegram inside Telegram). */
export const startTopup = (session: Session, amount: number) =>
  post<{ topup: Topup }>(session, "/miniapp/topups", { amount_usdt: amount }).then((r) => r.topup);

export const topupStatus = (session: Session, id: number) =>
  call<{ topup: Topup }>(`/miniapp/topups/${id}`, { headers: { authorization: `Bearer ${session.token}` } }).then((r) => r.topup);
