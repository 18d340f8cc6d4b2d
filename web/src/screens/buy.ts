import { useEffect, useState } from "preact/hooks";
import type { Answer, Purchase } from "../api.js";
import { Checkout } from "../checkout.js";
import { exact, toMicro } from "../money.js";
import { Sticker } from "../sticker.js";
import { Choice, type Ctx, failure, Field, html, Outcome, useCheck, useLoad, usdt } from "../ui.js";

const USERNAME = /^@?([A-Za-z0-9_]{3,32})$/;
const username = (text: string) => USERNAME.exec(text.trim())?.[1] ?? null;

/** The recipient looked up as the user types (their name and photo), as the purchase will find them. */
function Recipient({ ctx, product, value, onInput }: { ctx: Ctx; product: "stars" | "premium"; value: string; onInput: (v: string) => void }) {
  const name = username(value);
  const found = useCheck(name, () =>
    ctx.api.post<Answer<"searchRecipient">>("/v1/search", {
      product_type: product,
      query: name!,
    }),
  );
  return html`<${Field} label=${ctx.t.recipient} name="username" value=${value} onInput=${onInput} autocomplete="off" required /> ${
      found.kind === "ok"
        ? html`<div class="person" data-testid="recipient">
            <img src=${found.value.found.photo} alt="" width="40" height="40" onError=${(e: Event) => ((e.target as HTMLElement).hidden = true)} />
            <span>${found.value.found.name} <span class="muted">@${found.value.found.recipient}</span></span>
          </div>`
        : found.kind === "error"
          ? html`<${Outcome} kind="error" text=${found.message} testId="recipient" />`
          : value && !name
            ? html`<${Outcome} kind="error" text=${ctx.t.usernameRule} testId="recipient" />`
            : null
    }`;
}

function Stars({ ctx }: { ctx: Ctx }) {
  const [to, setTo] = useState("");
  const [stars, setStars] = useState("50");
  const pricing = useLoad(() => ctx.api.get<Answer<"getPricing">>("/v1/pricing"));
  const bounds = pricing.kind === "ok" ? pricing.value.stars : { min: 50, max: 1_000_000 };
  const count = Number(stars);
  const ok = username(to) && Number.isInteger(count) && count >= bounds.min && count <= bounds.max;
  const purchase: Purchase | null = ok ? { product_type: "stars", username: username(to)!, stars: count } : null;
  return html`<${Recipient} ctx=${ctx} product="stars" value=${to} onInput=${setTo} />
    <${Field}
      label=${ctx.t.starsCount(bounds.min, bounds.max)}
      name="stars"
      type="number"
      inputmode="numeric"
      min=${bounds.min}
      max=${bounds.max}
      value=${stars}
      onInput=${setStars}
    />
    <${Checkout} ctx=${ctx} purchase=${purchase} />`;
}

function Premium({ ctx }: { ctx: Ctx }) {
  const [to, setTo] = useState("");
  const [months, setMonths] = useState("3");
  const pricing = useLoad(() => ctx.api.get<Answer<"getPricing">>("/v1/pricing"));
  const options: Array<[string, string]> =
    pricing.kind === "ok"
      ? pricing.value.premium.months.map((m) => [String(m), `${ctx.t.monthsOf(m)} · ${usdt(pricing.value.premium.usdt[m] ?? 0)}`])
      : [];
  // One of the months the service lists (GET /v1/pricing), which are the ones its purchase takes.
  const chosen = Number(months) as Extract<Purchase, { product_type: "premium" }>["months"];
  const purchase: Purchase | null = username(to) ? { product_type: "premium", username: username(to)!, months: chosen } : null;
  return html`<${Recipient} ctx=${ctx} product="premium" value=${to} onInput=${setTo} />
    <${Choice} label=${ctx.t.months} name="months" value=${months} options=${options} onChange=${setMonths} />
    <${Checkout} ctx=${ctx} purchase=${purchase} />`;
}

function Store({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [login, setLogin] = useState("");
  const [amount, setAmount] = useState("10");
  const pricing = useLoad(() => api.get<Answer<"getStorePricing">>("/v1/store/pricing"));
  const usd = Number(amount);
  const valid = login.trim() !== "" && usd > 0 && Number.isFinite(usd);
  const purchase: Purchase | null = valid ? { product_type: "store", login: login.trim(), amount_usd: usd } : null;
  // The bot's breakdown (the nominal, the provider's fee and our markup), read as the amount settles.
  const breakdown = useCheck(valid ? String(usd) : null, () => api.get<Answer<"getStorePricing">>(`/v1/store/pricing?amount_usd=${usd}`));
  const parts = breakdown.kind === "ok" ? breakdown.value.quote : null;
  const hint = pricing.kind === "ok" ? t.storeAmount(pricing.value.min_usd, pricing.value.max_usd) : null;
  return html`<${Field} label=${t.storeLogin} name="login" value=${login} onInput=${setLogin} autocomplete="off" hint=${t.storeLoginHint} />
    <${Field}
      label=${t.amountUsd}
      name="amount_usd"
      type="number"
      inputmode="decimal"
      step="0.01"
      value=${amount}
      onInput=${setAmount}
      hint=${hint}
    />
    <${Checkout}
      ctx=${ctx}
      purchase=${purchase}
      breakdown=${() => parts && t.storeBreakdown(parts.amount_usd, parts.provider_fee_usd, parts.markup_usdt)}
    />`;
}

function GameCredit({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const games = useLoad(() => api.get<Answer<"listGames">>("/v1/games"));
  const [code, setCode] = useState("");
  const [denomination, setDenomination] = useState("");
  const [player, setPlayer] = useState("");
  const [server, setServer] = useState("");
  const game = games.kind === "ok" ? games.value.games.find((g) => g.code === code) : undefined;
  const catalogue = useLoad(
    () => (code ? api.get<Answer<"getGameCatalogue">>(`/v1/games/${encodeURIComponent(code)}/catalogue`) : Promise.resolve(null)),
    [code],
  );
  useEffect(() => {
    setDenomination("");
    setServer("");
  }, [code]);
  const serverId = game?.needs_server ? server || null : null;
  const ready = game && player.trim() && (!game.needs_server || serverId);
  // The player's name as the game knows it, looked up as the id is typed.
  const found = useCheck(ready ? `${code}/${player}/${serverId}` : null, () =>
    api.post<Answer<"checkGamePlayer">>(`/v1/games/${encodeURIComponent(code)}/check-player`, { player_id: player.trim(), server_id: serverId }),
  );
  const purchase: Purchase | null =
    ready && denomination ? { product_type: "game", game_code: code, denomination, player_id: player.trim(), server_id: serverId } : null;
  if (games.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, games.error)} />`;
  const gameOptions: Array<[string, string]> = [
    ["", t.pick],
    ...(games.kind === "ok" ? games.value.games.map((g): [string, string] => [g.code, g.name]) : []),
  ];
  const denominations: Array<[string, string]> = [
    ["", t.pick],
    ...(catalogue.kind === "ok" && catalogue.value
      ? catalogue.value.denominations.map((d): [string, string] => [d.name, `${d.name} · ${usdt(d.price_usdt)}`])
      : []),
  ];
  return html`<${Choice} label=${t.game} name="game" value=${code} options=${gameOptions} onChange=${setCode} />
    ${game?.notes && html`<p class="muted">${game.notes}</p>`}
    ${game && html`<${Choice} label=${t.denomination} name="denomination" value=${denomination} options=${denominations} onChange=${setDenomination} />`}
    ${game && html`<${Field} label=${t.playerId} name="player_id" value=${player} onInput=${setPlayer} autocomplete="off" />`}
    ${
      game?.needs_server &&
      html`<${Choice}
        label=${t.server}
        name="server"
        value=${server}
        options=${[["", t.pick], ...Object.entries(game.servers ?? {}).map(([name, id]) => [id, name])]}
        onChange=${setServer}
      />`
    }
    ${found.kind === "ok" && html`<${Outcome} kind="ok" text=${`${t.player}: ${found.value.player_name}`} testId="player" />`}
    ${found.kind === "error" && html`<${Outcome} kind="error" text=${found.message} testId="player" />`}
    <${Checkout} ctx=${ctx} purchase=${found.kind === "ok" ? purchase : null} />`;
}

/** "2 × 10.30 USDT" when the charge splits into equal whole-micro parts; else no breakdown rather than a rounded unit. */
function unitBreakdown(count: number, charge: number): string | null {
  const micro = toMicro(charge);
  return micro % count === 0 ? `${count} × ${exact(micro / count)} USDT` : null;
}

function GiftCards({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const brands = useLoad(() => api.get<Answer<"listGiftcardBrands">>("/v1/giftcards"));
  const [brand, setBrand] = useState("");
  const [cardId, setCardId] = useState("");
  const [quantity, setQuantity] = useState("1");
  const catalogue = useLoad(
    () => (brand ? api.get<Answer<"getGiftcardCatalogue">>(`/v1/giftcards/${encodeURIComponent(brand)}/catalogue`) : Promise.resolve(null)),
    [brand],
  );
  useEffect(() => setCardId(""), [brand]);
  const cards = catalogue.kind === "ok" && catalogue.value ? catalogue.value.denominations : [];
  const card = cards.find((c) => c.card_id === cardId);
  const count = Number(quantity);
  const most = card ? Math.min(card.max_quantity, card.stock) : 0;
  const rule = card && (!Number.isInteger(count) || count < card.min_quantity || count > most) ? t.quantityRule(card.min_quantity, most) : null;
  const purchase: Purchase | null = card && !rule ? { product_type: "giftcard", category_id: brand, card_id: card.card_id, quantity: count } : null;
  const brandOptions: Array<[string, string]> = [
    ["", t.pick],
    ...(brands.kind === "ok" ? brands.value.giftcards.map((b): [string, string] => [b.category_id, b.name]) : []),
  ];
  return html`<${Choice} label=${t.brand} name="brand" value=${brand} options=${brandOptions} onChange=${setBrand} />
    ${
      brand &&
      html`<${Choice}
        label=${t.card}
        name="card"
        value=${cardId}
        options=${[
          ["", t.pick],
          ...cards.map((c): [string, string, boolean] => [
            c.card_id,
            `${c.name} · ${usdt(c.price_usdt)} · ${c.stock ? t.inStock(c.stock) : t.soldOut}`,
            c.stock === 0,
          ]),
        ]}
        onChange=${setCardId}
      />`
    }
    ${card && html`<${Field} label=${t.quantity} name="quantity" type="number" inputmode="numeric" min=${card.min_quantity} max=${most} value=${quantity} onInput=${setQuantity} />`}
    ${rule && html`<${Outcome} kind="error" text=${rule} testId="quantity-rule" />`}
    <${Checkout} ctx=${ctx} purchase=${purchase} breakdown=${(charge: number) => (card ? unitBreakdown(count, charge) : null)} />`;
}

function Gifts({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const gifts = useLoad(() => api.get<Answer<"listGifts">>("/v1/gifts"));
  const [giftId, setGiftId] = useState("");
  const [to, setTo] = useState("");
  const [hide, setHide] = useState(false);
  const [message, setMessage] = useState("");
  if (gifts.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, gifts.error)} />`;
  const list = gifts.kind === "ok" ? gifts.value.gifts : [];
  const purchase: Purchase | null =
    giftId && username(to) ? { product_type: "gift", recipient: username(to)!, gift_id: giftId, hide_name: hide, message } : null;
  return html`<div class="gifts" role="radiogroup" aria-label=${t.gift}>
      ${list.map(
        (g) =>
          html`<button
            type="button"
            key=${g.gift_id}
            role="radio"
            aria-checked=${g.gift_id === giftId}
            aria-label=${`${g.emoji} ${g.stars} ⭐ · ${usdt(g.price_usdt)}`}
            class=${g.gift_id === giftId ? "gift chosen" : "gift"}
            data-testid="gift"
            onClick=${() => setGiftId(g.gift_id)}
          >
            <${Sticker} ctx=${ctx} giftId=${g.gift_id} fallback=${g.emoji} />
            <span>${`${g.stars} ⭐ · ${usdt(g.price_usdt)}`}</span>
          </button>`,
      )}
    </div>
    ${
      giftId &&
      html`<${Field} label=${t.recipient} name="recipient" value=${to} onInput=${setTo} autocomplete="off" />
        <${Field} label=${t.giftMessage} name="message" value=${message} onInput=${setMessage} maxlength="255" />
        <label class="check"
          ><input type="checkbox" checked=${hide} onChange=${(e: Event) => setHide((e.target as HTMLInputElement).checked)} />${t.hideName}</label
        >`
    }
    <${Checkout} ctx=${ctx} purchase=${purchase} />`;
}

const FORMS = { stars: Stars, premium: Premium, store: Store, game: GameCredit, giftcard: GiftCards, gift: Gifts };

/** One product's form and checkout. */
export function Buy({ ctx, product }: { ctx: Ctx; product: keyof typeof FORMS }) {
  const Form = FORMS[product];
  return html`<section class="card">
    <h1>${ctx.t.products[product]}</h1>
    <${Form} ctx=${ctx} />
  </section>`;
}
