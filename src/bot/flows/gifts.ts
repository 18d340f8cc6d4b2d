import { InlineKeyboard } from "grammy";
import type { Caller } from "../../core/accounts.js";
import { skipMessage } from "../callback-data.js";
import type { Flow, FlowContext } from "../context.js";
import { usdt } from "../format.js";
import { ask, askUsername, callCore, choose, confirmAndBuy, defineFlow, ensureAffordable, finish, type FlowDeps, refuse, startFlow } from "./kit.js";
import { micro } from "../../core/model/money.js";

/** The Skip button's label in both languages, typed instead of tapped. */
const SKIP_WORDS = new Set(["skip", "пропустить"]);

/** The recipient, checked at once: unknown, or refusing gifts (their choice), is asked again with the reason. */
async function giftRecipient(conversation: Flow, ctx: FlowContext, deps: FlowDeps, caller: Caller): Promise<Recipient> {
  const { core } = deps;
  let prompt: string | undefined;
  for (;;) {
    const username = await askUsername(conversation, ctx, prompt);
    const check = await callCore(conversation, () => core.gifts.checkRecipient(username));
    if (!check.ok) return refuse(conversation, ctx, deps, check);
    if (!check.value.exists) prompt = ctx.t("recipient-not-found", { username });
    else if (!check.value.acceptsGifts) prompt = ctx.t("gift-refuses-choose-another", { username });
    else {
      // The name, as stars and premium show it, when the delivery gateway knows the user.
      const found = await callCore(conversation, () => core.search(caller, "stars", username));
      return { username, name: found.ok ? found.value.name : username };
    }
  }
}

/**
 * The message sent with the gift, under the core's text rules, told before it is asked for (with the label it will
 * start with where the bot sends it); Skip (tapped or typed) sends none.
 */
async function giftMessage(conversation: Flow, ctx: FlowContext, deps: FlowDeps, caller: Caller, recipient: Recipient): Promise<string> {
  const { gifts } = deps.core;
  const max = gifts.textRoom(caller);
  const label = gifts.textLabel(caller);
  const vars = { max, name: recipient.name, username: recipient.username };
  let prompt = label ? ctx.t("ask-gift-message-labelled", { ...vars, label: label.trim() }) : ctx.t("ask-gift-message", vars);
  for (;;) {
    const reply = await ask(conversation, ctx, prompt, new InlineKeyboard().text(ctx.t("btn-skip"), skipMessage.pack()));
    // Typing the button's label (in either language) skips too, as with every other button question.
    const typedSkip = reply.kind === "text" && SKIP_WORDS.has(reply.text.trim().toLowerCase());
    if ((reply.kind === "button" && skipMessage.parse(reply.data)) || typedSkip) return "";
    if (reply.kind !== "text") continue;
    const why = gifts.textFault(caller, reply.text);
    if (why === null) return reply.text;
    prompt = ctx.t("bad-gift-message", { why });
  }
}

interface Recipient {
  username: string;
  name: string;
}

export const giftsFlow = defineFlow("gifts", "menu-gifts", (deps) => async (conversation, ctx) => {
  const { core } = deps;
  const { caller, canSpendMicro } = await startFlow(conversation, ctx, deps);
  const catalogue = await callCore(conversation, () => core.gifts.catalogue());
  if (!catalogue.ok) return refuse(conversation, ctx, deps, catalogue);
  const items = catalogue.value;
  if (!items.length) {
    await finish(ctx, deps, ctx.t("no-stock"));
    return conversation.halt();
  }
  await ensureAffordable(conversation, ctx, deps, canSpendMicro, micro(Math.min(...items.map((g) => g.priceMicro))));

  const gift = await choose(
    conversation,
    ctx,
    ctx.t("ask-gift"),
    items
      .filter((g) => g.priceMicro <= canSpendMicro)
      .map((g) => ({
        label: ctx.t("btn-gift", { emoji: g.emoji, stars: g.stars, price: usdt(g.priceMicro), limited: g.limited ? "yes" : "no" }),
        value: g,
        aliases: [g.emoji],
      })),
    2,
  );

  const recipient = await giftRecipient(conversation, ctx, deps, caller);
  const message = await giftMessage(conversation, ctx, deps, caller, recipient);

  // Where the sender shown is never the buyer (the bot sends), there is nothing to hide: no question.
  const hideName = core.gifts.namesBuyer
    ? await choose(
        conversation,
        ctx,
        ctx.t("ask-gift-hide"),
        [
          { label: ctx.t("btn-show-name"), value: false, aliases: ["show", "показать"] },
          { label: ctx.t("btn-hide-name"), value: true, aliases: ["hide", "скрыть"] },
        ],
        2,
      )
    : true;

  const request = { recipient: recipient.username, giftId: gift.giftId, hideName, message };
  const to = recipient;
  return confirmAndBuy(conversation, ctx, deps, caller, {
    price: () => core.gifts.price({ caller, item: request }),
    describe: ({ details }) =>
      ctx.t("what-gift", {
        emoji: details.emoji,
        stars: details.stars,
        name: to.name,
        username: to.username,
        hidden: details.hide_name ? "yes" : "no",
        message: details.message || "-",
      }),
    buy: (options) => core.gifts.buy({ caller, item: request, ...options }),
    later: ctx.t("later-delivery"),
  });
});
