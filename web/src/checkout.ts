import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, buy, type Check, type Purchase, type Quote } from "./api.js";
import { telegram } from "./telegram.js";
import { minus } from "./money.js";
import { Amount, type Ctx, failure, html, MainAction, Outcome, useCheck, usdt } from "./ui.js";

/** Refusals of a purchase that mean "the price or the quote moved": the user is asked again, at the new price. */
const ASK_AGAIN = new Set(["price_changed", "quote_expired", "quote_used", "quote_not_found", "quote_mismatch"]);

type Step = { kind: "form" } | { kind: "quoted"; quote: Quote; idempotencyKey: string } | { kind: "refused"; message: string };

/**
 * Every product's checkout: the form's purchase checked as the user types (the core's rules and charge, nothing
 * stored), then the core's binding quote (the exact charge, broken down, the balance after), then Confirm with one
 * idempotency key per confirmation (a double tap buys once; a moved price asks again). The order opens when bought.
 * `auto` asks for the quote as soon as the check passes (a pack and a recipient tapped: the next tap pays), once per
 * purchase; `recipientName` names the recipient where the core names an id (a gift card's brand).
 */
export function Checkout({
  ctx,
  purchase,
  breakdown,
  auto = false,
  recipientName,
}: {
  ctx: Ctx;
  purchase: Purchase | null;
  breakdown?: (charge: number) => string | null;
  auto?: boolean;
  recipientName?: string;
}) {
  const { api, t } = ctx;
  const key = purchase ? JSON.stringify(purchase) : null;
  const check = useCheck<Check>(key, () => api.post<Check>("/miniapp/check", purchase!));
  const [step, setStep] = useState<Step>({ kind: "form" });
  const busy = useRef(false);
  // A changed form drops the quote: it was for the old one.
  useEffect(() => setStep({ kind: "form" }), [key]);
  const autoQuoted = useRef<string | null>(null);
  useEffect(() => {
    if (!auto || check.kind !== "ok" || autoQuoted.current === key) return;
    autoQuoted.current = key;
    void quote();
  }, [auto, check.kind, key]);

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
              ${recipientName ?? check.value.recipient} · <${Amount} text=${usdt(check.value.charge_usdt)} />${` · ${t.balanceAfter} `}<${Amount}
                text=${usdt(check.value.balance_after_usdt)}
              />
            </p>`
          : null;

  if (step.kind === "quoted") {
    const { quote: q } = step;
    // The balance as the service read it for this form (an administrator may have moved it since the page loaded).
    const balance = check.kind === "ok" ? check.value.balance_usdt : ctx.me.balance_usdt;
    const parts = breakdown?.(q.charge_usdt);
    return html`<div class="quote" data-testid="quote">
      <p class="quote-line"><span>${t.recipientIs}: </span><strong>${recipientName ?? q.recipient}</strong></p>
      <p class="quote-line"><span>${`${t.charge}: `}</span><strong class="amount big">${usdt(q.charge_usdt)}</strong></p>
      ${parts && html`<p class="muted">${parts}</p>`}
      <p class="muted">
        ${`${t.balanceAfter}: `}<${Amount}
          text=${usdt(minus(balance, q.charge_usdt))}
        />${` · ${t.quoteHeld(new Date(q.expires_at).toLocaleTimeString(ctx.language))}`}
      </p>
      <${MainAction} text=${t.payNow(q.charge_usdt)} onPress=${() => confirm(step)} testId="confirm" />
      <button type="button" class="secondary" onClick=${() => setStep({ kind: "form" })}>${t.change}</button>
    </div>`;
  }
  return html`<div>
    ${checked} ${step.kind === "refused" && html`<${Outcome} kind="error" text=${step.message} testId="refusal" />`}
    <${MainAction} text=${t.getPrice} active=${check.kind === "ok"} onPress=${quote} testId="get-price" />
  </div>`;
}
