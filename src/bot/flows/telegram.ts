import { InlineKeyboard } from "grammy";
import type { Caller } from "../../core/accounts.js";
import { PREMIUM_MONTHS, STARS_MAX, STARS_MIN } from "../../core/formats.js";
import type { Found } from "../../core/products/telegram.js";
import { starsPreset } from "../callback-data.js";
import type { Flow, FlowContext } from "../context.js";
import { usdt } from "../format.js";
import {
  ask,
  askUsername,
  callCore,
  choose,
  confirmAndBuy,
  defineFlow,
  ensureAffordable,
  type FlowDeps,
  parseWhole,
  refuse,
  startFlow,
} from "./kit.js";
import { micro } from "../../core/model/money.js";

const STAR_PRESETS = [50, 100, 250, 500, 1000, 2500];

/** Asks for the recipient (the user themself when they have a username) and looks them up, until one is found. */
async function recipient(conversation: Flow, ctx: FlowContext, deps: FlowDeps, caller: Caller, product: "stars" | "premium"): Promise<Found> {
  let prompt: string | undefined;
  for (;;) {
    const username = await askUsername(conversation, ctx, prompt);
    const found = await callCore(conversation, () => deps.core.search(caller, product, username));
    if (found.ok) return found.value;
    if (found.code !== "not_found") return refuse(conversation, ctx, deps, found);
    prompt = ctx.t("recipient-not-found", { username });
  }
}

export const starsFlow = defineFlow("stars", "menu-stars", (deps) => async (conversation, ctx) => {
  const { core } = deps;
  const { caller, canSpendMicro } = await startFlow(conversation, ctx, deps);
  await ensureAffordable(conversation, ctx, deps, canSpendMicro, core.pricing.starsPrice(STARS_MIN));
  const who = await recipient(conversation, ctx, deps, caller, "stars");
  const presets = new InlineKeyboard();
  STAR_PRESETS.forEach((n, i) => {
    presets.text(String(n), starsPreset.pack({ stars: n }));
    if (i % 3 === 2) presets.row();
  });
  let prompt = ctx.t("ask-stars", { name: who.name, username: who.username, min: STARS_MIN, max: STARS_MAX });
  for (;;) {
    const reply = await ask(conversation, ctx, prompt, presets);
    const stars = parseWhole(reply.kind === "button" ? String(starsPreset.parse(reply.data)?.stars ?? "") : reply.text, STARS_MIN, STARS_MAX);
    if (stars !== null) {
      const request = { username: who.username, stars };
      return confirmAndBuy(conversation, ctx, deps, caller, {
        price: () => core.stars.price({ caller, item: request }),
        describe: () => ctx.t("what-stars", { amount: stars, username: who.username }),
        buy: (options) => core.stars.buy({ caller, item: request, ...options }),
        later: ctx.t("later-delivery"),
      });
    }
    prompt = ctx.t("bad-stars", { min: STARS_MIN, max: STARS_MAX });
  }
});

export const premiumFlow = defineFlow("premium", "menu-premium", (deps) => async (conversation, ctx) => {
  const { core } = deps;
  const { caller, canSpendMicro } = await startFlow(conversation, ctx, deps);
  const cheapest = micro(Math.min(...PREMIUM_MONTHS.map((months) => core.pricing.premiumPrice(months))));
  await ensureAffordable(conversation, ctx, deps, canSpendMicro, cheapest);
  const who = await recipient(conversation, ctx, deps, caller, "premium");
  if (who.premium) await ctx.reply(ctx.t("premium-already", { username: who.username }));
  const options = PREMIUM_MONTHS.filter((months) => core.pricing.premiumPrice(months) <= canSpendMicro).map((months) => ({
    label: ctx.t("btn-months", { months, price: usdt(core.pricing.premiumPrice(months)) }),
    value: months,
    aliases: [String(months)],
  }));
  const months = await choose(conversation, ctx, ctx.t("ask-months", { name: who.name, username: who.username }), options, 3);
  const request = { username: who.username, months };
  return confirmAndBuy(conversation, ctx, deps, caller, {
    price: () => core.premium.price({ caller, item: request }),
    describe: () => ctx.t("what-premium", { months, username: who.username }),
    buy: (options) => core.premium.buy({ caller, item: request, ...options }),
    later: ctx.t("later-delivery"),
  });
});
