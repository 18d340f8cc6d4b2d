import { useEffect, useState } from "preact/hooks";
import { type Answer, type Order, type OrderSummary, orderNow } from "../api.js";
import { Sticker } from "../sticker.js";
import { Choice, CopyButton, type Ctx, failure, html, Outcome, useLoad, useWatch, usdt } from "../ui.js";

const PAGE = 20;
const PRODUCTS = ["stars", "premium", "store", "game", "giftcard", "gift"] as const;

export function OrderLine({ ctx, order }: { ctx: Ctx; order: OrderSummary }) {
  const { t } = ctx;
  return html`<li key=${order.order_id}>
    <button type="button" class="row" onClick=${() => ctx.go({ name: "order", id: order.order_id, product: order.product_type })}>
      <span>${`#${order.order_id} ${t.products[order.product_type as keyof typeof t.products] ?? order.product_type} · ${order.username}`}</span>
      <span class=${`status ${order.status}`}>${`${usdt(order.usdt_charged)} · ${t.status[order.status]}`}</span>
    </button>
  </li>`;
}

/** The orders, newest first: filtered by product and status, a page at a time; processing ones update on screen. */
export function Orders({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [product, setProduct] = useState("");
  const [status, setStatus] = useState("");
  const [pages, setPages] = useState<OrderSummary[][]>([]);
  const [error, setError] = useState<string | null>(null);
  const query = (before?: number) =>
    `/v1/orders?limit=${PAGE}${product ? `&product_type=${product}` : ""}${status ? `&status=${status}` : ""}${before ? `&before=${before}` : ""}`;
  const load = (before?: number) =>
    api.get<Answer<"listOrders">>(query(before)).then(
      (r) => {
        setError(null);
        setPages((earlier) => (before ? [...earlier, r.orders] : [r.orders]));
      },
      (e: unknown) => setError(failure(t, e)),
    );
  useEffect(() => {
    setPages([]);
    void load();
  }, [product, status]);
  const orders = pages.flat();
  // While an order on screen is processing, the first page is read again every few seconds.
  const processing = orders.some((o) => o.status === "processing");
  useEffect(() => {
    if (!processing) return;
    const timer = setInterval(async () => {
      const fresh = await api.get<Answer<"listOrders">>(query()).catch(() => null);
      if (fresh) setPages((earlier) => [fresh.orders, ...earlier.slice(1)]);
    }, 3000);
    return () => clearInterval(timer);
  }, [processing, product, status]);
  const last = pages[pages.length - 1];
  return html`<section class="card">
    <h1>${t.orders}</h1>
    <div class="filters">
      <${Choice}
        label=${t.product}
        name="product"
        value=${product}
        options=${[["", t.all], ...PRODUCTS.map((p): [string, string] => [p, t.products[p]])]}
        onChange=${setProduct}
      />
      <${Choice}
        label=${t.statusLabel}
        name="status"
        value=${status}
        options=${[["", t.all], ...(["processing", "completed", "failed"] as const).map((s): [string, string] => [s, t.status[s]])]}
        onChange=${setStatus}
      />
    </div>
    ${error && html`<${Outcome} kind="error" text=${error} />`}
    ${
      orders.length
        ? html`<ul class="list" data-testid="orders">
            ${orders.map((o) => html`<${OrderLine} ctx=${ctx} order=${o} />`)}
          </ul>`
        : html`<p class="muted">${t.noOrders}</p>`
    }
    ${last?.length === PAGE && html`<button type="button" class="secondary" onClick=${() => load(last[last.length - 1].order_id)}>${t.older}</button>`}
  </section>`;
}

/** What an order was, in its product's own fields. */
function describe(ctx: Ctx, order: Order, product: string): string[] {
  const { t } = ctx;
  const o = order as Record<string, unknown>;
  switch (product) {
    case "stars":
    case "premium":
      return [`${t.recipientIs}: @${o.username}`, product === "stars" ? `${o.amount} ⭐` : t.monthsOf(Number(o.amount))];
    case "store":
      return [`${t.storeLogin}: ${o.store_login}`, `${o.store_amount_usd} USD`];
    case "game":
      return [`${t.playerId}: ${o.player_id}${o.player_name ? ` (${o.player_name})` : ""}`, String(o.denomination)];
    case "giftcard":
      return [`${o.denomination} × ${o.quantity}`];
    case "gift":
      return [`${t.recipientIs}: @${o.recipient}`, `${o.emoji} ${o.stars} ⭐`];
    default:
      return [];
  }
}

/** One order, watched until it finishes; a gift card's codes revealed with a copy button, a gift as its sticker. */
export function OrderDetail({ ctx, id, product }: { ctx: Ctx; id: number; product: string }) {
  const { t, api } = ctx;
  const first = useLoad(() => orderNow(api, id, product), [id]);
  if (first.kind === "loading") return html`<p class="muted">${t.loading}</p>`;
  if (first.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, first.error)} />`;
  return html`<${Watched} ctx=${ctx} initial=${first.value} product=${product} />`;
}

function Watched({ ctx, initial, product }: { ctx: Ctx; initial: Order; product: string }) {
  const { t, api } = ctx;
  const [order] = useWatch(
    initial,
    () => orderNow(api, initial.order_id, product),
    (o) => o.status !== "processing",
    () => void ctx.refresh(),
  );
  const failed = order.status === "failed";
  return html`<section class="card" data-testid="order">
    <h1>${`${t.products[product as keyof typeof t.products] ?? product} #${order.order_id}`}</h1>
    ${product === "gift" && typeof order.gift_id === "string" && html`<${Sticker} ctx=${ctx} giftId=${order.gift_id} fallback=${String(order.emoji ?? "🎁")} />`}
    ${describe(ctx, order, product).map((line) => html`<p>${line}</p>`)}
    <p>${`${t.charge}: ${usdt(order.usdt_charged)}`}</p>
    <${Outcome}
      kind=${failed ? "error" : order.status === "completed" ? "ok" : "info"}
      text=${failed ? `${t.status.failed}${order.error ? `: ${order.error}` : ""}` : order.status === "completed" ? t.delivered : t.processingNow}
      testId="order-status"
    />
    ${
      order.codes?.length
        ? html`<h2>${t.codes}</h2>
            <ul class="codes" data-testid="codes">
              ${order.codes.map((code) => html`<li key=${code}><code>${code}</code><${CopyButton} text=${code} t=${t} /></li>`)}
            </ul>
            <p class="muted">${t.keepCodes}</p>`
        : null
    }
  </section>`;
}
