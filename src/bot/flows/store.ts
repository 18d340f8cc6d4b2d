import { InlineKeyboard } from "grammy";
import { checkStoreLogin } from "../../core/formats.js";
import { storePrice } from "../../core/markup.js";
import { fromUsd, microUsd, parseUsd, usdAsUsdt } from "../../core/model/money.js";
import type { StoreDetails } from "../../core/model/products.js";
import type { Priced, PurchaseOptions } from "../../core/purchase.js";
import { storeAmountPreset } from "../callback-data.js";
import type { Flow, FlowContext } from "../context.js";
import { plainNumber, usd, usdt } from "../format.js";
import { ask, callCore, confirmAndBuy, defineFlow, ensureAffordable, refuse, startFlow } from "./kit.js";

const PRESETS_USD = [5, 10, 25, 50, 100];
const LOGIN_REFUSALS = { email: "bad-login-email", numeric_link: "bad-login-numeric", pattern: "bad-login" } as const;

/** The login, not the profile name: the core's rule, explained in the user's language. */
async function login(conversation: Flow, ctx: FlowContext): Promise<string> {
  let prompt = ctx.t("ask-store-login");
  for (;;) {
    const reply = await ask(conversation, ctx, prompt);
    const checked = checkStoreLogin(reply.kind === "text" ? reply.text : "");
    if (checked.ok) return checked.login;
    prompt = ctx.t(LOGIN_REFUSALS[checked.why]);
  }
}

export const storeFlow = defineFlow("store", "menu-store", (deps) => async (conversation, ctx) => {
  const { core } = deps;
  const { caller, canSpendMicro } = await startFlow(conversation, ctx, deps);
  const pricing = await callCore(conversation, () => core.store.pricing(caller));
  if (!pricing.ok) return refuse(conversation, ctx, deps, pricing);
  const { limits, markupBp } = pricing.value;
  await ensureAffordable(conversation, ctx, deps, canSpendMicro, usdAsUsdt(storePrice(limits.minMicro, limits.feePpm, markupBp).totalMicro));
  const account = await login(conversation, ctx);

  // The amount, checked by the core's price against the live limits; a refused amount is asked again with them.
  const presets = new InlineKeyboard();
  for (const dollars of PRESETS_USD.filter((d) => fromUsd(d) >= limits.minMicro && fromUsd(d) <= limits.maxMicro))
    presets.text(usd(fromUsd(dollars)), storeAmountPreset.pack({ usd: dollars }));
  const range = { min: usd(limits.minMicro), max: usd(limits.maxMicro) };
  let prompt = ctx.t("ask-store-amount", { login: account, ...range });
  for (;;) {
    const reply = await ask(conversation, ctx, prompt, presets);
    const typed =
      reply.kind === "button" ? String(storeAmountPreset.parse(reply.data)?.usd ?? "") : plainNumber(reply.text.replace(/^\$|\s*usd$/gi, ""));
    const micro = typed === null ? null : parseUsd(typed);
    // Zero is no nominal at all: asked again within the limits shown, before the core is asked.
    if (micro === null || micro === 0) {
      prompt = ctx.t("bad-store-amount", range);
      continue;
    }
    const request = { login: account, amountMicro: micro };
    const price = await callCore(conversation, () => core.store.price({ caller, item: request }));
    if (!price.ok && "reason" in price.details && price.details.reason === "invalid_amount") {
      // The limits are live: the refusal carries the ones that applied just now.
      const { minMicro, maxMicro } = price.details;
      prompt = ctx.t("bad-store-amount", { min: usd(minMicro), max: usd(maxMicro) });
      continue;
    }
    const order = {
      price: () => core.store.price({ caller, item: request }),
      // The breakdown adds up to the total: the markup shown is what the total adds to the cost, after rounding.
      describe: ({ details, chargeMicro }: Priced<StoreDetails>) =>
        ctx.t("store-quote", {
          login: details.store_login,
          amount: usd(microUsd(details.amount_micro)),
          fee: usdt(details.fee_micro),
          markup: usdt(chargeMicro - details.cost_micro),
          percent: details.markup_bp / 100,
          total: usdt(chargeMicro),
        }),
      buy: (options: PurchaseOptions) => core.store.buy({ caller, item: request, ...options }),
      later: ctx.t("later-store"),
    };
    return confirmAndBuy(conversation, ctx, deps, caller, order, price);
  }
});
