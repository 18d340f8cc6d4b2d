import { useEffect, useState } from "preact/hooks";
import { type Answer, type Order, type OrderSummary, orderNow } from "../api.js";
import { Sticker } from "../sticker.js";
import { CopyButton, type Ctx, failure, html, Outcome, useLoad, useWatch, usdt } from "../ui.js";

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

/** Whom or what an order was for, as a buyer names it: @username, the store login, the player, the card's brand. */
function recipientOf(ctx: Ctx, order: OrderSummary): string {
  switch (order.product_type) {
    case "stars":
    case "premium":
    case "gift":
      return `@${order.username}`;
    case "store":
      return order.store_login ?? order.username;
    case "game":
      return `${ctx.t.playerId} ${order.username}`;
    default:
      return order.username;
  }
}

/** What happens next to an order, in words: when a processing one usually lands (its product's usual time). */
function nextOf(ctx: Ctx, order: OrderSummary): string {
  const { t } = ctx;
  if (order.status === "processing") return `${t.ordersPlaced(when(ctx, order.created_at))} ${t.ordersUsually[order.product_type]}`;
  if (order.status === "failed") return t.ordersRefunded;
  return order.product_type === "giftcard" ? t.ordersCodesInside : t.ordersDeliveredOn(when(ctx, order.completed_at ?? order.created_at));
}

/** "Nov 27, 1:43 PM" (the year only when it is not this one). */
const when = (ctx: Ctx, iso: string) =>
  new Date(iso).toLocaleString(ctx.language, {
    day: "numeric",
    month: "short",
    ...(new Date(iso).getFullYear() === new Date().getFullYear() ? {} : { year: "numeric" }),
    hour: "numeric",
    minute: "2-digit",
  });

const ICONS = { processing: "⏳", completed: "✅", failed: "↩️" } as const;

/** An order as a card: product and recipient, the charge, the status, and what happens next. */
function OrderCard({ ctx, order }: { ctx: Ctx; order: OrderSummary }) {
  const { t } = ctx;
  return html`<li key=${order.order_id}>
    <button type="button" class="ocard" onClick=${() => ctx.go({ name: "order", id: order.order_id, product: order.product_type })}>
      <span class="ocard-top">
        <span class="ocard-title">${t.products[order.product_type]}</span>
        <span class="ocard-sum">${usdt(order.usdt_charged)}</span>
      </span>
      <span class="ocard-who">${recipientOf(ctx, order)}</span>
      <span class="ocard-meta">
        <span class=${`ocard-status ${order.status}`}>${`${ICONS[order.status]}\u00a0${t.status[order.status]}`}</span>
        <span>${`#${order.order_id}`}</span>
      </span>
      <span class="ocard-next">${nextOf(ctx, order)}</span>
    </button>
  </li>`;
}

/** A select whose label is read by screen readers but not shown: its options say what they filter. */
function Filter({
  label,
  name,
  value,
  options,
  onChange,
}: {
  label: string;
  name: string;
  value: string;
  options: Array<[string, string]>;
  onChange: (value: string) => void;
}) {
  return html`<label class="ofilter"
    ><span class="sr-only">${label}</span
    ><select name=${name} value=${value} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
      ${options.map(([v, text]) => html`<option key=${v} value=${v}>${text}</option>`)}
    </select></label
  >`;
}

/** The orders, newest first: filtered by product and status, a page at a time; processing ones update on screen. */
export function Orders({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [product, setProduct] = useState("");
  const [status, setStatus] = useState("");
  const [pages, setPages] = useState<OrderSummary[][] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const query = (before?: number) =>
    `/v1/orders?limit=${PAGE}${product ? `&product_type=${product}` : ""}${status ? `&status=${status}` : ""}${before ? `&before=${before}` : ""}`;
  const load = (before?: number) =>
    api.get<Answer<"listOrders">>(query(before)).then(
      (r) => {
        setError(null);
        setPages((earlier) => (before ? [...(earlier ?? []), r.orders] : [r.orders]));
      },
      (e: unknown) => setError(failure(t, e)),
    );
  useEffect(() => {
    setPages(null);
    void load();
  }, [product, status]);
  const orders = (pages ?? []).flat();
  // While an order on screen is processing, the first page is read again every few seconds.
  const processing = orders.some((o) => o.status === "processing");
  useEffect(() => {
    if (!processing) return;
    const timer = setInterval(async () => {
      const fresh = await api.get<Answer<"listOrders">>(query()).catch(() => null);
      if (fresh) setPages((earlier) => [fresh.orders, ...(earlier ?? []).slice(1)]);
    }, 3000);
    return () => clearInterval(timer);
  }, [processing, product, status]);
  const last = pages?.[pages.length - 1];
  const filtered = product !== "" || status !== "";
  // No order at all (nothing filtered): what orders are and the way to the shop (the first screen, which this one was
  // opened from), no filters over an empty list.
  if (pages !== null && !orders.length && !filtered && !error)
    return html`<section class="card oempty" data-testid="orders-empty">
      <h1>${t.orders}</h1>
      <p class="oempty-art" aria-hidden="true">🧾</p>
      <p class="oempty-title">${t.noOrders}</p>
      <p class="muted">${t.ordersExplain}</p>
      <button type="button" class="primary" data-testid="orders-shop" onClick=${() => ctx.back()}>${t.shop}</button>
    </section>`;
  return html`<section class="card">
    <h1>${t.orders}</h1>
    <div class="ofilters" role="group" aria-label=${t.ordersFilters}>
      <${Filter}
        label=${t.product}
        name="product"
        value=${product}
        options=${[["", t.ordersAllProducts], ...PRODUCTS.map((p): [string, string] => [p, t.products[p]])]}
        onChange=${setProduct}
      />
      <${Filter}
        label=${t.statusLabel}
        name="status"
        value=${status}
        options=${[["", t.ordersAllStatuses], ...(["processing", "completed", "failed"] as const).map((s): [string, string] => [s, t.status[s]])]}
        onChange=${setStatus}
      />
    </div>
    ${error && html`<${Outcome} kind="error" text=${error} />`}
    ${
      pages === null
        ? html`<p class="muted">${t.loading}</p>`
        : orders.length
          ? html`<ul class="list ocards" data-testid="orders">
              ${orders.map((o) => html`<${OrderCard} ctx=${ctx} order=${o} />`)}
            </ul>`
          : html`<div class="oempty-filtered" data-testid="orders-none">
              <p class="muted">${t.ordersNoMatch}</p>
              <button
                type="button"
                class="secondary"
                onClick=${() => {
                  setProduct("");
                  setStatus("");
                }}
              >
                ${t.ordersShowAll}
              </button>
            </div>`
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
  return html`<section class="card odetail-card" data-testid="order">
    <h1>${`${t.products[product as keyof typeof t.products] ?? product} #${order.order_id}`}</h1>
    ${product === "gift" && typeof order.gift_id === "string" && html`<${Sticker} ctx=${ctx} giftId=${order.gift_id} fallback=${String(order.emoji ?? "🎁")} />`}
    <div class="odetail">
      ${describe(ctx, order, product).map((line) => html`<p>${line}</p>`)}
      <p>${`${t.charge}: `}<span class="nowrap">${usdt(order.usdt_charged)}</span></p>
    </div>
    <${Outcome}
      kind=${failed ? "error" : order.status === "completed" ? "ok" : "info"}
      text=${failed ? `${t.status.failed}${order.error ? `: ${order.error}` : ""}` : order.status === "completed" ? t.delivered : t.processingNow}
      testId="order-status"
    />
    ${
      order.status !== "completed" &&
      html`<p class="muted" data-testid="order-next">
        ${failed ? t.ordersRefunded : (t.ordersUsually[product as keyof typeof t.ordersUsually] ?? "")}
      </p>`
    }
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
