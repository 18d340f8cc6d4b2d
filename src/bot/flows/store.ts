import { InlineKeyboard } from "grammy";
import { checkStoreLogin } from "../../core/limits.js";
import { parseUsd, toUsdt } from "../../core/money.js";
import type { StoreDetails } from "../../core/products/store.js";
import type { PurchaseOptions, Quote } from "../../core/purchase.js";
import type { Flow, FlowContext } from "../context.js";
import { usdt } from "../format.js";
import { ask, attempt, callerOf, defineFlow, purchase, refuse } from "./kit.js";

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

export const storeFlow = defineFlow("store", "menu-store", ({ core }) => async (conversation, ctx) => {
  const caller = await callerOf(conversation, ctx, core);
  const pricing = await attempt(conversation, () => core.store.pricing(caller));
  if (!pricing.ok) return refuse(conversation, ctx, pricing);
  const { limits } = pricing.value;
  const account = await login(conversation, ctx);

  // The amount, checked by the core's quote against the live limits; a refused amount is asked again with them.
  const presets = new InlineKeyboard();
  for (const usd of PRESETS_USD.filter((u) => u * 1e6 >= limits.minMicro && u * 1e6 <= limits.maxMicro)) presets.text(`$${usd}`, `a:${usd}`);
  const range = { min: toUsdt(limits.minMicro), max: toUsdt(limits.maxMicro) };
  let prompt = ctx.t("ask-store-amount", { login: account, ...range });
  for (;;) {
    const reply = await ask(conversation, ctx, prompt, presets);
    const micro = parseUsd(reply.kind === "button" ? reply.data.replace(/^a:/, "") : reply.text.replace(/^\$/, ""));
    if (micro === null) {
      prompt = ctx.t("bad-store-amount", range);
      continue;
    }
    const request = { login: account, amountUsd: micro / 1e6 };
    const quote = await attempt(conversation, () => core.store.quote(caller, request));
    if (!quote.ok && quote.details.reason === "invalid_amount") {
      // The limits are live: the refusal carries the ones that applied just now.
      const { minMicro = limits.minMicro, maxMicro = limits.maxMicro } = quote.details;
      prompt = ctx.t("bad-store-amount", { min: toUsdt(minMicro), max: toUsdt(maxMicro) });
      continue;
    }
    const order = {
      quote: () => core.store.quote(caller, request),
      describe: ({ details, chargeMicro }: Quote<StoreDetails>) =>
        ctx.t("store-quote", {
          login: details.store_login,
          amount: usdt(details.amount_micro),
          fee: usdt(details.fee_micro),
          markup: usdt(details.markup_micro),
          percent: details.markup_bp / 100,
          total: usdt(chargeMicro),
        }),
      buy: (options: PurchaseOptions) => core.store.buy(caller, request, options),
      later: ctx.t("later-store"),
    };
    return purchase(conversation, ctx, core, caller, order, quote);
  }
});
