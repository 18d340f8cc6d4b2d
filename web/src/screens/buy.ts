import { useEffect, useRef, useState } from "preact/hooks";
import type { Answer, Purchase } from "../api.js";
import { Checkout } from "../checkout.js";
import { exact, fromMicro, share, toMicro } from "../money.js";
import { Sticker } from "../sticker.js";
import { Amount, Cell, Choice, type Ctx, failure, Field, html, Outcome, type Preset, Section, Skeleton, useCheck, useLoad, usdt } from "../ui.js";
import { recentRecipients } from "./account.js";

type Forms = Answer<"miniAppForms">;

/** What the forms take (a recipient's username, a gift's text), as the service decides it for this user; null while it loads. */
function useForms(ctx: Ctx): Forms | null {
  const forms = useLoad(() => ctx.api.cached<Forms>("/miniapp/forms"));
  return forms.kind === "ok" ? forms.value : null;
}

/** The username a typed recipient names, without its @; null when it is not one (or the rule is not read yet). */
const usernameOf = (forms: Forms | null, text: string) => (forms && new RegExp(forms.recipient.pattern).exec(text.trim())?.[1]) || null;

/** The recipient looked up as the user types (their name and photo), as the purchase will find them. */
function Recipient({ ctx, product, value, onInput }: { ctx: Ctx; product: "stars" | "premium"; value: string; onInput: (v: string) => void }) {
  const forms = useForms(ctx);
  const name = usernameOf(forms, value);
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
          : forms && value && !name
            ? html`<${Outcome} kind="error" text=${ctx.t.usernameRule(forms.recipient.min_length, forms.recipient.max_length)} testId="recipient" />`
            : null
    }`;
}

/** The user's recent recipients (stars, premium and gift orders), for one tap. */
function useRecentRecipients(ctx: Ctx): string[] {
  const recent = useLoad(() => ctx.api.get<Answer<"listOrders">>("/v1/orders?limit=20"));
  return recent.kind === "ok" ? recentRecipients(recent.value.orders) : [];
}

/**
 * Who gets it: "Myself" and the recent recipients as cells (a tap chooses, and the price comes at once), or a
 * username typed.
 */
function Recipients({
  ctx,
  product,
  to,
  choose,
  type,
}: {
  ctx: Ctx;
  product: "stars" | "premium";
  to: string;
  choose: (who: string) => void;
  type: (who: string) => void;
}) {
  const { t, me } = ctx;
  const recent = useRecentRecipients(ctx).filter((r) => r !== me.username?.toLowerCase());
  const chosen = usernameOf(useForms(ctx), to)?.toLowerCase();
  const people: Array<[string, string]> = [
    ...(me.username ? [[me.username, `${t.myself} · @${me.username}`] as [string, string]] : []),
    ...recent.map((r): [string, string] => [r, `@${r}`]),
  ];
  return html`<${Section} title=${t.forWhom}>
    ${people.map(
      ([who, title]) =>
        html`<${Cell}
          key=${who}
          icon=${who === me.username ? "🙂" : "👤"}
          title=${title}
          after=${chosen === who.toLowerCase() ? "✓" : null}
          testId=${who === me.username ? "recipient-myself" : `recipient-${who}`}
          onPress=${() => choose(`@${who}`)}
        />`,
    )}
    <div class="section-pad"><${Recipient} ctx=${ctx} product=${product} value=${to} onInput=${type} /></div>
  <//>`;
}

function Stars({ ctx, preset }: { ctx: Ctx; preset: Preset }) {
  const { t } = ctx;
  const [to, setTo] = useState(preset.to ?? "");
  const [stars, setStars] = useState(String(preset.stars ?? 50));
  const pricing = useLoad(() => ctx.api.cached<Answer<"getPricing">>("/v1/pricing"));
  const bounds = pricing.kind === "ok" ? pricing.value.stars : { min: 50, max: 1_000_000, usdt_per_star: 0 };
  const count = Number(stars);
  const recipient = usernameOf(useForms(ctx), to);
  const ok = recipient && Number.isInteger(count) && count >= bounds.min && count <= bounds.max;
  const purchase: Purchase | null = ok ? { product_type: "stars", username: recipient, stars: count } : null;
  return html`<${Section} title=${t.howMany} hint=${pricing.kind === "ok" ? t.starsHint(bounds.min, bounds.max) : null}>
      <div class="packs" role="radiogroup" aria-label=${t.packs}>
        ${[50, 100, 250, 500, 1000].map(
          (n) =>
            html`<button
              type="button"
              key=${n}
              role="radio"
              aria-checked=${count === n}
              class=${count === n ? "pack chosen" : "pack"}
              onClick=${() => setStars(String(n))}
            >
              <span class="pack-count">${t.starsPack(n)}</span
              >${pricing.kind === "ok" && html`<${Amount} text=${usdt(fromMicro(n * toMicro(bounds.usdt_per_star)))} />`}
            </button>`,
        )}
      </div>
      <div class="section-pad">
        <${Field}
          label=${t.starsCount(bounds.min, bounds.max)}
          name="stars"
          type="number"
          inputmode="numeric"
          min=${bounds.min}
          max=${bounds.max}
          value=${stars}
          onInput=${setStars}
        />
      </div>
    <//>
    <${Recipients} ctx=${ctx} product="stars" to=${to} choose=${setTo} type=${setTo} />
    <${Checkout} ctx=${ctx} purchase=${purchase} />`;
}

function Premium({ ctx, preset }: { ctx: Ctx; preset: Preset }) {
  const { t } = ctx;
  const [to, setTo] = useState(preset.to ?? "");
  const [months, setMonths] = useState(String(preset.months ?? 3));
  const pricing = useLoad(() => ctx.api.cached<Answer<"getPricing">>("/v1/pricing"));
  // One of the months the service lists (GET /v1/pricing), which are the ones its purchase takes.
  const chosen = Number(months) as Extract<Purchase, { product_type: "premium" }>["months"];
  const recipient = usernameOf(useForms(ctx), to);
  const purchase: Purchase | null = recipient ? { product_type: "premium", username: recipient, months: chosen } : null;
  return html`<${Section} title=${t.months}>
      ${
        pricing.kind === "ok"
          ? html`<div class="plans" role="radiogroup" aria-label=${t.months}>
              ${pricing.value.premium.months.map((m) => {
                const price = pricing.value.premium.usdt[m] ?? 0;
                return html`<button
                  type="button"
                  key=${m}
                  role="radio"
                  aria-checked=${chosen === m}
                  class=${chosen === m ? "plan chosen" : "plan"}
                  data-testid=${`plan-${m}`}
                  onClick=${() => setMonths(String(m))}
                >
                  <span class="plan-months">${t.monthsOf(m)}</span>
                  <${Amount} text=${usdt(price)} />
                  <span class="plan-month">${t.perMonth(share(price, m))}</span>
                </button>`;
              })}
            </div>`
          : pricing.kind === "error"
            ? html`<${Outcome} kind="error" text=${failure(t, pricing.error)} />`
            : html`<${Skeleton} rows=${1} label=${t.loading} />`
      }
    <//>
    <${Recipients} ctx=${ctx} product="premium" to=${to} choose=${setTo} type=${setTo} />
    <${Checkout} ctx=${ctx} purchase=${purchase} />`;
}

function Store({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [login, setLogin] = useState("");
  const [amount, setAmount] = useState("10");
  const pricing = useLoad(() => api.cached<Answer<"getStorePricing">>("/v1/store/pricing"));
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
  const games = useLoad(() => api.cached<Answer<"listGames">>("/v1/games"));
  const [code, setCode] = useState("");
  const [denomination, setDenomination] = useState("");
  const [player, setPlayer] = useState("");
  const [server, setServer] = useState("");
  const game = games.kind === "ok" ? games.value.games.find((g) => g.code === code) : undefined;
  const catalogue = useLoad(
    () => (code ? api.cached<Answer<"getGameCatalogue">>(`/v1/games/${encodeURIComponent(code)}/catalogue`) : Promise.resolve(null)),
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

function GiftCards({ ctx, preset }: { ctx: Ctx; preset: Preset }) {
  const { t, api } = ctx;
  const brands = useLoad(() => api.cached<Answer<"listGiftcardBrands">>("/v1/giftcards"));
  const [brand, setBrand] = useState(preset.brand ?? "");
  const [cardId, setCardId] = useState("");
  const [quantity, setQuantity] = useState("1");
  const catalogue = useLoad(
    () => (brand ? api.cached<Answer<"getGiftcardCatalogue">>(`/v1/giftcards/${encodeURIComponent(brand)}/catalogue`) : Promise.resolve(null)),
    [brand],
  );
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else setCardId("");
  }, [brand]);
  const brandName = brands.kind === "ok" ? (brands.value.giftcards.find((b) => b.category_id === brand)?.name ?? brand) : brand;
  const cards = catalogue.kind === "ok" && catalogue.value ? catalogue.value.denominations : [];
  const card = cards.find((c) => c.card_id === cardId);
  const count = Number(quantity);
  const most = card ? Math.min(card.max_quantity, card.stock) : 0;
  const rule = card && (!Number.isInteger(count) || count < card.min_quantity || count > most) ? t.quantityRule(card.min_quantity, most) : null;
  const purchase: Purchase | null = card && !rule ? { product_type: "giftcard", category_id: brand, card_id: card.card_id, quantity: count } : null;
  if (brands.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, brands.error)} />`;
  if (brands.kind === "ok" && !brands.value.giftcards.length) return html`<p class="empty">${t.nothingOnSale}</p>`;
  const brandOptions: Array<[string, string]> = [
    ["", t.pick],
    ...(brands.kind === "ok" ? brands.value.giftcards.map((b): [string, string] => [b.category_id, b.name]) : []),
  ];
  return html`<${Section} hint=${brand ? null : t.chooseBrand}>
      <div class="section-pad">
        <${Choice} label=${t.brand} name="brand" value=${brand} options=${brandOptions} onChange=${setBrand} />
      </div>
    <//>
    ${
      brand &&
      html`<${Section} title=${brandName}>
        ${
          catalogue.kind === "loading"
            ? html`<${Skeleton} rows=${2} label=${t.loading} />`
            : cards.length === 0
              ? html`<p class="empty">${t.nothingOnSale}</p>`
              : html`<div role="radiogroup" aria-label=${t.card}>
                  ${cards.map(
                    (c) =>
                      html`<button
                        type="button"
                        key=${c.card_id}
                        role="radio"
                        aria-checked=${c.card_id === cardId}
                        disabled=${c.stock === 0}
                        class=${c.card_id === cardId ? "cell chosen" : "cell"}
                        data-testid=${`card-${c.card_id}`}
                        onClick=${() => setCardId(c.card_id)}
                      >
                        <span class="cell-text"
                          ><span class="cell-title">${c.name}</span
                          ><span class="cell-subtitle"
                            >${c.stock ? t.quantityHint(c.min_quantity, Math.min(c.max_quantity, c.stock), c.stock) : t.soldOut}</span
                          ></span
                        >
                        <span class="cell-after"><${Amount} text=${usdt(c.price_usdt)} />${c.card_id === cardId ? " ✓" : ""}</span>
                      </button>`,
                  )}
                </div>`
        }
        ${
          card &&
          html`<div class="section-pad">
            <${Field}
              label=${t.quantity}
              name="quantity"
              type="number"
              inputmode="numeric"
              min=${card.min_quantity}
              max=${most}
              value=${quantity}
              onInput=${setQuantity}
              hint=${t.quantityHint(card.min_quantity, card.max_quantity, card.stock)}
            />
            ${rule && html`<${Outcome} kind="error" text=${rule} testId="quantity-rule" />`}
          </div>`
        }
      <//>`
    }
    <${Checkout}
      ctx=${ctx}
      purchase=${purchase}
      recipientName=${card ? t.ofBrand(brandName, card.name) : undefined}
      breakdown=${(charge: number) => (card ? unitBreakdown(count, charge) : null)}
    />`;
}

function Gifts({ ctx, preset }: { ctx: Ctx; preset: Preset }) {
  const { t, api } = ctx;
  const gifts = useLoad(() => api.cached<Answer<"listGifts">>("/v1/gifts"));
  const forms = useLoad(() => api.cached<Forms>("/miniapp/forms"));
  const [giftId, setGiftId] = useState(preset.giftId ?? "");
  const [to, setTo] = useState(preset.to ?? "");
  const [hide, setHide] = useState(false);
  const [message, setMessage] = useState("");
  for (const load of [gifts, forms]) if (load.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, load.error)} />`;
  if (gifts.kind !== "ok" || forms.kind !== "ok") return html`<${Skeleton} rows=${3} label=${t.loading} />`;
  const list = gifts.value.gifts;
  if (!list.length) return html`<p class="empty">${t.nothingOnSale}</p>`;
  // Where the shop's bot sends (Telegram's own backend), it is always the sender shown and the text holds less.
  const byBot = !forms.value.gift.names_buyer;
  const messageMax = forms.value.gift.message_max;
  const recipient = usernameOf(forms.value, to);
  const purchase: Purchase | null =
    giftId && recipient ? { product_type: "gift", recipient, gift_id: giftId, hide_name: byBot ? false : hide, message } : null;
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
            <span class="gift-stars">${t.giftPicked(g.emoji, g.stars)}</span>
            <${Amount} text=${usdt(g.price_usdt)} />
          </button>`,
      )}
    </div>
    ${
      giftId &&
      html`<${Section}>
        <div class="section-pad">
          <${Field} label=${t.recipient} name="recipient" value=${to} onInput=${setTo} autocomplete="off" />
          <${Field}
            label=${t.giftMessage}
            name="message"
            value=${message}
            onInput=${setMessage}
            maxlength=${messageMax}
            hint=${`${message.length}/${messageMax}`}
          />
          ${
            byBot
              ? html`<p class="muted small">${t.bySender}</p>`
              : html`<label class="check"
                  ><input
                    type="checkbox"
                    checked=${hide}
                    onChange=${(e: Event) => setHide((e.target as HTMLInputElement).checked)}
                  />${t.hideName}</label
                >`
          }
        </div>
      <//>`
    }
    <${Checkout} ctx=${ctx} purchase=${purchase} />`;
}

const FORMS = { stars: Stars, premium: Premium, store: Store, game: GameCredit, giftcard: GiftCards, gift: Gifts };

/** One product's form and checkout, opened with what was tapped on the first screen. */
export function Buy({ ctx, product, preset }: { ctx: Ctx; product: keyof typeof FORMS; preset: Preset }) {
  const Form = FORMS[product];
  const { t } = ctx;
  // The goods' full names, as the first screen heads them: the screen's title says it once.
  const titles = {
    stars: t.goodsStars,
    premium: t.goodsPremium,
    gift: t.goodsGifts,
    giftcard: t.goodsGiftcards,
    store: t.products.store,
    game: t.products.game,
  };
  return html`<div class="buy">
    <h1 class="screen-title">${titles[product]}</h1>
    ${
      product === "store" || product === "game"
        ? html`<${Section}
            ><div class="section-pad"><${Form} ctx=${ctx} preset=${preset} /></div
          ><//>`
        : html`<${Form} ctx=${ctx} preset=${preset} />`
    }
  </div>`;
}
