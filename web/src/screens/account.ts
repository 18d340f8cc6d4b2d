import { useEffect, useState } from "preact/hooks";
import type { Answer, Topup } from "../api.js";
import type { components } from "../api-types.js";
import { amount } from "../money.js";
import { telegram } from "../telegram.js";
import { type Ctx, failure, Field, html, MainAction, Outcome, useLoad, useWatch, usdt } from "../ui.js";
import { OrderLine } from "./orders.js";

/** The first screen: the balance with its UZS and TON equivalents, the ways in, and the newest orders. */
export function Home({ ctx }: { ctx: Ctx }) {
  const { t, me } = ctx;
  const recent = useLoad(() => ctx.api.get<Answer<"listOrders">>("/v1/orders?limit=5"), [me.balance_usdt]);
  const equivalents = `≈ ${me.balance_uzs.toLocaleString(ctx.language)} UZS${me.balance_ton === null ? "" : ` · ≈ ${me.balance_ton.toFixed(2)} TON`}`;
  const tiles: Array<[string, () => void]> = [
    [t.shop, () => ctx.go({ name: "shop" })],
    [t.topUp, () => ctx.go({ name: "topup" })],
    [t.orders, () => ctx.go({ name: "orders" })],
    [t.statement, () => ctx.go({ name: "statement" })],
    [t.partner, () => ctx.go({ name: "partner" })],
    ...(me.admin ? [[t.admin, () => ctx.go({ name: "admin" })] as [string, () => void]] : []),
  ];
  return html`<section class="card">
      <h1>${t.hello}${me.username ? `, @${me.username}` : ""}</h1>
      <p class="balance" data-testid="balance">${t.balance}: <strong>${usdt(me.balance_usdt)}</strong></p>
      <p class="muted" data-testid="equivalents">${equivalents}</p>
    </section>
    <nav class="tiles" aria-label=${t.menu}>
      ${tiles.map(([label, go]) => html`<button type="button" key=${label} onClick=${go}>${label}</button>`)}
    </nav>
    <section class="card">
      <h2>${t.recentOrders}</h2>
      ${
        recent.kind === "ok" && recent.value.orders.length
          ? html`<ul class="list" data-testid="recent">
              ${recent.value.orders.map((o) => html`<${OrderLine} ctx=${ctx} order=${o} />`)}
            </ul>`
          : html`<p class="muted">${recent.kind === "loading" ? t.loading : t.noOrders}</p>`
      }
    </section>`;
}

export function Shop({ ctx }: { ctx: Ctx }) {
  const { t } = ctx;
  const products = ["stars", "premium", "store", "game", "giftcard", "gift"] as const;
  return html`<section class="card">
    <h1>${t.shop}</h1>
    <nav class="tiles" aria-label=${t.shop}>
      ${products.map((p) => html`<button type="button" key=${p} data-testid=${`product-${p}`} onClick=${() => ctx.go({ name: "buy", product: p })}>${t.products[p]}</button>`)}
    </nav>
  </section>`;
}

type Entry = components["schemas"]["LedgerEntry"];

const day = (date: Date) => date.toISOString().slice(0, 10);

/** The ledger statement, a page at a time, and any range of it as CSV. */
export function Statement({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [entries, setEntries] = useState<Entry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [from, setFrom] = useState(day(new Date(Date.now() - 29 * 86_400_000)));
  const [to, setTo] = useState(day(new Date()));
  const load = (before: string | null) =>
    api.get<Answer<"getLedger">>(`/v1/ledger?limit=20${before ? `&before=${before}` : ""}`).then(
      (page) => {
        setEntries((earlier) => (before ? [...earlier, ...page.entries] : page.entries));
        setNext(page.next_before);
      },
      (e: unknown) => setError(failure(t, e)),
    );
  useEffect(() => void load(null), []);
  async function download() {
    setError(null);
    try {
      // "to" is exclusive: the day after the last one asked for.
      const until = day(new Date(Date.parse(to) + 86_400_000));
      const blob = await api.file(`/v1/ledger/export?from=${from}&to=${until}`);
      const link = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: `statement-${from}-${to}.csv` });
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (e) {
      setError(failure(t, e));
    }
  }
  return html`<section class="card">
    <h1>${t.statement}</h1>
    ${error && html`<${Outcome} kind="error" text=${error} />`}
    ${
      entries.length
        ? html`<ul class="list" data-testid="entries">
            ${entries.map(
              (e) =>
                html`<li key=${e.entry_id} class="st-entry">
                  <span class="st-main">
                    <span class="st-kind">${`${t.kinds[e.kind] ?? e.kind}${e.order_id ? `\u00a0#${e.order_id}` : ""}`}</span>
                    <span class="st-when"
                      >${new Date(e.created_at).toLocaleString(ctx.language, {
                        day: "numeric",
                        month: "short",
                        ...(new Date(e.created_at).getFullYear() === new Date().getFullYear() ? {} : { year: "numeric" }),
                        hour: "numeric",
                        minute: "2-digit",
                      })}</span
                    >
                    ${e.note ? html`<span class="st-note">${e.note}</span>` : null}
                  </span>
                  <span class=${e.amount_usdt < 0 ? "st-amount st-minus" : "st-amount"}
                    >${`${e.amount_usdt > 0 ? "+" : ""}${amount(e.amount_usdt)}`}${
                      e.balance_after_usdt === null ? null : html`<span class="st-after">${` → ${amount(e.balance_after_usdt)}`}</span>`
                    }</span
                  >
                </li>`,
            )}
          </ul>`
        : html`<p class="muted">${t.noEntries}</p>`
    }
    ${next && html`<button type="button" class="secondary" onClick=${() => load(next)}>${t.older}</button>`}
    <h2>${t.csv}</h2>
    <div class="filters">
      <${Field} label=${t.from} name="from" type="date" value=${from} onInput=${setFrom} />
      <${Field} label=${t.to} name="to" type="date" value=${to} onInput=${setTo} />
    </div>
    <button type="button" data-testid="csv" onClick=${download}>${t.downloadCsv}</button>
  </section>`;
}

/** Top up: an invoice paid in @CryptoBot (its link opens through Telegram), watched until credited; or a transfer stated. */
export function TopUp({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [topup, setTopup] = useState<Topup | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reference, setReference] = useState("");
  const [amount, setAmount] = useState("25");
  async function start(body: object) {
    setError(null);
    try {
      setTopup((await api.post<Answer<"createTopup">>("/v1/topups", body)).topup);
    } catch (e) {
      telegram.haptic("error");
      setError(failure(t, e));
    }
  }
  return html`<section class="card">
    <h1>${t.topUp}</h1>
    <h2 class="tu-title">${t.topupInvoiceTitle}</h2>
    <p class="muted tu-how">${t.topupInvoiceHow}</p>
    <div class="tu-amounts">
      ${[10, 25, 50, 100].map((n) => html`<button type="button" key=${n} onClick=${() => start({ amount_usdt: n, method: "invoice" })}>${`${n} USDT`}</button>`)}
    </div>
    <p class="muted tu-how" data-testid="topup-limits">
      ${t.topupLimits(
        ctx.me.topup_limits.min_usdt.toLocaleString(ctx.language),
        ctx.me.topup_limits.max_usdt.toLocaleString(ctx.language),
        ctx.me.topup_limits.invoice_minutes,
      )}
    </p>
    ${topup && html`<${Watch} ctx=${ctx} key=${topup.topup_id} topup=${topup} />`} ${error && html`<${Outcome} kind="error" text=${error} />`}
    <details>
      <summary>${t.paidByTransfer}</summary>
      <p class="muted tu-how">${t.topupTransferHow}</p>
      <${Field} label=${t.amountUsdt} name="transfer_amount" type="number" inputmode="decimal" value=${amount} onInput=${setAmount} />
      <${Field} label=${t.reference} name="reference" value=${reference} onInput=${setReference} maxlength="200" />
      <button
        type="button"
        disabled=${!reference.trim()}
        onClick=${() => start({ amount_usdt: Number(amount), method: "transfer", reference: reference.trim() })}
      >
        ${t.sendForApproval}
      </button>
    </details>
  </section>`;
}

function Watch({ ctx, topup }: { ctx: Ctx; topup: Topup }) {
  const { t, api } = ctx;
  const [now] = useWatch(
    topup,
    () => api.get<Answer<"getTopup">>(`/v1/topups/${topup.topup_id}`).then((r) => r.topup),
    (v) => !["creating", "active", "pending"].includes(v.status),
    (v) => {
      if (v.status === "credited") {
        telegram.haptic("success");
        void ctx.refresh();
      }
    },
  );
  return html`${
      now.status === "active" &&
      now.pay_url &&
      html`<${MainAction} text=${t.pay(now.amount_usdt)} onPress=${() => telegram.openLink(now.pay_url!)} testId="pay" />
        <p><a class="pay" href=${now.pay_url} target="_blank" rel="noopener">${now.pay_url}</a></p>`
    } <${Outcome} kind=${now.status === "credited" ? "ok" : "info"} text=${t.topupStatus[now.status] ?? now.status} testId="topup" />`;
}
