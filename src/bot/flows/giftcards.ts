import { InlineKeyboard } from "grammy";
import { quantityPreset } from "../callback-data.js";
import { usdt } from "../format.js";
import { ask, callCore, choose, confirmAndBuy, defineFlow, ensureAffordable, finish, parseWhole, refuse, startFlow } from "./kit.js";
import { micro } from "../../core/model/money.js";

export const giftcardsFlow = defineFlow("giftcards", "menu-giftcards", (deps) => async (conversation, ctx) => {
  const { core } = deps;
  const { caller, canSpendMicro } = await startFlow(conversation, ctx, deps);
  const list = await callCore(conversation, () => core.giftcards.list(caller));
  if (!list.ok) return refuse(conversation, ctx, deps, list);
  const brands = list.value.brands;

  // The brand: a button, or its name or id typed; each with its region note, since a code works only there.
  const notes = brands.map((b) => `• ${b.name}${b.notes ? ` (${b.notes})` : ""}`).join("\n");
  const brand = await choose(
    conversation,
    ctx,
    ctx.t("ask-brand", { brands: notes }),
    brands.map((b) => ({ label: b.name, value: b, aliases: [b.categoryId, b.categoryId.split("-")[0]] })),
  );

  const categoryId = brand.categoryId;
  const catalogue = await callCore(conversation, () => core.giftcards.catalogue(caller, categoryId));
  if (!catalogue.ok) return refuse(conversation, ctx, deps, catalogue);
  const cards = catalogue.value.cards.filter((c) => c.stock >= c.minQuantity);
  if (!cards.length) {
    await finish(ctx, deps, ctx.t("no-stock"));
    return conversation.halt();
  }
  await ensureAffordable(conversation, ctx, deps, canSpendMicro, micro(Math.min(...cards.map((c) => c.priceMicro * c.minQuantity))));
  // Cards of the same name (a promotion beside the regular one) are told apart by their quantity rule.
  const named = (name: string) => cards.filter((c) => c.name === name).length;
  const card = await choose(
    conversation,
    ctx,
    ctx.t("ask-card", { brand: brand.name, notes: brand.notes ?? "" }),
    cards
      .filter((c) => c.priceMicro * c.minQuantity <= canSpendMicro)
      .map((c) => ({
        label: ctx.t(named(c.name) > 1 ? "btn-card-range" : "btn-card", {
          name: c.name,
          price: usdt(c.priceMicro),
          stock: c.stock,
          min: c.minQuantity,
          max: c.maxQuantity,
        }),
        value: c,
        aliases: named(c.name) > 1 ? [c.cardId] : [c.name, c.cardId],
      })),
  );

  const most = Math.min(card.maxQuantity, card.stock);
  const quantityKeys = Array.from({ length: Math.min(most, card.minQuantity + 4) - card.minQuantity + 1 }, (_, i) => card.minQuantity + i);
  const keyboard = new InlineKeyboard();
  for (const q of quantityKeys) keyboard.text(String(q), quantityPreset.pack({ quantity: q }));
  let prompt = ctx.t("ask-quantity", { min: card.minQuantity, max: most });
  let quantity: number | null = null;
  while (quantity === null) {
    const reply = await ask(conversation, ctx, prompt, keyboard);
    quantity = parseWhole(reply.kind === "button" ? String(quantityPreset.parse(reply.data)?.quantity ?? "") : reply.text, card.minQuantity, most);
    prompt = ctx.t("bad-quantity", { min: card.minQuantity, max: most });
  }

  const request = { categoryId, cardId: card.cardId, quantity };
  const brandName = brand.name;
  return confirmAndBuy(conversation, ctx, deps, caller, {
    price: () => core.giftcards.price({ caller, item: request }),
    describe: ({ details }) => ctx.t("what-giftcard", { quantity: details.quantity, name: details.denomination, brand: brandName }),
    buy: (options) => core.giftcards.buy({ caller, item: request, ...options }),
    later: ctx.t("later-giftcard"),
  });
});
