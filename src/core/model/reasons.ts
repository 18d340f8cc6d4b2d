/**
 * Machine-readable reasons: exactly the contract's `error_code` values, plus `price_changed` for the
 * confirmed-price guard (`max_usdt`) and the `quote_*` refusals of a purchase naming a binding quote
 * (`quote_id`), and `database_unavailable` for a 503 whose database cannot do its part now (src/db/faults.ts).
 * Provider answers are mapped into this set; anything else is `provider_error`.
 */
export const REASONS = [
  "login_not_supported",
  "invalid_amount",
  "provider_error",
  "provider_balance",
  "provider_unavailable",
  "order_not_found",
  "expired",
  "disabled",
  "recipient_refuses",
  "price_changed",
  "quote_not_found",
  "quote_expired",
  "quote_used",
  "quote_mismatch",
  "database_unavailable",
] as const;
export type Reason = (typeof REASONS)[number];

/** A provider's own code as one of ours: known ones keep their meaning, anything else is a provider error. */
export function reasonOf(code: string | null | undefined): Reason {
  return (REASONS as readonly string[]).includes(code ?? "") ? (code as Reason) : "provider_error";
}
