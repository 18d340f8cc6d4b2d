import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, buy, type Check, type Purchase, type Quote } from "./api.js";
import { telegram } from "./telegram.js";
import { minus } from "./money.js";
import { type Ctx, failure, html, MainAction, Outcome, useCheck, usdt } from "./ui.js";

/** Refusals of a purchase that mean "the price or the quote moved": the user is asked again, at the new price. */
const ASK_AGAIN = new Set(["price_changed", "quote_expired", "quote_used", "quote_not_found", "quote_mismatch"]);

type Step = { kind: "form" } | { kind: "quoted"; quote: Quote; idempotencyKey: string } | { kind: "refused"; message: string };

/**
 * Every product's checkout: the form's purchase checked as the user types (the core's rules and charge, nothing
 * stored), then the core's binding quote (the exact charge, broken down, the balance after), then Confirm with one
 * idempotency key per confirmation (a double tap buys once; a moved price asks again). The order opens when bought.
 */
export function Checkout({ ctx, purchase, breakdown }: { ctx: Ctx; purchase: Purchase | null; breakdown?: (charge: number) => string | null }) {
  const { api, t } = ctx;
  const key = purchase ? JSON.stringify(purchase) : null;
  const check = useCheck<Check>(key, () => api.post<Check>("/miniapp/check", purchase!));
  const [step, setStep] = useState<Step>({ kind: "form" });
  const busy = useRef(false);
  // A changed form drops the quote: it was for the old one.
  useEffect(() => setStep({ kind: "form" }), [key]);

  async function quote() {
    if (!purchase || busy.current) return;
    busy.current = true;
    try {
      const quoted = await api.post<Quote>("/v1/quotes", purchase);
      setStep({ kind: "quoted", quote: quoted, idempotencyKey: crypto.randomUUID() });
    } catch (error) {
      telegram.haptic("error");
      setStep({ kind: "refused", message: failure(t, error) });
    } finally {
      busy.current = false;
    }
  }

  async function confirm(quoted: Extract<Step, { kind: "quoted" }>) {
    if (!purchase || busy.current) return;
    busy.current = true;
    try {
      const order = await buy(api, purchase, quoted.quote.quote_id, quoted.idempotencyKey);
      telegram.haptic(order.status === "failed" ? "error" : "success");
      await ctx.refresh();
      ctx.go({ name: "order", id: order.order_id, product: purchase.product_type });
    } catch (error) {
      telegram.haptic("error");
      const again = error instanceof ApiError && error.code !== null && ASK_AGAIN.has(error.code);
      setStep({ kind: "refused", message: again ? `${failure(t, error)} ${t.askAgain}` : failure(t, error) });
    } finally {
      busy.current = false;
    }
  }

  const checked =
    check.kind === "checking"
      ? html`<p class="muted" data-testid="check">${t.checking}</p>`
      : check.kind === "error"
        ? html`<${Outcome} kind="error" text=${check.message} testId="check" />`
        : check.kind === "ok"
          ? html`<p class="muted" data-testid="check">
              ${`${check.value.recipient} · ${usdt(check.value.charge_usdt)} · ${t.balanceAfter} ${usdt(check.value.balance_after_usdt)}`}
            </p>`
          : null;

  if (step.kind === "quoted") {
    const { quote: q } = step;
    // The balance as the service read it for this form (an administrator may have moved it since the page loaded).
    const balance = check.kind === "ok" ? check.value.balance_usdt : ctx.me.balance_usdt;
    const parts = breakdown?.(q.charge_usdt);
    return html`<div class="quote" data-testid="quote">
      <p>${t.recipientIs}: <strong>${q.recipient}</strong></p>
      <p>${`${t.charge}: `}<strong>${usdt(q.charge_usdt)}</strong></p>
      ${parts && html`<p class="muted">${parts}</p>`}
      <p class="muted">
        ${`${t.balanceAfter}: ${usdt(minus(balance, q.charge_usdt))} · ${t.quoteHeld(new Date(q.expires_at).toLocaleTimeString(ctx.language))}`}
      </p>
      <${MainAction} text=${`${t.confirm} ${usdt(q.charge_usdt)}`} onPress=${() => confirm(step)} testId="confirm" />
      <button type="button" class="secondary" onClick=${() => setStep({ kind: "form" })}>${t.change}</button>
    </div>`;
  }
  return html`<div>
    ${checked} ${step.kind === "refused" && html`<${Outcome} kind="error" text=${step.message} testId="refusal" />`}
    <${MainAction} text=${t.getPrice} active=${check.kind === "ok"} onPress=${quote} testId="get-price" />
  </div>`;
}
