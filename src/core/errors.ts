import { UpstreamError } from "./ports.js";
import type { Micro } from "./money.js";

/**
 * The closed set of failures the core reports. Faces map each code to their own medium in one place
 * (HTTP status in src/api/errors.ts, a reply text in the bot).
 */
export type ErrorCode =
  "invalid_input" | "unauthorized" | "key_blocked" | "not_found" | "insufficient_funds" | "rate_limited" | "upstream_failed" | "unavailable";

export interface ErrorDetails {
  /** Machine-readable reason where the contract has one (store `error_code`, gifts `recipient_refuses`). */
  errorCode?: string;
  requiredMicro?: Micro;
  balanceMicro?: Micro;
  retryAfterSeconds?: number;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const invalid = (message: string, errorCode?: string) => new DomainError("invalid_input", message, errorCode ? { errorCode } : {});
export const notFound = (message: string) => new DomainError("not_found", message);
export const unavailable = (message: string) => new DomainError("unavailable", message);

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
