import { InlineKeyboard } from "grammy";
import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import type { Micro } from "../../core/money.js";
import { PREMIUM_MONTHS, STARS_MAX, STARS_MIN } from "../../core/pricing.js";
import type { DeliveryRequest, Found } from "../../core/purchases.js";
import type { Flow, FlowContext } from "../context.js";
import { ask, attempt, callerOf, confirmCharge, type FlowDeps, parseUsername, parseWhole, refuse, report, usdt } from "./kit.js";

const STAR_PRESETS = [50, 100, 250, 500, 1000, 2500];

/** Asks for the recipient (the user themself by default) and looks them up, until one is found. */
async function recipient(conversation: Flow, ctx: FlowContext, core: Core, caller: Caller, product: "stars" | "premium"): Promise<Found> {
  const own = ctx.from?.username;
  const keyboard = own ? new InlineKeyboard().text(ctx.t("btn-myself", { username: own }), "me") : undefined;
  let prompt = ctx.t("ask-recipient");
  for (;;) {
    const reply = await ask(conversation, ctx, prompt, keyboard);
    const username = reply.kind === "button" ? (reply.data === "me" && own ? own : null) : parseUsername(reply.text);
    if (!username) {
      prompt = ctx.t("bad-username");
      continue;
    }
    const found = await attempt(conversation, () => core.purchases.search(caller, product, username));
    if (found.ok) return found.value;
    if (found.code !== "not_found") return refuse(conversation, ctx, found);
    prompt = ctx.t("recipient-not-found", { username });
  }
}

/** The last two steps every stars or premium purchase shares: confirm with the exact charge, then buy. */
async function deliver(conversation: Flow, ctx: FlowContext, core: Core, caller: Caller, request: Omit<DeliveryRequest, "idempotencyKey">, priceMicro: Micro, what: string) {
  const key = await confirmCharge(conversation, ctx, core, caller, what, priceMicro);
  const result = await attempt(conversation, () => core.purchases.buy(caller, { ...request, idempotencyKey: key }));
  await report(conversation, ctx, core, caller, result, ctx.t("later-delivery"));
}

export function starsFlow({ core }: FlowDeps) {
  return async function stars(conversation: Flow, ctx: FlowContext) {
    const caller = await callerOf(conversation, ctx, core);
    const who = await recipient(conversation, ctx, core, caller, "stars");
    const presets = new InlineKeyboard();
    STAR_PRESETS.forEach((n, i) => {
      presets.text(String(n), `n:${n}`);
      if (i % 3 === 2) presets.row();
    });
    let prompt = ctx.t("ask-stars", { name: who.name, username: who.username, min: STARS_MIN, max: STARS_MAX });
    for (;;) {
      const reply = await ask(conversation, ctx, prompt, presets);
      const amount = parseWhole(reply.kind === "button" ? reply.data.replace(/^n:/, "") : reply.text, STARS_MIN, STARS_MAX);
      if (amount !== null) {
        const price = core.pricing.starsPrice(amount);
        const what = ctx.t("what-stars", { amount, username: who.username });
        return deliver(conversation, ctx, core, caller, { product: "stars", username: who.username, amount }, price, what);
      }
      prompt = ctx.t("bad-stars", { min: STARS_MIN, max: STARS_MAX });
    }
  };
}

export function premiumFlow({ core }: FlowDeps) {
  return async function premium(conversation: Flow, ctx: FlowContext) {
    const caller = await callerOf(conversation, ctx, core);
    const who = await recipient(conversation, ctx, core, caller, "premium");
    if (who.premium) await ctx.reply(ctx.t("premium-already", { username: who.username }));
    const keyboard = new InlineKeyboard();
    for (const months of PREMIUM_MONTHS) keyboard.text(ctx.t("btn-months", { months, price: usdt(core.pricing.premiumPrice(months)) }), `m:${months}`);
    let prompt = ctx.t("ask-months", { name: who.name, username: who.username });
    for (;;) {
      const reply = await ask(conversation, ctx, prompt, keyboard);
      const months = Number((reply.kind === "button" ? reply.data : reply.text).replace(/^m:/, ""));
      if ((PREMIUM_MONTHS as readonly number[]).includes(months)) {
        const what = ctx.t("what-premium", { months, username: who.username });
        return deliver(conversation, ctx, core, caller, { product: "premium", username: who.username, amount: months }, core.pricing.premiumPrice(months), what);
      }
      prompt = ctx.t("bad-months");
    }
  };
}
