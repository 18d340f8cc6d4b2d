import htm from "htm";
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import {
  ApiError,
  buyStars,
  type Me,
  me,
  type Order,
  type OrderSummary,
  type Quote,
  quoteStars,
  recentOrders,
  type Session,
  signIn,
  startTopup,
  type Topup,
  topupStatus,
} from "./api.js";
import { applyTheme, readLaunch } from "./launch.js";
import { type Language, type Texts, texts } from "./texts.js";

const html = htm.bind(h);

type State = { kind: "loading" } | { kind: "ready"; session: Session; me: Me; orders: OrderSummary[] } | { kind: "refused"; message: string };

type Step =
  { kind: "form" } | { kind: "quoted"; quote: Quote; idempotencyKey: string } | { kind: "done"; order: Order } | { kind: "error"; message: string };

/** Top up: an amount, the invoice's pay link, and its status watched until it is credited (or not). */
function TopUp({ session, t, credited }: { session: Session; t: Texts; credited: () => void }) {
  const [topup, setTopup] = useState<Topup | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!topup || topup.status !== "active") return;
    const timer = setInterval(async () => {
      const now = await topupStatus(session, topup.topup_id).catch(() => topup);
      if (now.status === topup.status) return;
      setTopup(now);
      if (now.status === "credited") credited();
    }, 1000);
    return () => clearInterval(timer);
  }, [topup]);

  async function start(amount: number) {
    setError(null);
    try {
      setTopup(await startTopup(session, amount));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : t.offline);
    }
  }

  return html`<section class="card">
    <h2>${t.topUp}</h2>
    <div class="amounts">
      ${[10, 25, 50, 100].map((amount) => html`<button type="button" key=${amount} onClick=${() => start(amount)}>${`${amount} USDT`}</button>`)}
    </div>
    ${topup?.status === "active" && topup.pay_url && html`<p><a class="pay" href=${topup.pay_url} target="_blank" rel="noopener">${t.pay(topup.amount_usdt)}</a></p>`}
    ${topup && html`<p class="outcome" role="status" data-testid="topup">${t.topupStatus[topup.status] ?? topup.status}</p>`}
    ${error && html`<p class="outcome" role="alert">${error}</p>`}
  </section>`;
}

/** Stars: the recipient and the amount, the core's quote (the exact charge, the balance after), then Confirm. */
function Stars({ session, balance, t, bought }: { session: Session; balance: number; t: Texts; bought: () => void }) {
  const [username, setUsername] = useState("");
  const [stars, setStars] = useState(50);
  const [step, setStep] = useState<Step>({ kind: "form" });
  const [busy, setBusy] = useState(false);
  // Built as one string: the template would drop the spaces around a line break.
  const afterLine = (quote: Quote) => ` · ${t.balanceAfter}: ${(balance - quote.charge_usdt).toFixed(2)} USDT`;
  const fail = (error: unknown) => setStep({ kind: "error", message: error instanceof ApiError ? error.message : t.offline });

  async function price(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      // The key is made once per confirmation shown: a double tap on Confirm sends the same one.
      setStep({ kind: "quoted", quote: await quoteStars(session, username.replace(/^@/, ""), stars), idempotencyKey: crypto.randomUUID() });
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  }
  async function confirm(step: Extract<Step, { kind: "quoted" }>) {
    try {
      const order = await buyStars(session, {
        username: username.replace(/^@/, ""),
        stars,
        quoteId: step.quote.quote_id,
        idempotencyKey: step.idempotencyKey,
      });
      setStep({ kind: "done", order });
      bought();
    } catch (error) {
      fail(error);
    }
  }

  return html`<section class="card">
    <h2>${t.stars}</h2>
    <form onSubmit=${price}>
      <label
        >${t.recipient}<input name="username" required value=${username} onInput=${(e: Event) => setUsername((e.target as HTMLInputElement).value)}
      /></label>
      <label
        >${t.starsCount}<input
          name="stars"
          type="number"
          min="50"
          max="10000"
          required
          value=${stars}
          onInput=${(e: Event) => setStars(Number((e.target as HTMLInputElement).value))}
      /></label>
      <button type="submit" disabled=${busy}>${t.getPrice}</button>
    </form>
    ${
      step.kind === "quoted" &&
      html`<div class="quote" data-testid="quote">
        <p>${`${t.charge}: `}<strong>${step.quote.charge_usdt.toFixed(2)} USDT</strong>${afterLine(step.quote)}</p>
        <button type="button" onClick=${() => confirm(step)}>${t.confirm}</button>
      </div>`
    }
    ${
      step.kind === "done" &&
      html`<p class="outcome" role="status" data-testid="outcome">
        ${step.order.status === "failed" ? `${t.failed}: ${step.order.error ?? ""}` : t.done(step.order.order_id)}
      </p>`
    }
    ${step.kind === "error" && html`<p class="outcome" role="alert">${step.message}</p>`}
  </section>`;
}

function App({ initData, language }: { initData: string | null; language: Language }) {
  const t = texts[language];
  const [state, setState] = useState<State>({ kind: "loading" });
  useEffect(() => {
    if (!initData) {
      setState({ kind: "refused", message: t.openFromBot });
      return;
    }
    signIn(initData)
      .then(async (session) => setState({ kind: "ready", session, me: await me(session), orders: await recentOrders(session) }))
      .catch((error: unknown) => {
        // A refused sign-in in the user's language; a blocked account hears the service's reason (with the support contact).
        const message = !(error instanceof ApiError) ? t.offline : error.status === 401 ? t.signInRefused : error.message;
        setState({ kind: "refused", message });
      });
  }, [initData]);

  if (state.kind === "loading") return html`<p class="muted">${t.loading}</p>`;
  if (state.kind === "refused")
    return html`<section class="card" role="alert">
      <h1>${t.cannotOpen}</h1>
      <p>${state.message}</p>
    </section>`;
  const { session } = state;
  // After a purchase: the balance and the orders as the service has them now.
  const bought = async () => setState({ kind: "ready", session, me: await me(session), orders: await recentOrders(session) });
  const equivalents = `≈ ${state.me.balance_uzs.toLocaleString(language)} UZS${state.me.balance_ton === null ? "" : ` · ≈ ${state.me.balance_ton.toFixed(2)} TON`}`;
  return html`<section class="card">
      <h1>${t.hello}${state.me.username ? `, @${state.me.username}` : ""}</h1>
      <p class="balance" data-testid="balance">${t.balance}: <strong>${state.me.balance_usdt.toFixed(2)} USDT</strong></p>
      <p class="muted" data-testid="equivalents">${equivalents}</p>
    </section>
    <${Stars} session=${session} balance=${state.me.balance_usdt} t=${t} bought=${bought} />
    <${TopUp} session=${session} t=${t} credited=${bought} />
    <section class="card">
      <h2>${t.orders}</h2>
      ${
        state.orders.length
          ? html`<ul class="orders" data-testid="orders">
              ${state.orders.map((o) => html`<li key=${o.order_id}>${`#${o.order_id} ${t.product(o.product_type)} ${o.amount} → ${o.username}: ${t.status[o.status]}, ${o.usdt_charged.toFixed(2)} USDT`}</li>`)}
            </ul>`
          : html`<p class="muted">${t.noOrders}</p>`
      }
    </section>`;
}

const launch = readLaunch(location.hash);
applyTheme(launch.theme, document.documentElement);
const language: Language = (() => {
  try {
    const user = JSON.parse(new URLSearchParams(launch.initData ?? "").get("user") ?? "{}") as { language_code?: string };
    return user.language_code?.startsWith("ru") ? "ru" : "en";
  } catch {
    return "en";
  }
})();
document.documentElement.lang = language;
render(html`<${App} initData=${launch.initData} language=${language} />`, document.getElementById("app")!);
