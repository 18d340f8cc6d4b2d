import { InlineKeyboard } from "grammy";
import { usdt } from "../format.js";
import { ask, attempt, callerOf, defineFlow, parseWhole, purchase, refuse } from "./kit.js";

export const giftcardsFlow = defineFlow("giftcards", "menu-giftcards", ({ core }) => async (conversation, ctx) => {
  const caller = await callerOf(conversation, ctx, core);
  const list = await attempt(conversation, () => core.giftcards.list(caller));
  if (!list.ok) return refuse(conversation, ctx, list);
  const brands = list.value.brands;

  const brandKeys = new InlineKeyboard();
  brands.forEach((b, i) => brandKeys.text(b.name, `b:${i}`).row());
  const notes = brands.map((b) => `• ${b.name}${b.notes ? ` (${b.notes})` : ""}`).join("\n");
  let brand: (typeof brands)[number] | undefined;
  while (!brand) {
    const reply = await ask(conversation, ctx, ctx.t("ask-brand", { brands: notes }), brandKeys);
    if (reply.kind === "button" && reply.data.startsWith("b:")) brand = brands[Number(reply.data.slice(2))];
  }

  const categoryId = brand.categoryId;
  const catalogue = await attempt(conversation, () => core.giftcards.catalogue(caller, categoryId));
  if (!catalogue.ok) return refuse(conversation, ctx, catalogue);
  const cards = catalogue.value.cards.filter((c) => c.stock >= c.minQuantity);
  if (!cards.length) {
    await ctx.reply(ctx.t("no-stock"));
    return conversation.halt();
  }
  const cardKeys = new InlineKeyboard();
  cards.forEach((c, i) => cardKeys.text(ctx.t("btn-card", { name: c.name, price: usdt(c.priceMicro), stock: c.stock }), `c:${i}`).row());
  let card: (typeof cards)[number] | undefined;
  while (!card) {
    const reply = await ask(conversation, ctx, ctx.t("ask-card", { brand: brand.name, notes: brand.notes ?? "" }), cardKeys);
    if (reply.kind === "button" && reply.data.startsWith("c:")) card = cards[Number(reply.data.slice(2))];
  }

  const most = Math.min(card.maxQuantity, card.stock);
  const quantityKeys = new InlineKeyboard();
  for (let q = card.minQuantity; q <= Math.min(most, card.minQuantity + 4); q++) quantityKeys.text(String(q), `q:${q}`);
  let prompt = ctx.t("ask-quantity", { min: card.minQuantity, max: most });
  let quantity: number | null = null;
  while (quantity === null) {
    const reply = await ask(conversation, ctx, prompt, quantityKeys);
    quantity = parseWhole(reply.kind === "button" ? reply.data.replace(/^q:/, "") : reply.text, card.minQuantity, most);
    prompt = ctx.t("bad-quantity", { min: card.minQuantity, max: most });
  }

  const request = { categoryId, cardId: card.cardId, quantity };
  const brandName = brand.name;
  return purchase(conversation, ctx, core, caller, {
    quote: () => core.giftcards.quote(caller, request),
    describe: ({ details }) => ctx.t("what-giftcard", { quantity: details.quantity, name: details.denomination, brand: brandName }),
    buy: (options) => core.giftcards.buy(caller, request, options),
    later: ctx.t("later-giftcard"),
  });
});
