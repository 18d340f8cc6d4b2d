import type { Micro, MicroUsd } from "./money.js";
import type { Reason } from "./reasons.js";

/**
 * The closed set of failures the core reports. Faces map each code to their own medium in one place
 * (HTTP status in src/api/errors.ts, a translated reply in src/bot/refusals.ts).
 */
export type ErrorCode =
  | "invalid_input"
  | "unauthorized"
  | "key_blocked"
  // A working caller asking for what is not theirs (a user who is not an administrator at the admin desk).
  | "forbidden"
  | "not_found"
  | "insufficient_funds"
  | "rate_limited"
  | "upstream_failed"
  | "unavailable";

/** Which administrator rule refused an admin operation (no API client ever meets these), for faces to word it. */
type AdminRule =
  | "no_account"
  | "ambiguous_target"
  | "owner_key"
  | "owner_topup"
  | "amount_bound"
  | "balance_bound"
  | "holds_balance"
  | "markup_range"
  | "confirm_needed"
  // A credit, debit or wallet set above ADMIN_CONFIRM_ABOVE_USDT, not confirmed (maxMicro: the threshold).
  | "move_unconfirmed"
  // An administrator blocking their own account.
  | "self_block"
  | "stars_refund";

export interface ErrorDetails {
  reason?: Reason;
  rule?: AdminRule;
  /** insufficient_funds: what the order needs; price_changed: the charge it would have now. */
  requiredMicro?: Micro;
  balanceMicro?: Micro;
  /** invalid_amount: the limits, in USDT (top-ups, ledger bounds) or in USD (the store's nominal). */
  minMicro?: Micro | MicroUsd;
  maxMicro?: Micro | MicroUsd;
  retryAfterSeconds?: number;
  /** confirm_needed: why approving a transfer needs a second, confirmed step. */
  confirm?: Array<"above_threshold" | "reference_reused">;
  /** ambiguous_target: the accounts a target could mean, as `<telegram id> @<username>`. */
  candidates?: string[];
  /** stars_refund: why a Stars top-up's refund did not go ahead, for the faces to word it. */
  refund?: StarsRefundRefusal;
}

/** Why an administrator's refund of a Stars top-up was refused (or is left under way: no_answer). */
export type StarsRefundRefusal = "not_stars" | "refunded" | "not_paid" | "changed" | "under_way" | "spent" | "telegram_refused" | "no_answer";

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    /** What the engine or a library said (a database fault): logged, never shown to the caller. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "DomainError";
  }
}

export const invalid = (message: string, details: ErrorDetails = {}) => new DomainError("invalid_input", message, details);
export const notFound = (message: string, details: ErrorDetails = {}) => new DomainError("not_found", message, details);
/** A database fault made the core's 503 (src/db/faults.ts): a caller meeting one gives up at once, retrying nothing. */
export const isDatabaseUnavailable = (error: unknown): boolean => error instanceof DomainError && error.details.reason === "database_unavailable";

export const unavailable = (message: string, details: ErrorDetails = {}, cause?: unknown) => new DomainError("unavailable", message, details, cause);

/** How a database failed to do its part (db/faults.ts tells them apart; the `database` alert names it). */
export type FaultKind = "timeout" | "unreachable" | "full" | "busy" | "io";
