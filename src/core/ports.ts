/**
 * What the core needs from the outside world. src/upstream implements these over HTTP; the core never
 * sees a URL, a status code or a socket.
 */

/** What an upstream said about a delivery. `unknown` (timeout, ambiguous answer) is not a failure. */
export type UpstreamOutcome =
  | { kind: "completed"; transactionId: string }
  | { kind: "failed"; error: string; errorCode?: string }
  | { kind: "pending" }
  | { kind: "unknown"; error: string };

/** An upstream's answer to "what happened to the order with this reference?". */
export type UpstreamStatus = UpstreamOutcome | { kind: "not_found" };

export interface RecipientProfile {
  username: string;
  name: string;
  photo: string;
  /** Only meaningful for premium: null when the provider cannot tell. */
  premium: boolean | null;
}

export type SearchProduct = "stars" | "premium" | "ads";

export interface Provider {
  /** False when the deployment has no address for this provider: its products answer 503. */
  readonly configured: boolean;
  ready(): Promise<boolean>;
}

export interface GatewayPort extends Provider {
  /** Null when the recipient does not exist. Throws UpstreamError when the provider cannot answer. */
  search(query: string, product: SearchProduct): Promise<RecipientProfile | null>;
  deliver(order: { reference: string; product: "stars" | "premium"; username: string; amount: number }): Promise<UpstreamOutcome>;
  status(reference: string): Promise<UpstreamStatus>;
}

export interface RatesPort extends Provider {
  /** USD per TON. Throws UpstreamError when the source cannot answer. */
  tonUsd(): Promise<number>;
}

export class UpstreamError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = "UpstreamError";
  }
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
