import { type ErrorDetails, type Refusal, reasonIn, ruleIn } from "../core/model/errors.js";
import { type Translate, usdt } from "./format.js";

export type { Refusal };

/** The amounts a refusal's words may name, each only from details that carry it. */
function amounts(details: ErrorDetails): Record<string, string> {
  const vars: Record<string, string> = {};
  if ("requiredMicro" in details) vars.needed = usdt(details.requiredMicro);
  if ("balanceMicro" in details) vars.balance = usdt(details.balanceMicro);
  if ("minMicro" in details) vars.min = usdt(details.minMicro);
  if ("maxMicro" in details) vars.max = usdt(details.maxMicro);
  return vars;
}

/**
 * The one place a refusal becomes words: by its machine-readable reason when it has one (the reason, then
 * "nothing was charged"), else by its rule, else by its code; always in the user's language, never the core's English message.
 */
export function refusalText(t: Translate, refusal: Refusal): string {
  const { details } = refusal;
  const money = amounts(details);
  const reason = reasonIn(details);
  // Said whole: a purchase cut short by the database may have been charged (it is then settled or refunded by itself).
  if (reason === "database_unavailable") return t("reason-database_unavailable");
  if (reason) return t("refusal", { reason: t(`reason-${reason}`, money) });
  // A Stars refund says which of its refusals it met (spent, refunded already, Telegram refused…).
  if ("refund" in details) return t(`rule-stars_refund-${details.refund}`, money);
  if ("candidates" in details) return t("rule-ambiguous_target", { candidates: details.candidates.join(", ") });
  const rule = ruleIn(details);
  if (rule) return t(`rule-${rule}`, money);
  return t(`refused-${refusal.code}`, money);
}
