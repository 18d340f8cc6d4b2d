import { useEffect, useState } from "preact/hooks";
import type { Answer, OrderSummary, Topup } from "../api.js";
import type { components } from "../api-types.js";
import { amount, approx, count, fromMicro, share, toMicro } from "../money.js";
import { telegram } from "../telegram.js";
import {
  Amount,
  Cell,
  type Ctx,
  failure,
  Field,
  html,
  MainAction,
  Outcome,
  type Preset,
  type Screen,
  Section,
  Skeleton,
  useLoad,
  useWatch,
  usdt,
} from "../ui.js";
import { creditOf, creditText, type StarsOffer, starsPaymentText, useStarsPayment } from "../stars.js";
import { OrderLine } from "./orders.js";

/** Recipients of the user's recent stars, premium and gift orders, newest first, each once. */
export function recentRecipients(orders: OrderSummary[], limit = 4): string[] {
  const seen: string[] = [];
  for (const o of orders)
    if (["stars", "premium", "gift"].includes(o.product_type) && o.username && !seen.includes(o.username.toLowerCase()))
      seen.push(o.username.toLowerCase());
  return seen.slice(0, limit);
}

/** The stars packs shown first; any other amount is typed on the stars screen. */
const PACKS = [50, 100, 250, 500, 1000];

type Brand = { id: string; name: string; low: string; high: string; from: number | null };

/**
 * The brands with the range of the denominations one can buy now and the least an order costs (a card's price
 * times its smallest quantity, in whole micro-USDT): a sold-out card is not offered, and a card sold only in twos
 * does not make the "from" price (one catalogue read per brand).
 */
async function brandsWithRanges(ctx: Ctx): Promise<Brand[]> {
  const { giftcards } = await ctx.api.cached<Answer<"listGiftcardBrands">>("/v1/giftcards");
  return Promise.all(
    giftcards.map(async (b) => {
      const catalogue = await ctx.api
        .cached<Answer<"getGiftcardCatalogue">>(`/v1/giftcards/${encodeURIComponent(b.category_id)}/catalogue`)
        .catch(() => null);
      // Cheapest to dearest of those in stock: the range reads "$5 – $25".
      const cards = (catalogue?.denominations ?? []).filter((c) => c.stock > 0).sort((x, y) => x.price_usdt - y.price_usdt);
      const orders = cards.map((c) => toMicro(c.price_usdt) * Math.max(1, c.min_quantity));
      return {
        id: b.category_id,
        name: b.name,
        low: cards[0]?.name ?? "",
        high: cards[cards.length - 1]?.name ?? "",
        from: orders.length ? fromMicro(Math.min(...orders)) : null,
      };
    }),
  );
}

/** What the "More" rows say: the store's range, the games by name, and the least each costs (read once, cached). */
async function moreGoods(ctx: Ctx) {
  const [store, games] = await Promise.all([
    ctx.api.cached<Answer<"getStorePricing">>("/v1/store/pricing").catch(() => null),
    ctx.api.cached<Answer<"listGames">>("/v1/games").catch(() => null),
  ]);
  const least = store ? await ctx.api.cached<Answer<"getStorePricing">>(`/v1/store/pricing?amount_usd=${store.min_usd}`).catch(() => null) : null;
  const prices = await Promise.all(
    (games?.games ?? []).map((g) =>
      ctx.api
        .cached<Answer<"getGameCatalogue">>(`/v1/games/${encodeURIComponent(g.code)}/catalogue`)
        .then((c) => c.denominations.map((d) => toMicro(d.price_usdt)))
        .catch(() => [] as number[]),
    ),
  );
  const cheapest = prices.flat();
  return {
    store: store && { min: store.min_usd, max: store.max_usd, from: least?.quote?.total_usdt ?? null },
    games: games && { names: games.games.map((g) => g.name), from: cheapest.length ? fromMicro(Math.min(...cheapest)) : null },
  };
}

/**
 * The first screen is the shop: the balance with Top up at the top, then the goods with their prices (stars packs,
 * Premium's plans, the gifts, the gift cards), the recent recipients and orders of a returning buyer, and the account.
 */
export function Home({ ctx }: { ctx: Ctx }) {
  const { t, me } = ctx;
  const pricing = useLoad(() => ctx.api.cached<Answer<"getPricing">>("/v1/pricing"));
  const gifts = useLoad(() => ctx.api.cached<Answer<"listGifts">>("/v1/gifts"));
  const brands = useLoad(() => brandsWithRanges(ctx));
  const more = useLoad(() => moreGoods(ctx));
  const recent = useLoad(() => ctx.api.get<Answer<"listOrders">>("/v1/orders?limit=20"), [me.balance_usdt]);
  useEffect(() => {
    // Measured by the browser test: the first screen's goods are on show.
    if (pricing.kind === "ok") performance.mark("goods-shown");
  }, [pricing.kind]);
  // Each equivalent unbreakable; the line may wrap between them.
  const equivalents = `≈\u00a0${count(me.balance_uzs)}\u00a0UZS${me.balance_ton === null ? "" : ` · ≈\u00a0${approx(me.balance_ton, 2)}\u00a0TON`}`;
  const buy = (product: Extract<Screen, { name: "buy" }>["product"], preset?: Preset) => ctx.go({ name: "buy", product, preset });
  const orders = recent.kind === "ok" ? recent.value.orders : [];
  const recipients = recentRecipients(orders);
  const stars = pricing.kind === "ok" ? pricing.value.stars : null;
  const premium = pricing.kind === "ok" ? pricing.value.premium : null;
  const storeInfo = more.kind === "ok" ? more.value.store : null;
  const gamesInfo = more.kind === "ok" ? more.value.games : null;
  const account: Array<[string, string, () => void]> = [
    ["orders", t.orders, () => ctx.go({ name: "orders" })],
    ["statement", t.statement, () => ctx.go({ name: "statement" })],
    ["partner", t.partner, () => ctx.go({ name: "partner" })],
    ["topup", t.topUp, () => ctx.go({ name: "topup" })],
    ...(me.admin ? [["admin", t.admin, () => ctx.go({ name: "admin" })] as [string, string, () => void]] : []),
  ];
  // The greeting has a line of its own (a long name or language never hides under Top up); Top up sits beside the
  // balance, and goes under it when both do not fit.
  return html`<header class="wallet">
      <p class="wallet-label">${me.username ? `${t.hello}, @${me.username}` : t.hello}</p>
      <div class="wallet-row">
        <h1 class="wallet-balance" data-testid="balance">
          <span class="visually-hidden">${t.balance}: </span><${Amount} text=${usdt(me.balance_usdt)} />
        </h1>
        <button type="button" class="pill" data-testid="wallet-topup" onClick=${() => ctx.go({ name: "topup" })}>${t.topUpShort}</button>
      </div>
      <p class="wallet-equivalents" data-testid="equivalents">${equivalents}</p>
    </header>

    <${Section} title=${t.goodsStars} hint=${stars && t.starsHint(stars.min, stars.max)} testId="goods-stars">
      ${
        stars
          ? html`<ul class="packs">
                ${PACKS.filter((n) => n >= stars.min && n <= stars.max).map(
                  (n) =>
                    html`<li key=${n}>
                      <button type="button" class="pack" data-testid=${`pack-${n}`} onClick=${() => buy("stars", { stars: n })}>
                        <span class="pack-count">${t.starsPack(n)}</span><${Amount} text=${usdt(fromMicro(n * toMicro(stars.usdt_per_star)))} />
                      </button>
                    </li>`,
                )}
              </ul>
              <${Cell}
                icon="⭐"
                title=${t.anyAmount}
                subtitle=${t.perStar(amount(stars.usdt_per_star))}
                after="›"
                testId="pack-any"
                onPress=${() => buy("stars")}
              />`
          : pricing.kind === "error"
            ? html`<${Outcome} kind="error" text=${failure(t, pricing.error)} />`
            : html`<${Skeleton} rows=${2} label=${t.loading} />`
      }
    <//>

    <${Section} title=${t.goodsPremium} testId="goods-premium">
      ${
        premium
          ? html`<div class="plans">
              ${premium.months.map((m) => {
                const price = premium.usdt[m] ?? 0;
                return html`<button type="button" key=${m} class="plan" data-testid=${`plan-${m}`} onClick=${() => buy("premium", { months: m })}>
                  <span class="plan-months">${t.monthsOf(m)}</span>
                  <${Amount} text=${usdt(price)} />
                  <span class="plan-month">${t.perMonth(share(price, m))}</span>
                </button>`;
              })}
            </div>`
          : html`<${Skeleton} rows=${1} label=${t.loading} />`
      }
    <//>

    <${Section} title=${t.goodsGifts} hint=${t.giftsHint} testId="goods-gifts">
      ${
        gifts.kind === "ok"
          ? gifts.value.gifts.length
            ? html`<ul class="shelf">
                ${gifts.value.gifts.map(
                  (g) =>
                    html`<li key=${g.gift_id}>
                      <button
                        type="button"
                        class="gift"
                        aria-label=${`${g.emoji} ${t.starsPack(g.stars)} · ${usdt(g.price_usdt)}`}
                        data-testid="home-gift"
                        onClick=${() => buy("gift", { giftId: g.gift_id })}
                      >
                        <span class="gift-emoji" aria-hidden="true">${g.emoji}</span>
                        <span class="gift-stars">${t.starsPack(g.stars)}</span>
                        <${Amount} text=${usdt(g.price_usdt)} />
                      </button>
                    </li>`,
                )}
              </ul>`
            : html`<p class="empty">${t.nothingOnSale}</p>`
          : html`<${Skeleton} rows=${1} label=${t.loading} />`
      }
    <//>

    <${Section} title=${t.goodsGiftcards} testId="goods-giftcards">
      ${
        brands.kind === "ok"
          ? brands.value.length
            ? brands.value.map(
                (b) =>
                  html`<${Cell}
                    key=${b.id}
                    icon="🎟"
                    title=${b.name}
                    subtitle=${goodsLine(ctx, b.low && t.cardRange(b.low, b.high), b.from)}
                    after="›"
                    testId=${`brand-${b.id}`}
                    onPress=${() => buy("giftcard", { brand: b.id })}
                  />`,
              )
            : html`<p class="empty">${t.nothingOnSale}</p>`
          : html`<${Skeleton} rows=${2} label=${t.loading} />`
      }
    <//>

    <${Section} title=${t.goodsMore}>
      <${Cell}
        icon="🎮"
        title=${t.products.store.replace(/^\S+ /, "")}
        subtitle=${goodsLine(ctx, storeInfo && t.storeAbout(storeInfo.min, storeInfo.max), storeInfo?.from ?? null)}
        after="›"
        testId="product-store"
        onPress=${() => buy("store")}
      />
      <${Cell}
        icon="🕹"
        title=${t.products.game.replace(/^\S+ /, "")}
        subtitle=${goodsLine(ctx, gamesInfo && t.gamesAbout(gamesInfo.names.slice(0, 2), gamesInfo.names.length - 2), gamesInfo?.from ?? null)}
        after="›"
        testId="product-game"
        onPress=${() => buy("game")}
      />
    <//>

    ${
      recipients.length > 0 &&
      html`<${Section} title=${t.recentRecipients} hint=${t.recentHint} testId="recipients">
        ${recipients.map((r) => html`<${Cell} key=${r} icon="👤" title=${`@${r}`} after="⭐" onPress=${() => buy("stars", { to: `@${r}` })} />`)}
      <//>`
    }

    <${Section} title=${t.lastOrders}>
      ${
        recent.kind === "ok" && orders.length
          ? html`<ul class="list" data-testid="recent">
              ${orders.slice(0, 5).map((o) => html`<${OrderLine} ctx=${ctx} order=${o} />`)}
            </ul>`
          : recent.kind === "loading"
            ? html`<${Skeleton} rows=${2} label=${t.loading} />`
            : html`<p class="empty">${t.noOrders}</p>`
      }
    <//>

    <${Section} title=${t.account}>
      <nav aria-label=${t.account}>
        ${account.map(([id, label, go]) => html`<${Cell} key=${id} title=${label} after="›" testId=${`account-${id}`} onPress=${go} />`)}
      </nav>
    <//>`;
}

/** A goods row's subtitle: what it is, then the least it costs ("$10 – $25 · from 10.50 USDT"). */
function goodsLine(ctx: Ctx, about: string | null | false | undefined, from: number | null) {
  if (!about && from === null) return null;
  return html`${about || ""}${about && from !== null ? " · " : ""}${from !== null && html`<${Amount} text=${ctx.t.fromPrice(usdt(from))} />`}`;
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
    ${ctx.me.stars_topup && html`<${StarsTopUp} ctx=${ctx} offer=${ctx.me.stars_topup} />`}
    <h2 class="tu-title">${t.topupInvoiceTitle}</h2>
    <p class="muted tu-how">${t.topupInvoiceHow}</p>
    <div class="tu-amounts">
      ${[10, 25, 50, 100].map((n) => html`<button type="button" key=${n} onClick=${() => start({ amount_usdt: n, method: "invoice" })}>${`${count(n)} USDT`}</button>`)}
    </div>
    <p class="muted tu-how" data-testid="topup-limits">
      ${t.topupLimits(count(ctx.me.topup_limits.min_usdt), count(ctx.me.topup_limits.max_usdt), ctx.me.topup_limits.invoice_minutes)}
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

/**
 * Pay with Telegram Stars: the packs and a typed number of Stars, each with the USDT it credits, paid in Telegram's
 * own form (openInvoice); the page follows the top-up until the bot has credited it.
 */
function StarsTopUp({ ctx, offer }: { ctx: Ctx; offer: StarsOffer }) {
  const { t } = ctx;
  const { state, pay } = useStarsPayment(ctx);
  const [typed, setTyped] = useState(String(offer.packs[0]?.stars ?? offer.min_stars));
  const count = Number(typed);
  const valid = /^\d+$/.test(typed.trim()) && count >= offer.min_stars && count <= offer.max_stars;
  const busy = state.kind === "opening" || state.kind === "paying" || state.kind === "crediting";
  const said = starsPaymentText(ctx, state);
  return html`<div class="tu-stars" data-testid="stars-topup">
    <h2 class="tu-title">${t.starsTitle}</h2>
    <p class="muted tu-how">${t.starsHow(amount(offer.usdt_per_star))}</p>
    <ul class="packs">
      ${offer.packs.map(
        (p) =>
          html`<li key=${p.stars}>
            <button type="button" class="pack" data-testid=${`stars-pack-${p.stars}`} disabled=${busy} onClick=${() => void pay(p.stars)}>
              <span class="pack-count">${t.starsPack(p.stars)}</span><${Amount} text=${usdt(p.amount_usdt)} />
            </button>
          </li>`,
      )}
    </ul>
    <${Field}
      label=${t.starsToPay(offer.min_stars, offer.max_stars)}
      name="stars_to_pay"
      type="number"
      inputmode="numeric"
      min=${offer.min_stars}
      max=${offer.max_stars}
      value=${typed}
      onInput=${setTyped}
      hint=${valid ? t.starsCredits(creditText(creditOf(offer, count))) : t.starsRange(offer.min_stars, offer.max_stars)}
    />
    <button type="button" data-testid="stars-pay" disabled=${!valid || busy} onClick=${() => void pay(count)}>
      ${valid ? t.payStars(count) : t.starsTitle}
    </button>
    ${said && html`<${Outcome} kind=${said.kind} text=${said.text} testId="stars-status" />`}
  </div>`;
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
