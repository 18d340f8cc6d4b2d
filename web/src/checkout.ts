import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, buy, type Check, type Me, type Purchase, type Quote } from "./api.js";
import { telegram } from "./telegram.js";
import { fromMicro, toMicro } from "./money.js";
import { creditOf, creditText, starsFor, starsPaymentText, useStarsPayment } from "./stars.js";
import { Amount, type Ctx, failure, html, MainAction, Outcome, useCheck, usdt } from "./ui.js";

/** Refusals of a purchase that mean "the quote is spent or the price moved": a fresh quote is asked for. */
const ASK_AGAIN = new Set(["price_changed", "quote_expired", "quote_used", "quote_not_found"]);

/**
 * A quote with the purchase it was made for (`key`: that purchase as the form wrote it): Pay buys that purchase,
 * never a form changed since. `balance`: the balance as a refusal for want of funds found it (newer than the check's).
 */
type Quoted = { kind: "quoted"; purchase: Purchase; key: string; quote: Quote; idempotencyKey: string; balance?: number; note?: string };
type Step = { kind: "form" } | { kind: "quoting" } | Quoted | { kind: "refused"; message: string };

/**
 * Every product's checkout: the form's purchase checked as the user types (the core's rules and charge, nothing
 * stored), then, as soon as it passes, the core's binding quote (the exact charge, broken down, the balance after),
 * so the price is fixed before the last tap; then Pay, the screen's one main action (Telegram's MainButton inside
 * Telegram), with one idempotency key per quote shown (a double press buys once). Pay counts only once its label
 * and price have been on screen for a moment (MainAction); while the price comes it shows Telegram's loading
 * indicator instead. A spent quote is made again and bought only at the same charge; a moved price is shown and
 * asked again. `recipientName` names the recipient where the core names an id (a gift card's brand).
 */
export function Checkout({
  ctx,
  purchase,
  breakdown,
  recipientName,
}: {
  ctx: Ctx;
  purchase: Purchase | null;
  breakdown?: (charge: number) => string | null;
  recipientName?: string;
}) {
  const { api, t } = ctx;
  const key = purchase ? JSON.stringify(purchase) : null;
  // The recipient as the form shows it: a Telegram user as @username everywhere, never bare.
  const who = (recipient: string) =>
    recipientName ?? (purchase && ["stars", "premium", "gift"].includes(purchase.product_type) ? `@${recipient.replace(/^@/, "")}` : recipient);
  const check = useCheck<Check>(key, () => api.post<Check>("/miniapp/check", purchase!));
  const [step, setStep] = useState<Step>({ kind: "form" });
  const [paying, setPaying] = useState(false);
  const busy = useRef(false);
  const stars = useStarsPayment(ctx);
  const current = useRef(key);
  current.current = key;
  // A changed form drops the quote: it was for the old one.
  useEffect(() => setStep({ kind: "form" }), [key]);
  // Each passing check quoted once (a check's answer is a new object; the first render after a change still holds
  // the old one, already quoted).
  const quotedCheck = useRef<unknown>(null);
  useEffect(() => {
    if (check.kind !== "ok" || quotedCheck.current === check) return;
    quotedCheck.current = check;
    void quote(key);
  }, [check]);

  async function quote(forKey: string | null) {
    if (!purchase || forKey === null) return;
    const asked = purchase;
    setStep({ kind: "quoting" });
    try {
      const quoted = await api.post<Quote>("/v1/quotes", asked);
      if (current.current === forKey) setStep({ kind: "quoted", purchase: asked, key: forKey, quote: quoted, idempotencyKey: crypto.randomUUID() });
    } catch (error) {
      if (current.current !== forKey) return;
      telegram.haptic("error");
      setStep({ kind: "refused", message: failure(t, error) });
    }
  }

  /**
   * One purchase at a time: a second press while one is under way does nothing. A refusal is said; no answer at all
   * keeps the quote and its idempotency key, so Pay again replays the same purchase (it cannot buy twice).
   */
  async function once(quoted: Quoted, work: () => Promise<void>) {
    if (busy.current) return;
    busy.current = true;
    setPaying(true);
    try {
      await work();
    } catch (error) {
      telegram.haptic("error");
      setStep(error instanceof ApiError ? { kind: "refused", message: failure(t, error) } : { ...quoted, note: t.payUnanswered });
    } finally {
      busy.current = false;
      setPaying(false);
    }
  }

  const confirm = (quoted: Quoted) =>
    once(quoted, async () => {
      try {
        await placeOrAsk(quoted);
      } catch (error) {
        // Short of funds, and Stars can cover it: the same quote again, with the one-step top-up offered.
        if (!(error instanceof ApiError && error.status === 402 && ctx.me.stars_topup)) throw error;
        const me = await api.get<Me>("/miniapp/me").catch(() => null);
        if (!me) throw error;
        telegram.haptic("error");
        setStep({ ...quoted, balance: me.balance_usdt });
      }
    });

  /**
   * Buys at the quote; a quote spent meanwhile (it lapsed while the screen was open, or while Stars were paid) is
   * made again and bought only at the same charge. A moved price is shown, against the balance as it is now, and
   * Pay waits for it to be read.
   */
  async function placeOrAsk(quoted: Quoted, note = t.priceMoved) {
    try {
      await place(quoted);
    } catch (error) {
      if (!(error instanceof ApiError && error.code !== null && ASK_AGAIN.has(error.code))) throw error;
      const fresh = await api.post<Quote>("/v1/quotes", quoted.purchase);
      if (toMicro(fresh.charge_usdt) === toMicro(quoted.quote.charge_usdt)) return await place({ ...quoted, quote: fresh });
      const now = await api.get<Me>("/miniapp/me").catch(() => null);
      telegram.haptic("warning");
      setStep({
        kind: "quoted",
        purchase: quoted.purchase,
        key: quoted.key,
        quote: fresh,
        idempotencyKey: crypto.randomUUID(),
        ...(now ? { balance: now.balance_usdt } : {}),
        note: note(usdt(fresh.charge_usdt)),
      });
    }
  }

  /** Buys the quote's purchase at the quote with its idempotency key and opens the order as its result. */
  async function place(quoted: Quoted) {
    const order = await buy(api, quoted.purchase, quoted.quote.quote_id, quoted.idempotencyKey);
    telegram.haptic(order.status === "failed" ? "error" : "success");
    const balanceRead = await ctx.refresh();
    ctx.finish({ name: "order", id: order.order_id, product: quoted.purchase.product_type, bought: true, balanceRead });
  }

  /**
   * The balance short: `count` Stars paid in Telegram's form, and once the bot has credited them the same order is
   * placed with the same idempotency key (it cannot be bought twice); a moved price is said, and the credit stays
   * on the balance.
   */
  const topUpAndBuy = (quoted: Quoted, count: number) =>
    once(quoted, async () => {
      // The balance now, not as the form read it: a payment credited late, or spent elsewhere, changes what is short.
      const me = await api.get<Me>("/miniapp/me").catch(() => null);
      const offer = me?.stars_topup;
      if (me && offer) {
        const shortMicro = toMicro(quoted.quote.charge_usdt) - toMicro(me.balance_usdt);
        if (shortMicro <= 0) return await placeOrAsk(quoted);
        if (starsFor(offer, shortMicro) !== count) return setStep({ ...quoted, balance: me.balance_usdt });
      }
      if (!(await stars.pay(count))) return;
      await placeOrAsk(quoted, t.priceMovedKept);
    });

  const checked =
    check.kind === "checking"
      ? html`<p class="muted" data-testid="check">${t.checking}</p>`
      : check.kind === "error"
        ? html`<${Outcome} kind="error" text=${check.message} testId="check" />`
        : check.kind === "ok"
          ? html`<p class="muted" data-testid="check">
              ${who(check.value.recipient)} · <${Amount} text=${usdt(check.value.charge_usdt)} />${` · ${t.balanceAfter} `}<${Amount}
                text=${usdt(check.value.balance_after_usdt)}
              />
            </p>`
          : null;

  // The one main action, at one place in the tree whatever the step (so Telegram's MainButton is set up, never
  // hidden and shown again): Pay at the quote's charge, or a loading indicator while the price comes.
  let main = { text: t.payLabel, active: false, about: "", onPress: () => undefined as unknown, testId: "confirm" };
  let shown = html`${checked} ${step.kind === "refused" && html`<${Outcome} kind="error" text=${step.message} testId="refusal" />`}`;
  // Refused (the service's answer, or none): the same form asked again, by the main action.
  if (step.kind === "refused" && check.kind === "ok")
    main = { text: t.tryAgain, active: true, about: "", onPress: () => quote(key), testId: "try-again" };
  // A quote counts only for the form it was made for: in the render after a change, before it is dropped, it is not Pay.
  const live = step.kind === "quoted" && step.key === key ? step : null;
  if (live) {
    const step = live;
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
    main =
      count !== null
        ? { text: t.topUpAndBuy(count), active: true, about: q.quote_id, onPress: () => topUpAndBuy(step, count), testId: "topup-and-buy" }
        : { text: t.payNow(q.charge_usdt), active: true, about: q.quote_id, onPress: () => confirm(step), testId: "confirm" };
    shown = html`<div class="quote" data-testid="quote">
      <p class="quote-line"><span>${t.recipientIs}: </span><strong>${who(q.recipient)}</strong></p>
      <p class="quote-line"><span>${`${t.charge}: `}</span><strong class="amount big">${usdt(q.charge_usdt)}</strong></p>
      ${parts && html`<p class="muted">${parts}</p>`}
      <p class="muted">
        ${`${t.balanceAfter}: `}<${Amount} text=${usdt(after)} />${` · ${t.quoteHeld(new Date(q.expires_at).toLocaleTimeString(ctx.language))}`}
      </p>
      ${step.note && html`<${Outcome} kind="info" text=${step.note} testId="price-moved" />`}
      ${
        count !== null && offer
          ? html`<p class="muted" data-testid="shortfall">${t.shortfall(creditText(shortMicro), count, creditText(creditOf(offer, count)))}</p>`
          : shortMicro > 0 && html`<p class="muted" data-testid="shortfall">${t.shortfallTooBig(creditText(shortMicro))}</p>`
      }
      ${said && html`<${Outcome} kind=${said.kind} text=${said.text} testId="stars-status" />`}
    </div>`;
  }
  const waiting = paying || step.kind === "quoting" || (step.kind === "quoted" && !live) || (step.kind === "form" && check.kind === "checking");
  return html`<div>
    ${shown}
    <${MainAction}
      text=${main.text}
      active=${main.active && !waiting}
      progress=${waiting}
      about=${main.about}
      onPress=${main.onPress}
      testId=${main.testId}
    />
  </div>`;
}
