import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, buy, type Check, type Me, type Purchase, type Quote } from "./api.js";
import { telegram } from "./telegram.js";
import { fromMicro, toMicro } from "./money.js";
import { creditOf, creditText, starsFor, starsPaymentText, useStarsPayment } from "./stars.js";
import { Amount, type Ctx, failure, html, MainAction, Outcome, useCheck, usdt } from "./ui.js";

/** Refusals of a purchase that mean "the price or the quote moved": the user is asked again, at the new price. */
const ASK_AGAIN = new Set(["price_changed", "quote_expired", "quote_used", "quote_not_found", "quote_mismatch"]);

/** `balance`: the balance as a refusal for want of funds found it (newer than the check's). */
type Step =
  { kind: "form" } | { kind: "quoted"; quote: Quote; idempotencyKey: string; balance?: number; note?: string } | { kind: "refused"; message: string };

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
  const stars = useStarsPayment(ctx);
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
      await place(quoted);
    } catch (error) {
      telegram.haptic("error");
      const again = error instanceof ApiError && error.code !== null && ASK_AGAIN.has(error.code);
      // Short of funds, and Stars can cover it: the same quote again, with the one-step top-up offered.
      if (error instanceof ApiError && error.status === 402 && ctx.me.stars_topup) {
        const me = await api.get<Me>("/miniapp/me").catch(() => null);
        if (me) return setStep({ ...quoted, balance: me.balance_usdt });
      }
      setStep({ kind: "refused", message: again ? `${failure(t, error)} ${t.askAgain}` : failure(t, error) });
    } finally {
      busy.current = false;
    }
  }

  /** Buys at the quote with its idempotency key and opens the order. */
  async function place(quoted: Extract<Step, { kind: "quoted" }>) {
    const order = await buy(api, purchase!, quoted.quote.quote_id, quoted.idempotencyKey);
    telegram.haptic(order.status === "failed" ? "error" : "success");
    await ctx.refresh();
    ctx.finish({ name: "order", id: order.order_id, product: purchase!.product_type, bought: true });
  }

  /**
   * The balance short: `count` Stars paid in Telegram's form, and once the bot has credited them the same order is
   * placed with the same idempotency key (it cannot be bought twice). A quote that lapsed meanwhile is asked again
   * and bought only at the same charge; a moved price is said, and the credit stays on the balance.
   */
  async function topUpAndBuy(quoted: Extract<Step, { kind: "quoted" }>, count: number) {
    if (!purchase || busy.current) return;
    busy.current = true;
    try {
      // The balance now, not as the form read it: a payment credited late, or spent elsewhere, changes what is short.
      const me = await api.get<Me>("/miniapp/me").catch(() => null);
      const offer = me?.stars_topup;
      if (me && offer) {
        const shortMicro = toMicro(quoted.quote.charge_usdt) - toMicro(me.balance_usdt);
        if (shortMicro <= 0) return await place(quoted);
        if (starsFor(offer, shortMicro) !== count) return setStep({ ...quoted, balance: me.balance_usdt });
      }
      if (!(await stars.pay(count))) return;
      try {
        await place(quoted);
      } catch (error) {
        if (!(error instanceof ApiError && error.code !== null && ASK_AGAIN.has(error.code))) throw error;
        const fresh = await api.post<Quote>("/v1/quotes", purchase);
        if (toMicro(fresh.charge_usdt) !== toMicro(quoted.quote.charge_usdt)) {
          // Asked again at the new price, against the balance with the credit on it.
          const now = await api.get<Me>("/miniapp/me").catch(() => null);
          telegram.haptic("warning");
          setStep({
            kind: "quoted",
            quote: fresh,
            idempotencyKey: crypto.randomUUID(),
            ...(now ? { balance: now.balance_usdt } : {}),
            note: t.priceMovedKept(usdt(fresh.charge_usdt)),
          });
          return;
        }
        await place({ ...quoted, quote: fresh });
      }
    } catch (error) {
      telegram.haptic("error");
      setStep({ kind: "refused", message: failure(t, error) });
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
    const balance = step.balance ?? (check.kind === "ok" ? check.value.balance_usdt : ctx.me.balance_usdt);
    const parts = breakdown?.(q.charge_usdt);
    const offer = ctx.me.stars_topup;
    const shortMicro = toMicro(q.charge_usdt) - toMicro(balance);
    const count = shortMicro > 0 && offer ? starsFor(offer, shortMicro) : null;
    const said = starsPaymentText(ctx, stars.state);
    // Short and topped up in Stars: the balance after both.
    const after = fromMicro((count !== null && offer ? creditOf(offer, count) : 0) - shortMicro);
    const action =
      count !== null && offer
        ? html`<p class="muted" data-testid="shortfall">${t.shortfall(creditText(shortMicro), count, creditText(creditOf(offer, count)))}</p>
            <${MainAction} text=${t.topUpAndBuy(count)} onPress=${() => topUpAndBuy(step, count)} testId="topup-and-buy" />`
        : html`${shortMicro > 0 && html`<p class="muted" data-testid="shortfall">${t.shortfallTooBig(creditText(shortMicro))}</p>`}
            <${MainAction} text=${t.payNow(q.charge_usdt)} onPress=${() => confirm(step)} testId="confirm" />`;
    return html`<div class="quote" data-testid="quote">
      <p class="quote-line"><span>${t.recipientIs}: </span><strong>${recipientName ?? q.recipient}</strong></p>
      <p class="quote-line"><span>${`${t.charge}: `}</span><strong class="amount big">${usdt(q.charge_usdt)}</strong></p>
      ${parts && html`<p class="muted">${parts}</p>`}
      <p class="muted">
        ${`${t.balanceAfter}: `}<${Amount} text=${usdt(after)} />${` · ${t.quoteHeld(new Date(q.expires_at).toLocaleTimeString(ctx.language))}`}
      </p>
      ${step.note && html`<${Outcome} kind="info" text=${step.note} testId="price-moved" />`} ${action}
      ${said && html`<${Outcome} kind=${said.kind} text=${said.text} testId="stars-status" />`}
      <button type="button" class="secondary" onClick=${() => setStep({ kind: "form" })}>${t.change}</button>
    </div>`;
  }
  return html`<div>
    ${checked} ${step.kind === "refused" && html`<${Outcome} kind="error" text=${step.message} testId="refusal" />`}
    <${MainAction} text=${t.getPrice} active=${check.kind === "ok"} onPress=${quote} testId="get-price" />
  </div>`;
}
