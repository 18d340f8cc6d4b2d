import { z } from "zod";
import { fromUsd } from "../core/model/money.js";
import {
  type Funds,
  type GiftcardBrand,
  type GiftcardDenomination,
  type GiftcardsPort,
  UpstreamError,
  type UpstreamOutcome,
  type UpstreamStatus,
} from "../core/ports.js";
import { judgeStatus, noAnswer, notTaken, unreadable } from "./outcome.js";
import { createHttpClient, NotSentError, READY_TIMEOUT_MS, type UpstreamCall, type UpstreamResponse } from "./http.js";

// Reloadly's Gift Cards API behind the service's gift-card port (docs/providers/reloadly-giftcards.md; R1 to R10
// below are that file's sources). One Reloadly product (a brand in one country and currency) is one of our
// brands; its denominations are our cards, the card id being the face value in the product's currency. An order
// carries our reference as `customIdentifier`, and its status is looked up by it, so a lost answer is found again
// without ordering twice.
//
// Statuses (R6): SUCCESSFUL is completed once its cards can be read (pending until then), PENDING and PROCESSING are
// pending, FAILED and REFUNDED are failed (nothing delivered; Reloadly keeps or gives back nothing, R10). After an
// order was sent, a timeout, a 5xx (but 503), 408 or 409 is unknown: the reconciler asks by reference. A repeated
// reference (400 CUSTOM_IDENTIFIER_ALREADY_USED) answers the first order, looked up by that reference.
// Prices: a card's cost is what Reloadly deducts from the account for it, in USD (the account currency): its sender
// denomination plus the product's fees, less its discount. What the buyer pays in USDT stays the operator's tariff.

/** Reloadly's hosts (R1, R3, R6 `ServiceURLs`): one token host, one gift-card host per environment. */
const RELOADLY_URLS = {
  auth: "https://auth.reloadly.com",
  sandbox: "https://giftcards-sandbox.reloadly.com",
  production: "https://giftcards.reloadly.com",
} as const;

/** Every gift-card call asks for this media type (R2, R3, R6 `Version.GIFTCARD_V1`). */
const V1 = "application/com.reloadly.giftcards-v1+json";

/** Face values offered for a RANGE product: these round steps between its bounds, plus the bounds themselves. */
const RANGE_STEPS = [1, 2, 5, 10, 15, 20, 25, 30, 50, 75, 100, 150, 200, 250, 300, 500, 750, 1000, 2000, 5000];

/** Reloadly has no stock count; an active product is sold up to this many cards an order. */
const MAX_QUANTITY = 10;

/** The token is fetched again this long before `expires_in` runs out (or at half its life, when shorter). */
const TOKEN_MARGIN_MS = 5 * 60_000;

const money = z.number().finite().min(0);
const timestamp = z.string();

// Source: "Authentication", R3 `AccessTokenResponse200` (R2, R6 fixture).
const tokenSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  token_type: z.string(),
  scope: z.string().optional(),
});

// Source: "Error body", R3 400/401 schemas, R6 `APIError` (only the fields read here).
const errorSchema = z.object({
  message: z.string().nullish(),
  errorCode: z.string().nullish(),
});

// Source: "Products", product fields (R3 schema, R6 `GiftcardProduct`, R7 real answer); only the fields read here.
const productSchema = z.object({
  productId: z.number().int(),
  productName: z.string(),
  status: z.string().optional(),
  denominationType: z.enum(["FIXED", "RANGE"]),
  recipientCurrencyCode: z.string(),
  senderCurrencyCode: z.string(),
  senderFee: money,
  senderFeePercentage: money.nullish(),
  discountPercentage: money.nullish(),
  minRecipientDenomination: money.nullish(),
  maxRecipientDenomination: money.nullish(),
  minSenderDenomination: money.nullish(),
  maxSenderDenomination: money.nullish(),
  fixedRecipientDenominations: z.array(money).nullish(),
  fixedRecipientToSenderDenominationsMap: z.record(z.string(), money).nullish(),
  brand: z.object({ brandId: z.number().int(), brandName: z.string() }),
  country: z.object({ isoName: z.string(), name: z.string() }).partial().nullish(),
  redeemInstruction: z.object({ concise: z.string().nullish(), verbose: z.string().nullish() }).nullish(),
});
type Product = z.infer<typeof productSchema>;

// Source: "Products" `GET /products` and "Transactions" `GET /reports/transactions`: a Spring page (R6 `Page`, R7).
const pageOf = <T extends z.ZodType>(item: T) => z.object({ content: z.array(item), last: z.boolean(), number: z.number().int() });

// Source: "Ordering" answer 200 = a transaction (R3 `OrderAGiftCardResponse200`, R6 `GiftcardTransaction`, R7), statuses R6.
const transactionSchema = z.object({
  transactionId: z.number().int(),
  amount: money,
  currencyCode: z.string(),
  customIdentifier: z.string().nullish(),
  status: z.enum(["SUCCESSFUL", "PENDING", "PROCESSING", "FAILED", "REFUNDED"]),
  product: z.object({ productId: z.number().int(), quantity: z.number().int().positive() }).passthrough(),
});
type Transaction = z.infer<typeof transactionSchema>;

// Source: "Redeem codes", an array of one element per card (R6 `GiftcardInfo`, R7 production fixture).
const cardsSchema = z.array(z.object({ cardNumber: z.coerce.string(), pinCode: z.coerce.string().nullish() }));

// Source: "Account balance" (R4 `accounts-balance.yaml`, R5, R3 schema).
const balanceSchema = z.object({
  balance: z.number().finite(),
  currencyCode: z.string(),
  currencyName: z.string().optional(),
  updatedAt: timestamp.optional(),
});

export interface ReloadlyOptions {
  environment: "sandbox" | "production";
  clientId: string;
  clientSecret: string;
  /** Where the token host and the gift-card host are reached: Reloadly's own by default, the simulator's in tests. */
  authUrl?: string;
  giftcardsUrl?: string;
  timeoutMs: number;
  /** Put on every order's receipt (R3 `senderName`, required). */
  senderName: string;
  /** Where Reloadly mails the receipt; none when absent (R9). The simulator picks its test outcome by it. */
  recipientEmail?: string;
  onCall?: (call: UpstreamCall) => void;
  /** The clock the token's lifetime is measured on. */
  now?: () => number;
}

/** The account's balance (`GET /accounts/balance`), in the account's currency: USD for the accounts priced here. */
interface ReloadlyBalance {
  amount: number;
  currencyCode: string;
}

export type ReloadlyGiftcards = GiftcardsPort & {
  balance(): Promise<ReloadlyBalance>;
  funds(): Promise<Funds>;
  close(): Promise<void>;
  /** Cuts the calls under way. */
  destroy(): Promise<void>;
};

/** The token could not be had: the call it was for was never sent. */
class TokenError extends NotSentError {}

/** A base URL as undici's pool (the origin) and the path prefix every call carries. */
function split(url: string) {
  const parsed = new URL(url);
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, "") };
}

const usdCents = (value: number) => Math.round(value * 100) / 100;

/** What one card of `face` value costs the account, fees in and discount off (the simulator's arithmetic, R10). */
function senderPrice(product: Product, face: number): number | null {
  let unit: number | undefined;
  if (product.denominationType === "FIXED") {
    const map = product.fixedRecipientToSenderDenominationsMap ?? {};
    unit = Object.entries(map).find(([key]) => Number(key) === face)?.[1];
  } else if (product.minSenderDenomination && product.minRecipientDenomination) {
    unit = usdCents((face * product.minSenderDenomination) / product.minRecipientDenomination);
  }
  if (unit === undefined) return null;
  const fee = product.senderFee + (unit * (product.senderFeePercentage ?? 0)) / 100;
  const discount = (unit * (product.discountPercentage ?? 0)) / 100;
  return unit + fee - discount;
}

/** The face values a product is sold in: FIXED as listed, RANGE as its bounds and the round steps between. */
function faces(product: Product): number[] {
  if (product.denominationType === "FIXED") return [...new Set(product.fixedRecipientDenominations ?? [])].sort((a, b) => a - b);
  const min = product.minRecipientDenomination;
  const max = product.maxRecipientDenomination;
  if (min == null || max == null || max < min) return [];
  return [...new Set([min, ...RANGE_STEPS.filter((step) => step > min && step < max), max])];
}

function cardsOf(product: Product): GiftcardDenomination[] {
  if (product.senderCurrencyCode !== "USD") throw new UpstreamError(`account currency ${product.senderCurrencyCode}: only USD is priced`);
  const active = (product.status ?? "ACTIVE") === "ACTIVE";
  return faces(product).flatMap((face) => {
    const cost = senderPrice(product, face);
    if (cost === null || cost <= 0) return [];
    return [
      {
        cardId: String(face),
        name: `${face} ${product.recipientCurrencyCode}`,
        costMicro: fromUsd(cost),
        stock: active ? MAX_QUANTITY : 0,
        minQuantity: 1,
        maxQuantity: MAX_QUANTITY,
      },
    ];
  });
}

const brandOf = (product: Product): GiftcardBrand => ({
  categoryId: String(product.productId),
  name: product.productName,
  notes: product.redeemInstruction?.concise ?? null,
});

/** A code as the buyer redeems it: the card number, and its PIN when it has one. */
const codeOf = (card: z.infer<typeof cardsSchema>[number]) => (card.pinCode ? `${card.cardNumber} PIN ${card.pinCode}` : card.cardNumber);

const errorOf = (response: UpstreamResponse) => {
  const parsed = errorSchema.safeParse(response.body);
  return parsed.success ? parsed.data : { message: null, errorCode: null };
};

const isNoProduct = (error: { errorCode?: string | null; message?: string | null }) =>
  error.errorCode === "PRODUCT_NOT_FOUND" || (error.message ?? "").startsWith("The product was either not found");

/** Reloadly's Gift Cards API as the service's gift-card provider. */
export function createReloadlyAdapter(options: ReloadlyOptions): ReloadlyGiftcards {
  const now = options.now ?? Date.now;
  const auth = split(options.authUrl ?? RELOADLY_URLS.auth);
  const api = split(options.giftcardsUrl ?? RELOADLY_URLS[options.environment]);
  const authHttp = createHttpClient(auth.origin, options.timeoutMs, { provider: "giftcards", onCall: options.onCall });
  const apiHttp = createHttpClient(api.origin, options.timeoutMs, { provider: "giftcards", onCall: options.onCall });

  let token: { value: string; renewAt: number } | null = null;
  let fetching: Promise<string> | null = null;

  async function fetchToken(timeoutMs: number): Promise<string> {
    let response: UpstreamResponse;
    try {
      response = await authHttp.call(
        "POST",
        `${auth.prefix}/oauth/token`,
        {
          client_id: options.clientId,
          client_secret: options.clientSecret,
          grant_type: "client_credentials",
          // The audience is the gift-card host of the environment, whatever URL it is reached at (R3, R6).
          audience: RELOADLY_URLS[options.environment],
        },
        timeoutMs,
      );
    } catch (error) {
      throw new TokenError(`token: ${(error as Error).message}`, { cause: error });
    }
    const parsed = tokenSchema.safeParse(response.body);
    if (response.status !== 200 || !parsed.success) {
      const { errorCode, message } = errorOf(response);
      throw new TokenError(`token refused (HTTP ${response.status}${errorCode ? ` ${errorCode}` : ""}${message ? `: ${message}` : ""})`);
    }
    const lifetime = parsed.data.expires_in * 1000;
    token = { value: parsed.data.access_token, renewAt: now() + Math.max(0, lifetime - Math.min(TOKEN_MARGIN_MS, lifetime / 2)) };
    return token.value;
  }

  /** The cached token while it has life left; one fetch at a time otherwise. */
  function bearer(timeoutMs: number): Promise<string> {
    if (token && now() < token.renewAt) return Promise.resolve(token.value);
    fetching ??= fetchToken(timeoutMs).finally(() => {
      fetching = null;
    });
    return fetching;
  }

  /** One gift-card call with the token; a 401 for the token (expired, revoked) gets a new one and one more try. */
  async function call(method: "GET" | "POST", path: string, payload?: unknown, timeoutMs = options.timeoutMs): Promise<UpstreamResponse> {
    const send = async () =>
      apiHttp.call(method, `${api.prefix}${path}`, payload, timeoutMs, { authorization: `Bearer ${await bearer(timeoutMs)}`, accept: V1 });
    const first = await send();
    if (first.status !== 401) return first;
    // A 401 means the call was not carried out: safe to send again, also for an order.
    token = null;
    return send();
  }

  /** A read that must succeed: the parsed 200, or UpstreamError. `missing` answers say "no such thing" (null). */
  async function read<T>(path: string, schema: z.ZodType<T>, missing: (response: UpstreamResponse) => boolean = () => false): Promise<T | null> {
    let response: UpstreamResponse;
    try {
      response = await call("GET", path);
    } catch (error) {
      throw new UpstreamError((error as Error).message, error);
    }
    if (missing(response)) return null;
    if (response.status !== 200) {
      const { errorCode, message } = errorOf(response);
      throw new UpstreamError(`GET ${path}: HTTP ${response.status}${errorCode ? ` ${errorCode}` : ""}${message ? `: ${message}` : ""}`);
    }
    const parsed = schema.safeParse(response.body);
    if (!parsed.success) throw new UpstreamError(`GET ${path}: unexpected answer (HTTP 200)`);
    return parsed.data;
  }

  /** A transaction as the port's outcome; a SUCCESSFUL one with its codes, pending while they cannot be read. */
  async function outcomeOf(transaction: Transaction): Promise<UpstreamOutcome> {
    const provider = { providerOrderId: String(transaction.transactionId), providerStatus: transaction.status };
    switch (transaction.status) {
      case "PENDING":
      case "PROCESSING":
        return { kind: "pending", ...provider };
      case "FAILED":
      case "REFUNDED":
        return { kind: "failed", error: `Reloadly ${transaction.status.toLowerCase()} the order`, reason: "provider_error", ...provider };
      case "SUCCESSFUL": {
        let cards: z.infer<typeof cardsSchema> | null;
        try {
          cards = await read(`/orders/transactions/${transaction.transactionId}/cards`, cardsSchema);
        } catch {
          // Taken and paid for: the codes are read again on the next status lookup.
          return { kind: "pending", ...provider };
        }
        if (!cards || cards.length < transaction.product.quantity) return { kind: "pending", ...provider };
        // Reloadly's transaction id is the provider order id; `transactionId` stays as the other gift-card adapter leaves it.
        return { kind: "completed", codes: cards.map(codeOf), ...provider };
      }
    }
  }

  async function status(reference: string): Promise<UpstreamStatus> {
    let page: { content: Transaction[] } | null;
    try {
      page = await read(`/reports/transactions?page=1&size=1&customIdentifier=${encodeURIComponent(reference)}`, pageOf(transactionSchema));
    } catch (error) {
      return { kind: "unknown", error: (error as Error).message };
    }
    const found = page?.content.find((transaction) => transaction.customIdentifier === reference);
    return found ? outcomeOf(found) : { kind: "not_found" };
  }

  /** Every product, page after page. */
  async function products(): Promise<Product[]> {
    const all: Product[] = [];
    for (let page = 1; page <= 100; page++) {
      const answer = (await read(`/products?page=${page}&size=200`, pageOf(productSchema)))!;
      all.push(...answer.content);
      if (answer.last || answer.content.length === 0) return all;
    }
    throw new UpstreamError("GET /products: more than 100 pages");
  }

  async function order(order: { reference: string; categoryId: string; cardId: string; quantity: number }): Promise<UpstreamOutcome> {
    const productId = Number(order.categoryId);
    const unitPrice = Number(order.cardId);
    if (!Number.isSafeInteger(productId) || !(unitPrice > 0)) {
      return { kind: "failed", error: `No such Reloadly card: ${order.categoryId}/${order.cardId}`, reason: "provider_error" };
    }
    let response: UpstreamResponse;
    try {
      response = await call("POST", "/orders", {
        productId,
        quantity: order.quantity,
        unitPrice,
        customIdentifier: order.reference,
        senderName: options.senderName,
        ...(options.recipientEmail ? { recipientEmail: options.recipientEmail } : {}),
      });
    } catch (error) {
      return noAnswer(error, "Reloadly");
    }
    const { status: code } = response;
    // Reloadly's 401 (a token it no longer takes) is "not taken" too: the order never reached its books.
    const answered = judgeStatus(code, [503, 429, 401]);
    if (answered === "taken") {
      const parsed = transactionSchema.safeParse(response.body);
      if (!parsed.success) return unreadable(`unexpected Reloadly answer to an order (HTTP ${code})`);
      return outcomeOf(parsed.data);
    }
    if (answered === "unknown") return notTaken(answered, `Reloadly answered HTTP ${code}`);
    const { errorCode, message } = errorOf(response);
    if (errorCode === "CUSTOM_IDENTIFIER_ALREADY_USED") {
      // Our reference was taken before (a repeat after a lost answer): that order is the one, never a second.
      const earlier = await status(order.reference);
      if (earlier.kind === "not_found" || earlier.kind === "ambiguous")
        return { kind: "unknown", error: "Reloadly has our reference but cannot find its order" };
      return earlier;
    }
    const error = `Reloadly refused the order (HTTP ${code}${errorCode ? ` ${errorCode}` : ""})${message ? `: ${message}` : ""}`;
    // Reloadly saying the account is short refused the order, whatever its status (as before the one policy).
    if (errorCode === "INSUFFICIENT_BALANCE") return notTaken("refused", error, "provider_balance");
    return notTaken(answered, error);
  }

  async function balance(): Promise<ReloadlyBalance> {
    const answer = (await read("/accounts/balance", balanceSchema))!;
    return { amount: answer.balance, currencyCode: answer.currencyCode };
  }

  /** The account's balance as the service's funds: only a USD account is priced here (see cardsOf). */
  async function funds(): Promise<Funds> {
    const { amount, currencyCode } = await balance();
    if (currencyCode !== "USD") throw new UpstreamError(`account currency ${currencyCode}: only USD is priced`);
    return { amount, unit: "USD" };
  }

  return {
    configured: true,
    async ready() {
      try {
        return (await call("GET", "/accounts/balance", undefined, Math.min(options.timeoutMs, READY_TIMEOUT_MS))).status === 200;
      } catch {
        return false;
      }
    },
    async brands() {
      return (await products()).map(brandOf);
    },
    async catalogue(categoryId) {
      if (!/^\d{1,15}$/.test(categoryId)) return null;
      const product = await read(
        `/products/${categoryId}`,
        productSchema,
        // 400 PRODUCT_NOT_FOUND (R7), or the same message with a null code (R3, R8).
        (response) => response.status === 404 || (response.status === 400 && isNoProduct(errorOf(response))),
      );
      return product && cardsOf(product);
    },
    order,
    status,
    balance,
    funds,
    close: async () => {
      await Promise.all([authHttp.close(), apiHttp.close()]);
    },
    destroy: async () => {
      await Promise.all([authHttp.destroy(), apiHttp.destroy()]);
    },
  };
}
