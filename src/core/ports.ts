import type { Reason } from "./model/reasons.js";
import type { Micro, MicroUsd } from "./model/money.js";
import { unavailable } from "./model/errors.js";
import type { OrderPortName } from "./model/order.js";

/**
 * What the core needs from the outside world. src/upstream implements these over HTTP; the core never
 * sees a URL, a status code or a socket.
 */

/** Provider-side identifiers an answer may carry, kept on the order. */
/**
 * Runs a piece of background work (a reconciler pass, a webhook delivery) under a name of its own, so that
 * what it logs and the provider calls it makes can be told apart from other work. The core only names it.
 */
export type BackgroundScope = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/** No naming: the work just runs. */
export const unnamed: BackgroundScope = (_name, work) => work();

interface ProviderFields {
  providerOrderId?: string;
  providerStatus?: string;
}

/** What an upstream said about an order. `unknown` (timeout, ambiguous answer) is not a failure. */
export type UpstreamOutcome =
  | ({ kind: "completed"; transactionId?: string; codes?: string[] } & ProviderFields)
  | ({ kind: "failed"; error: string; reason?: Reason } & ProviderFields)
  | ({ kind: "pending" } & ProviderFields)
  | { kind: "unknown"; error: string };

/**
 * An upstream's answer to "what happened to the order with this reference?". `ambiguous`: the backend's records
 * cannot tell this order's delivery from another's without guessing; the order is held for an administrator.
 */
export type UpstreamStatus = UpstreamOutcome | { kind: "not_found" } | { kind: "ambiguous"; error: string };

export interface RecipientProfile {
  username: string;
  name: string;
  photo: string;
  /** Only meaningful for premium: null when the provider cannot tell. */
  premium: boolean | null;
}

export type SearchProduct = "stars" | "premium" | "ads";

/** What a backend pays deliveries from, in its own unit: the bot's Telegram Stars, a Reloadly account's USD. */
export interface Funds {
  amount: number;
  unit: "stars" | "USD";
}

interface Provider {
  /** False when the deployment has no address for this provider: its products answer 503. */
  readonly configured: boolean;
  ready(): Promise<boolean>;
  /** The backend's own balance, where it pays from one (health, alerts, preflight). Throws UpstreamError when it cannot answer. */
  funds?(): Promise<Funds>;
}

/**
 * A delivery the backend cannot make now, found before the charge (nothing is charged); or the recipient as the
 * backend addresses them (Telegram: the user id), fixed on the order so nothing resolves the name again; or nothing to say.
 */
export type Precheck = { refused: "recipient_unknown" | "funds"; message: string } | { recipientId: string } | null;

export interface GatewayPort extends Provider, OrderStatusSource {
  /** Null when the recipient does not exist. Throws UpstreamError when the provider cannot answer. */
  search(query: string, product: SearchProduct): Promise<RecipientProfile | null>;
  deliver(order: Delivery): Promise<UpstreamOutcome>;
  /**
   * Asked before the charge, where the backend can refuse a delivery up front (Telegram: a recipient the bot does
   * not know, a Star balance short of the price). Absent: nothing to ask, and the purchase prepares offline.
   */
  precheck?(order: Omit<Delivery, "reference">): Promise<Precheck>;
}

export interface Delivery {
  reference: string;
  product: "stars" | "premium";
  username: string;
  /** Stars, or months of Premium. */
  amount: number;
  /** The recipient as the backend addresses them, from its precheck (null where it has none). */
  recipientId: string | null;
}

export interface RatesPort extends Provider {
  /** USD per TON. Throws UpstreamError when the source cannot answer. */
  tonUsd(): Promise<number>;
}

/** The order a status question is about: what a backend that cannot look orders up by our reference matches by. */
export interface SentOrder {
  id: number;
  productType: string;
  recipient: string;
  details: unknown;
  /** When the order was placed (ISO 8601): nothing sent before it can be its delivery. */
  createdAt: string;
  /** The recipient as the backend addresses them, fixed before the charge; null for orders placed before it was kept. */
  recipientId: string | null;
}

/** "What happened to the order with this reference?"; `order` is always given by the core (tests may leave it out). */
export type StatusQuestion = (reference: string, order?: SentOrder) => Promise<UpstreamStatus>;

/** Every asynchronous provider answers "what happened to the order with this reference?" the same way. */
interface OrderStatusSource {
  status: StatusQuestion;
}

/** The store's nominals are in USD. */
export interface StoreLimits {
  minMicro: MicroUsd;
  maxMicro: MicroUsd;
  /** Provider fee as parts per million of the nominal (0.03 = 30000). */
  feePpm: number;
}

export interface StorePort extends Provider, OrderStatusSource {
  /** Live limits and fee. Throws UpstreamError when the provider cannot answer. */
  limits(): Promise<StoreLimits>;
  order(order: { reference: string; login: string; amountMicro: MicroUsd }): Promise<UpstreamOutcome>;
}

export interface GameInfo {
  code: string;
  name: string;
  imageUrl: string | null;
  requiredFields: string[];
  notes: string | null;
  servers: Record<string, string> | null;
}

export interface GameDenomination {
  name: string;
  /** What the provider charges us, in USD. */
  costMicro: MicroUsd;
  etaSeconds: number;
}

type PlayerCheck = { valid: true; playerName: string } | { valid: false; reason: string };

export interface GamesPort extends Provider, OrderStatusSource {
  list(): Promise<GameInfo[]>;
  /** Null when the provider does not know the game. */
  catalogue(code: string): Promise<GameDenomination[] | null>;
  checkPlayer(code: string, playerId: string, serverId: string | null): Promise<PlayerCheck>;
  order(order: { reference: string; gameCode: string; denomination: string; playerId: string; serverId: string | null }): Promise<UpstreamOutcome>;
}

export interface GiftcardBrand {
  categoryId: string;
  name: string;
  notes: string | null;
}

export interface GiftcardDenomination {
  cardId: string;
  name: string;
  /** What the provider charges us, in USD. */
  costMicro: MicroUsd;
  stock: number;
  minQuantity: number;
  maxQuantity: number;
}

export interface GiftcardsPort extends Provider, OrderStatusSource {
  brands(): Promise<GiftcardBrand[]>;
  /** Null when the provider does not know the brand. */
  catalogue(categoryId: string): Promise<GiftcardDenomination[] | null>;
  order(order: { reference: string; categoryId: string; cardId: string; quantity: number }): Promise<UpstreamOutcome>;
}

interface GiftItem {
  /** A 64-bit number, always a string. */
  giftId: string;
  stars: number;
  emoji: string;
  limited: boolean;
  /** Null when unlimited; 0 when sold out. */
  remaining: number | null;
}

export interface GiftsPort extends Provider, OrderStatusSource {
  catalogue(): Promise<GiftItem[]>;
  /** `gift` says which class the recipient must accept (a backend may tell limited gifts apart). */
  checkRecipient(
    recipient: string,
    gift?: { limited: boolean },
  ): Promise<{ exists: boolean; acceptsGifts: boolean; why?: string; recipientId?: string }>;
  /** The longest message this backend delivers with a gift (the contract's 255, Telegram's 128). */
  readonly messageMax: number;
  /** Whether a gift can show who bought it (`hide_name` then decides); Telegram's bot is always the sender shown. */
  readonly namesBuyer: boolean;
  send(order: {
    reference: string;
    recipient: string;
    /** From checkRecipient, before the charge: where a backend addresses recipients by id, the send goes there. */
    recipientId: string | null;
    giftId: string;
    hideName: boolean;
    message: string;
  }): Promise<UpstreamOutcome>;
  /** The Lottie animation, or null when there is none. */
  sticker(giftId: string): Promise<unknown | null>;
}

/** The protocol's providers, by the name their address (`GATEWAY_URL`, …) and their calls' metrics use. */
export const PROVIDER_NAMES = ["gateway", "rates", "store", "games", "giftcards", "gifts"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * One port per product (stars and Premium apart, whatever backs each), and the TON rate's source: what readiness,
 * funds, alerts and preflight report, each under its own name and backend.
 */
interface PortTypes {
  stars: GatewayPort;
  premium: GatewayPort;
  store: StorePort;
  games: GamesPort;
  giftcards: GiftcardsPort;
  gifts: GiftsPort;
  rates: RatesPort;
}
/** Each port with what backs it (`protocol`, `telegram`, `reloadly`): health, alerts and preflight name it beside the product. */
export type Ports = { [N in keyof PortTypes]: PortTypes[N] & { readonly backend: string } };
export const PORT_NAMES = ["stars", "premium", "store", "games", "giftcards", "gifts", "rates"] as const satisfies ReadonlyArray<keyof Ports>;
export type PortName = (typeof PORT_NAMES)[number];

/** The ports whose orders are settled by asking "what happened to the order with this reference?". */
type StatusSourceName = { [N in PortName]: PortTypes[N] extends OrderStatusSource ? N : never }[PortName];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The model's list of the ports that settle orders is exactly those: a port added to one is added to the other.
true satisfies Same<StatusSourceName, OrderPortName>;

/** A Crypto Pay invoice as the core sees it (amounts in micro-units of its asset). */
export interface CryptoInvoice {
  invoiceId: number;
  status: "active" | "paid" | "expired";
  /** `crypto` (an amount in `asset`) or `fiat`; we only make crypto invoices in USDT. */
  currencyType: string | null;
  asset: string | null;
  amountMicro: Micro;
  /** What was paid, in `paidAsset`; null until paid. */
  paidAmountMicro: Micro | null;
  paidAsset: string | null;
  /** Our payload, returned as we sent it. */
  payload: string | null;
  /** The link the payer opens (the bot's), and the Mini App's. */
  payUrl: string;
  webAppUrl: string | null;
  expiresAt: string | null;
  paidAt: string | null;
}

/** The payment provider that takes money in: Crypto Pay, the API of @CryptoBot. */
export interface CryptoPayPort extends Provider {
  /** Throws UpstreamError when the provider cannot answer or refuses. */
  createInvoice(invoice: { amountMicro: Micro; description: string; payload: string; expiresInSeconds: number }): Promise<CryptoInvoice>;
  /**
   * The invoices with these ids that the provider still has: its own record, the only one money is credited by.
   * An item that does not read as an invoice is left out of `found` (logged, its id in `unreadable`), so one odd
   * item cannot stall the rest, nor pass for an invoice the provider no longer has.
   */
  invoices(ids: number[]): Promise<{ found: CryptoInvoice[]; unreadable: number[] }>;
  /** The newest invoice carrying this payload among the app's latest `scan` invoices, or null. */
  findByPayload(payload: string, scan: number): Promise<CryptoInvoice | null>;
  deleteInvoice(invoiceId: number): Promise<void>;
  /**
   * A webhook as it arrived: `forged` when its signature does not verify over the raw body (constant time); else
   * the invoice a paid update names (a claim, checked against `invoices` before anything is credited), null for
   * an update of another kind, or `malformed` for a signed body that does not read as an update.
   */
  readWebhook(rawBody: string, signature: string | undefined): { forged: true } | { malformed: string } | { invoice: CryptoInvoice | null };
}

/** An XTR invoice for a Stars top-up: one price, no provider token (docs/providers/telegram-bot-api.md P1). */
export interface StarInvoice {
  title: string;
  description: string;
  /** Names the top-up (at most 128 bytes): what the pre-checkout and the payment come back with. */
  payload: string;
  stars: number;
}

/** A Star transaction of the bot, in (positive) or out (negative), as getStarTransactions lists it. */
export interface StarTransactionRecord {
  id: string;
  stars: number;
  date: number;
  /** payment (a user paid an invoice), refund (a payment given back), gift, premium, or other. */
  kind: "payment" | "refund" | "gift" | "premium" | "other";
  userId: string | null;
  payload: string | null;
}

/** The bot's Telegram Stars as money in: invoice links, refunds, and the record of what was paid. */
export interface StarPaymentsPort {
  /** A link the Mini App opens with openInvoice (createInvoiceLink). Throws UpstreamError. */
  invoiceLink(invoice: StarInvoice): Promise<string>;
  /**
   * Gives a payment's Stars back (refundStarPayment): `refunded`, `already` when Telegram had refunded it, or
   * `refused` with Telegram's words when nothing was done. Throws UpstreamError when the outcome is unknown.
   */
  refund(userId: string, chargeId: string): Promise<"refunded" | "already" | { refused: string }>;
  /** The bot's Star transactions dated at or after `since` (unix seconds), oldest first. Throws UpstreamError. */
  transactions(since: number): Promise<StarTransactionRecord[]>;
  /** The bot's Star balance (getMyStarBalance), whole Stars. Throws UpstreamError. */
  balance(): Promise<number>;
}

/** One signed webhook POST. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** What came of it: the receiver's status, or why there was none (refused, timed out, address not allowed). */
export interface WebhookResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Sends webhooks to partners' endpoints; never throws (every failure is a result). */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResult>;
}

export class UpstreamError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "UpstreamError";
  }
}

/**
 * Reads from one provider: `unavailable` (503) with `missing` when the deployment has no such provider, with
 * `down` when it cannot answer; never a 500.
 */
export function providerReader(provider: { configured: boolean }, messages: { missing: string; down: string }) {
  return async <T>(read: () => Promise<T>): Promise<T> => {
    if (!provider.configured) throw unavailable(messages.missing);
    try {
      return await read();
    } catch (error) {
      if (error instanceof UpstreamError) throw unavailable(messages.down);
      throw error;
    }
  };
}
