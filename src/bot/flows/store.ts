import { InlineKeyboard } from "grammy";
import { storeQuote } from "../../core/markup.js";
import type { Flow, FlowContext } from "../context.js";
import { ask, attempt, callerOf, confirmCharge, type FlowDeps, refuse, report, usdt } from "./kit.js";

const LOGIN = /^[A-Za-z0-9_.-]{3,64}$/;
const LINK = /^(?:https?:\/\/)?[A-Za-z0-9.-]+\/id\/([A-Za-z0-9_.-]{3,64})\/?$/;
const PRESETS_USD = [5, 10, 25, 50, 100];

export function storeFlow({ core }: FlowDeps) {
  return async function store(conversation: Flow, ctx: FlowContext) {
    const caller = await callerOf(conversation, ctx, core);
    const pricing = await attempt(conversation, () => core.store.pricing(caller));
    if (!pricing.ok) return refuse(conversation, ctx, pricing);
    const { limits, markupBp } = pricing.value;

    // The login, not the profile name: the same rules as the API, explained in the user's language.
    let prompt = ctx.t("ask-store-login");
    let login: string;
    for (;;) {
      const reply = await ask(conversation, ctx, prompt);
      const text = reply.kind === "text" ? reply.text : "";
      const link = LINK.exec(text);
      if (link || LOGIN.test(text)) {
        login = link ? link[1] : text;
        break;
      }
      prompt = text.includes("@") ? ctx.t("bad-login-email") : /\/profiles\/\d+/.test(text) ? ctx.t("bad-login-numeric") : ctx.t("bad-login");
    }

    const min = limits.minMicro / 1e6;
    const max = limits.maxMicro / 1e6;
    const presets = new InlineKeyboard();
    for (const usd of PRESETS_USD.filter((u) => u >= min && u <= max)) presets.text(`$${usd}`, `a:${usd}`);
    prompt = ctx.t("ask-store-amount", { login, min, max });
    let amountMicro: number;
    for (;;) {
      const reply = await ask(conversation, ctx, prompt, presets);
      const text = reply.kind === "button" ? reply.data.replace(/^a:/, "") : reply.text.replace(/^\$/, "");
      if (/^\d{1,4}(\.\d{1,2})?$/.test(text)) {
        const micro = Math.round(Number(text) * 100) * 10_000;
        if (micro >= limits.minMicro && micro <= limits.maxMicro) {
          amountMicro = micro;
          break;
        }
      }
      prompt = ctx.t("bad-store-amount", { min, max });
    }

    const quote = storeQuote(amountMicro, limits.feePpm, markupBp);
    const breakdown = ctx.t("store-quote", {
      login,
      amount: usdt(quote.amountMicro),
      fee: usdt(quote.feeMicro),
      markup: usdt(quote.markupMicro),
      percent: markupBp / 100,
      total: usdt(quote.totalMicro),
    });
    const key = await confirmCharge(conversation, ctx, core, caller, breakdown, quote.totalMicro);
    const result = await attempt(conversation, () => core.store.buy(caller, { login, amountUsd: amountMicro / 1e6, idempotencyKey: key }));
    await report(conversation, ctx, core, caller, result, ctx.t("later-store"));
  };
}
