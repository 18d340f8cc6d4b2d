import type { FastifyReply, FastifyRequest } from "fastify";

// The simulated Reloadly's state: one account per environment (sandbox and production have their own wallet,
// credentials and tokens), the tokens issued, and the helpers every route shares: Reloadly's error body and its
// time format (docs/providers/reloadly-giftcards.md, "Error body").

export const ENVIRONMENTS = ["sandbox", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Each environment's audience (= its gift-card base URL, R3 JWT `aud`, R6 Service) and where the simulator serves it. */
export const AUDIENCE: Record<Environment, string> = {
  sandbox: "https://giftcards-sandbox.reloadly.com",
  production: "https://giftcards.reloadly.com",
};
export const PREFIX: Record<Environment, string> = { sandbox: "/reloadly/giftcards-sandbox", production: "/reloadly/giftcards" };

/** The media type of every gift-card call, asked for in Accept and answered in Content-Type (R2, R3, R6 Version). */
export const GIFTCARDS_V1 = "application/com.reloadly.giftcards-v1+json";

export const STATUSES = ["SUCCESSFUL", "PENDING", "PROCESSING", "FAILED", "REFUNDED"] as const;
export type Status = (typeof STATUSES)[number];

export interface Transaction {
  transactionId: number;
  amount: number;
  discount: number;
  currencyCode: string;
  fee: number;
  smsFee: number;
  totalFee: number;
  preOrdered: boolean;
  recipientEmail: string | null;
  recipientPhone: string | null;
  customIdentifier: string;
  status: Status;
  transactionCreatedTime: string;
  product: {
    productId: number;
    productName: string;
    countryCode: string;
    quantity: number;
    unitPrice: number;
    totalPrice: number;
    currencyCode: string;
    brand: { brandId: number; brandName: string };
  };
  balanceInfo: { oldBalance: number; newBalance: number; cost: number; currencyCode: string; currencyName: string; updatedAt: string };
}

/** A transaction and what the simulator keeps beside it: its cards, and the status it settles to and when. */
export interface Held {
  transaction: Transaction;
  cards: { cardNumber: string; pinCode: string }[];
  settle: { at: number; to: Status } | null;
  /** When the transaction ended FAILED or REFUNDED after being charged, its amount went back to the wallet. */
  charged: boolean;
}

export interface Account {
  environment: Environment;
  balance: number;
  updatedAt: string;
  byId: Map<number, Held>;
}

interface Token {
  environment: Environment;
  expiresAt: number;
}

export interface ReloadlyState {
  accounts: Record<Environment, Account>;
  tokens: Map<string, Token>;
  nextTransactionId: number;
}

/** Reloadly's time format, `yyyy-MM-dd HH:mm:ss` (UTC here). */
export const stamp = (at = Date.now()) => new Date(at).toISOString().slice(0, 19).replace("T", " ");

/** Rounds an amount of the account currency to 4 decimals, as Reloadly's recorded answers show (R7: `6.1204`). */
export const amount = (n: number) => Math.round(n * 10_000) / 10_000;

const STARTING_BALANCE = 1000;

export function createState(): ReloadlyState {
  const account = (environment: Environment): Account => ({ environment, balance: STARTING_BALANCE, updatedAt: stamp(), byId: new Map() });
  return { accounts: { sandbox: account("sandbox"), production: account("production") }, tokens: new Map(), nextTransactionId: 10001 };
}

/** Moves every transaction whose time has come to its final status; one that fails after the charge is credited back. */
export function settle(account: Account, now = Date.now()): void {
  for (const held of account.byId.values()) {
    if (held.settle && held.settle.at <= now) finish(account, held, held.settle.to);
  }
}

/** Ends a transaction with `status`; FAILED and REFUNDED give a charged amount back (nothing delivered, nothing charged). */
export function finish(account: Account, held: Held, status: Status): void {
  held.settle = null;
  held.transaction.status = status;
  if ((status === "FAILED" || status === "REFUNDED") && held.charged) {
    account.balance = amount(account.balance + held.transaction.amount);
    account.updatedAt = stamp();
    held.charged = false;
    held.cards = [];
  }
}

/** The request's path as the real host sees it: without the query and without the simulator's prefix. */
export function hostPath(request: FastifyRequest, prefix: string): string {
  const path = request.url.split("?")[0]!;
  return path.startsWith(prefix) ? path.slice(prefix.length) || "/" : path;
}

/**
 * Reloadly's error body (R3 401/400 schemas, R6 APIError): `timeStamp`, `message`, `path`, `errorCode` (often null),
 * `infoLink`, `details`.
 */
export function reloadlyError(
  reply: FastifyReply,
  status: number,
  path: string,
  message: string,
  errorCode: string | null = null,
  details: unknown[] = [],
): FastifyReply {
  return reply.code(status).send({ timeStamp: stamp(), message, path, errorCode, infoLink: null, details });
}

/** The framework's own answer to a URL or representation it has not got (R3 404 examples). */
export function frameworkError(reply: FastifyReply, status: 404 | 406, path: string): FastifyReply {
  const [error, message] = status === 404 ? ["Not Found", "No message available"] : ["Not Acceptable", "Could not find acceptable representation"];
  return reply.code(status).type("application/json").send({ timeStamp: stamp(), status, error, message, path });
}
