import type { ErrorCode, ErrorDetails } from "../core/model/errors.js";
import type { Reason } from "../core/model/reasons.js";
import { type Translate, usdt } from "./format.js";

/** A refused core call as plain data: conversation replays keep JSON, not error classes. */
export interface Refusal {
  code: ErrorCode;
  details: ErrorDetails;
}

/**
 * The one place a refusal becomes words: by its machine-readable reason when it has one (the reason, then
 * "nothing was charged"), else by its code; always in the user's language, never the core's English message.
 */
export function refusalText(t: Translate, refusal: Refusal): string {
  const { details } = refusal;
  const money = {
    needed: usdt(details.requiredMicro ?? 0),
    balance: usdt(details.balanceMicro ?? 0),
    min: usdt(details.minMicro ?? 0),
    max: usdt(details.maxMicro ?? 0),
  };
  const reason: Reason | undefined = details.reason;
  // Said whole: a purchase cut short by the database may have been charged (it is then settled or refunded by itself).
  if (reason === "database_unavailable") return t("reason-database_unavailable");
  if (reason) return t("refusal", { reason: t(`reason-${reason}`, money) });
  // A Stars refund says which of its refusals it met (spent, refunded already, Telegram refused…).
  if (details.rule === "stars_refund" && details.refund) return t(`rule-stars_refund-${details.refund}`, money);
  if (details.rule) return t(`rule-${details.rule}`, { ...money, candidates: (details.candidates ?? []).join(", ") });
  return t(`refused-${refusal.code}`, money);
}
