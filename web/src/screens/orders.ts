import { useEffect, useState } from "preact/hooks";
import { type Answer, type Order, type OrderSummary, orderNow } from "../api.js";
import { Sticker } from "../sticker.js";
import { amount } from "../money.js";
import { Amount, CopyButton, type Ctx, failure, html, MainAction, Outcome, useLoad, useWatch, usdt } from "../ui.js";

const PAGE = 20;
const PRODUCTS = ["stars", "premium", "store", "game", "giftcard", "gift"] as const;

export function OrderLine({ ctx, order }: { ctx: Ctx; order: OrderSummary }) {
  const { t } = ctx;
  return html`<li key=${order.order_id}>
    <button type="button" class="row" onClick=${() => ctx.go({ name: "order", id: order.order_id, product: order.product_type })}>
      <span>${`${boughtOf(ctx, order)} · ${recipientOf(ctx, order)}`}</span>
      <span class=${`status ${order.status}`}>${`${usdt(order.usdt_charged)} · ${t.status[order.status]}`}</span>
    </button>
  </li>`;
}

/** An order's names, read from a list item or from the order itself. */
interface Names {
  product: string;
  /** Stars, months, the gift's stars, the gift card quantity. */
  count: number;
  usd: number | null;
  /** The gift card's brand or the game. */
  brand: string | null;
  /** The card, the denomination, the gift's emoji. */
  item: string;
  /** The recipient as stored; null for a gift card (its codes are the buyer's). */
  recipient: string | null;
}

/** What was bought, by name: "Telegram Stars · 100 ⭐", "PlayStation Store (US) $10 × 2", "PUBG Mobile · 60". */
function nameOf(ctx: Ctx, n: Names): string {
  const { t } = ctx;
  switch (n.product) {
    case "stars":
      return t.boughtStars(n.count);
    case "premium":
      return t.boughtPremium(n.count);
    case "store":
      return t.boughtStore(n.usd === null ? "" : amount(n.usd));
    case "game":
      return t.boughtGame(n.brand, n.item);
    case "giftcard":
      return t.boughtGiftcard(n.brand, n.item, n.count);
    case "gift":
      return t.boughtGift(n.item, n.count);
    default:
      return t.products[n.product as keyof typeof t.products] ?? n.product;
  }
}

const summaryNames = (order: OrderSummary): Names => ({
  product: order.product_type,
  count: order.amount,
  usd: order.store_amount_usd,
  brand: order.brand,
  item: order.item ?? "",
  recipient: order.product_type === "giftcard" ? null : order.product_type === "store" ? (order.store_login ?? order.username) : order.username,
});

function orderNames(o: Order, product: string): Names {
  const base = { product, usd: o.store_amount_usd ?? null, brand: null, item: "", recipient: o.username ?? null };
  switch (product) {
    case "premium":
      return { ...base, count: o.months ?? o.amount ?? 0 };
    case "store":
      return { ...base, count: 0, recipient: o.store_login ?? null };
    case "game":
      return { ...base, count: 1, brand: o.game_name ?? null, item: String(o.denomination ?? ""), recipient: o.player_id ?? null };
    case "giftcard":
      return { ...base, count: o.quantity ?? 1, brand: o.brand ?? null, item: String(o.denomination ?? ""), recipient: null };
    case "gift":
      return { ...base, count: o.stars ?? 0, item: o.emoji ?? "🎁", recipient: o.recipient ?? null };
    default:
      return { ...base, count: o.stars ?? o.amount ?? 0 };
  }
}

/** Whom an order was for, as a buyer names them: @username, the store login, the player; gift card codes are one's own. */
function whoOf(ctx: Ctx, n: Names, playerName?: string | null): string {
  const { t } = ctx;
  if (n.recipient === null) return t.myself;
  switch (n.product) {
    case "stars":
    case "premium":
    case "gift":
      return `@${n.recipient}`;
    case "game":
      return `${t.playerId} ${n.recipient}${playerName ? ` (${playerName})` : ""}`;
    default:
      return n.recipient;
  }
}

const boughtOf = (ctx: Ctx, order: OrderSummary) => nameOf(ctx, summaryNames(order));
const recipientOf = (ctx: Ctx, order: OrderSummary) => whoOf(ctx, summaryNames(order));

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
        <span class="ocard-title">${boughtOf(ctx, order)}</span>
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

/**
 * One order, watched until it finishes: being delivered, then delivered or failed with its refund; a gift card's
 * codes revealed with a copy button, a gift as its sticker. `bought`: the purchase just made, shown as its result,
 * with the balance after it and Done back to the shop.
 */
export function OrderDetail({
  ctx,
  id,
  product,
  bought = false,
  balanceRead = false,
}: {
  ctx: Ctx;
  id: number;
  product: string;
  bought?: boolean;
  balanceRead?: boolean;
}) {
  const { t, api } = ctx;
  const first = useLoad(() => orderNow(api, id, product), [id]);
  if (first.kind === "loading") return html`<p class="muted">${t.loading}</p>`;
  if (first.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, first.error)} />`;
  return html`<${Watched} ctx=${ctx} initial=${first.value} product=${product} bought=${bought} balanceRead=${balanceRead} />`;
}

function Watched({
  ctx,
  initial,
  product,
  bought,
  balanceRead,
}: {
  ctx: Ctx;
  initial: Order;
  product: string;
  bought: boolean;
  balanceRead: boolean;
}) {
  const { t, api } = ctx;
  // The balance after is shown only as read after the purchase (and again after a refund): never an older one.
  const [balanceKnown, setBalanceKnown] = useState(balanceRead);
  const [order] = useWatch(
    initial,
    () => orderNow(api, initial.order_id, product),
    (o) => o.status !== "processing",
    () => void ctx.refresh().then(setBalanceKnown),
  );
  const { status } = order;
  const names = orderNames(order, product);
  const charge = usdt(order.usdt_charged);
  const next =
    status === "processing"
      ? `${t.ordersUsually[product as keyof typeof t.ordersUsually] ?? ""} ${t.resultWatching}`
      : status === "failed"
        ? `${order.error ? `${order.error.replace(/\.$/, "")}. ` : ""}${t.resultMoneyBack(charge.replace(" ", "\u00a0"))}`
        : null;
  return html`<section class=${`card odetail-card ${status}`} data-testid="order">
    <h1 class="oresult" data-testid="order-status" role="status">${t.resultTitle[status]}</h1>
    <p class="muted">${t.resultOrder(order.order_id, when(ctx, order.created_at))}</p>
    ${product === "gift" && typeof order.gift_id === "string" && html`<${Sticker} ctx=${ctx} giftId=${order.gift_id} fallback=${String(order.emoji ?? "🎁")} />`}
    <dl class="receipt" data-testid="receipt">
      <div>
        <dt>${t.resultWhat}</dt>
        <dd data-testid="bought">${nameOf(ctx, names)}</dd>
      </div>
      <div>
        <dt>${t.recipientIs}</dt>
        <dd data-testid="for">${whoOf(ctx, names, order.player_name)}</dd>
      </div>
      <div>
        <dt>${t.resultCharged}</dt>
        <dd><${Amount} text=${charge} testId="charged" /></dd>
      </div>
      ${
        status === "failed" &&
        html`<div>
          <dt>${t.resultRefunded}</dt>
          <dd><${Amount} text=${charge} testId="refunded" /></dd>
        </div>`
      }
      ${
        bought &&
        balanceKnown &&
        html`<div>
          <dt>${t.resultBalance}</dt>
          <dd><${Amount} text=${usdt(ctx.me.balance_usdt)} testId="balance-after" /></dd>
        </div>`
      }
    </dl>
    ${next && html`<p class=${status === "failed" ? "outcome error" : "muted"} data-testid="order-next">${next}</p>`}
    ${
      order.codes?.length
        ? html`<h2>${t.codes}</h2>
            <ul class="codes" data-testid="codes">
              ${order.codes.map((code) => html`<li key=${code}><code>${code}</code><${CopyButton} text=${code} t=${t} /></li>`)}
            </ul>
            <p class="muted">${t.keepCodes}</p>`
        : null
    }
    ${bought && html`<${MainAction} text=${t.done} onPress=${ctx.home} testId="done" />`}
  </section>`;
}
