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

/** Why an administrator's refund of a Stars top-up was refused (or is left under way: no_answer). */
export type StarsRefundRefusal = "not_stars" | "refunded" | "not_paid" | "changed" | "under_way" | "spent" | "telegram_refused" | "no_answer";

/** A refusal that carries nothing beyond its code (and message). */
type None = Record<string, never>;

/** What an order or a debit needs, and what the balance (or a per-order limit) allows. */
interface Shortfall {
  requiredMicro: Micro;
  balanceMicro: Micro;
}

/** A Stars top-up's refund refused; `spent` says what the refund needs and what the balance holds. */
type StarsRefundDetails =
  { rule: "stars_refund"; refund: Exclude<StarsRefundRefusal, "spent" | "no_answer"> } | ({ rule: "stars_refund"; refund: "spent" } & Shortfall);

/** Bad input: plain (the message names the field), or with the reason or administrator rule faces word it by. */
type InvalidInputDetails =
  | None
  /** The store's nominal outside the range that refused it (the live limits, or any nominal's own), in USD. */
  | { reason: "invalid_amount"; minMicro: MicroUsd; maxMicro: MicroUsd }
  /** The charge the order would have now, above the confirmed one. */
  | { reason: "price_changed"; requiredMicro: Micro }
  | { reason: "login_not_supported" | "recipient_refuses" | "quote_not_found" | "quote_expired" | "quote_used" | "quote_mismatch" }
  /** A top-up outside its bounds, in USDT. */
  | { minMicro: Micro; maxMicro: Micro }
  /** A bound on an admin move; `move_unconfirmed`: above ADMIN_CONFIRM_ABOVE_USDT and not confirmed (the threshold). */
  | { rule: "amount_bound" | "balance_bound" | "move_unconfirmed"; maxMicro: Micro }
  /** `self_block`: an administrator blocking their own account. */
  | { rule: "owner_key" | "owner_topup" | "holds_balance" | "markup_range" | "self_block" }
  /** The accounts a target could mean, as `<telegram id> @<username>`. */
  | { rule: "ambiguous_target"; candidates: string[] }
  /** Why approving a transfer needs a second, confirmed step. */
  | { rule: "confirm_needed"; confirm: Array<"above_threshold" | "reference_reused"> }
  | StarsRefundDetails;

/**
 * What each code's refusal carries: a code's amounts are always there (no face fills a missing one), and a code
 * with nothing to say carries nothing. Faces read them by code, then by reason or rule.
 */
interface DetailsByCode {
  invalid_input: InvalidInputDetails;
  unauthorized: None;
  key_blocked: None;
  forbidden: None;
  not_found: None | { reason: "order_not_found" } | { rule: "no_account" };
  insufficient_funds: Shortfall;
  rate_limited: { retryAfterSeconds: number };
  upstream_failed: None;
  unavailable:
    | None
    | { reason: "disabled" | "provider_unavailable" | "provider_balance" | "database_unavailable" }
    | { rule: "stars_refund"; refund: "no_answer" };
}

export type ErrorDetails<C extends ErrorCode = ErrorCode> = DetailsByCode[C];

/** A refusal as plain data, its details narrowed by its code (conversation replays keep JSON, not error classes). */
export type Refusal = { [C in ErrorCode]: { code: C; details: DetailsByCode[C] } }[ErrorCode];

/** The machine-readable reason a refusal carries, if it carries one. */
export const reasonIn = (details: ErrorDetails): Reason | undefined => ("reason" in details ? details.reason : undefined);

/** The administrator rule a refusal carries, if it carries one. */
export const ruleIn = (details: ErrorDetails) => ("rule" in details ? details.rule : undefined);

/** A code whose details may be left out is one that may carry nothing; any other takes its details. */
type DetailsArgs<C extends ErrorCode> =
  Record<never, never> extends DetailsByCode[C] ? [details?: DetailsByCode[C], cause?: unknown] : [details: DetailsByCode[C], cause?: unknown];

/** A code, its message, and that code's details: one tuple per code, so a code cannot be given another's details. */
type DomainErrorArgs = { [C in ErrorCode]: [code: C, message: string, ...DetailsArgs<C>] }[ErrorCode];

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  /** `cause`: what the engine or a library said (a database fault): logged, never shown to the caller. */
  constructor(...[code, message, details, cause]: DomainErrorArgs) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "DomainError";
    this.code = code;
    this.details = details ?? {};
  }

  /** Code and details as one value, for a face to narrow the details by the code. */
  get refusal(): Refusal {
    // The constructor took the details of this code.
    return { code: this.code, details: this.details } as Refusal;
  }
}

/** Whether `error` is the core's refusal with `code`: its details are then that code's. */
export const isRefusal = <C extends ErrorCode>(
  error: unknown,
  code: C,
): error is DomainError & { readonly code: C; readonly details: DetailsByCode[C] } => error instanceof DomainError && error.code === code;

export const invalid = (message: string, details?: ErrorDetails<"invalid_input">) => new DomainError("invalid_input", message, details);
export const notFound = (message: string, details?: ErrorDetails<"not_found">) => new DomainError("not_found", message, details);
/** A database fault made the core's 503 (src/db/faults.ts): a caller meeting one gives up at once, retrying nothing. */
export const isDatabaseUnavailable = (error: unknown): boolean =>
  isRefusal(error, "unavailable") && reasonIn(error.details) === "database_unavailable";

export const unavailable = (message: string, details?: ErrorDetails<"unavailable">, cause?: unknown) =>
  new DomainError("unavailable", message, details, cause);

/** How a database failed to do its part (db/faults.ts tells them apart; the `database` alert names it). */
export type FaultKind = "timeout" | "unreachable" | "full" | "busy" | "io";
