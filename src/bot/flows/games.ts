import { PLAYER_ID_PATTERN } from "../../core/formats.js";
import { needsServer, type PricedDenomination } from "../../core/products/games.js";
import type { Flow, FlowContext } from "../context.js";
import { usdt } from "../format.js";
import { ask, callCore, choose, confirmAndBuy, defineFlow, ensureAffordable, refuse, startFlow } from "./kit.js";
import { micro } from "../../core/model/money.js";

/** A game as the live list gives it. */
type Game = Parameters<typeof needsServer>[0];

/** The server: buttons carrying the exact listed values (or a label or value typed), or digits where none are listed. */
async function chooseServer(conversation: Flow, ctx: FlowContext, game: Game): Promise<{ id: string; label: string }> {
  const listed = Object.entries(game.servers ?? {});
  if (listed.length) {
    return choose(
      conversation,
      ctx,
      ctx.t("ask-server"),
      listed.map(([label, id]) => ({ label, value: { id, label }, aliases: [id] })),
    );
  }
  let prompt = ctx.t("ask-server-id");
  for (;;) {
    const reply = await ask(conversation, ctx, prompt);
    if (reply.kind === "text" && /^\d{1,6}$/.test(reply.text)) return { id: reply.text, label: reply.text };
    prompt = ctx.t("bad-server-id");
  }
}

export const gamesFlow = defineFlow("games", "menu-games", (deps) => async (conversation, ctx) => {
  const { core } = deps;
  const { caller, canSpendMicro } = await startFlow(conversation, ctx, deps);
  const list = await callCore(conversation, () => core.games.list(caller));
  if (!list.ok) return refuse(conversation, ctx, deps, list);

  // The game, from the live list: a button, or its name or code typed.
  const game = await choose(
    conversation,
    ctx,
    ctx.t("ask-game"),
    list.value.games.map((g) => ({ label: g.name, value: g, aliases: [g.code] })),
  );
  const code = game.code;
  const catalogue = await callCore(conversation, () => core.games.catalogue(caller, code));
  if (!catalogue.ok) return refuse(conversation, ctx, deps, catalogue);
  await ensureAffordable(conversation, ctx, deps, canSpendMicro, micro(Math.min(...catalogue.value.denominations.map((d) => d.priceMicro))));
  if (game.notes) await ctx.reply(ctx.t("game-notes", { notes: game.notes }));

  const server = needsServer(game) ? await chooseServer(conversation, ctx, game) : null;
  const serverId = server?.id ?? null;

  // The player, checked with the provider; the top-ups are offered under the account's name, so choosing one
  // confirms the account (credit sent to a wrong player cannot be reversed), and "wrong account" asks again.
  for (let prompt = ctx.t("ask-player-id", { game: game.name }); ;) {
    const reply = await ask(conversation, ctx, prompt);
    const playerId = reply.kind === "text" ? reply.text : "";
    if (!PLAYER_ID_PATTERN.test(playerId)) {
      prompt = ctx.t("bad-player-id-format");
      continue;
    }
    const checked = await callCore(conversation, () => core.games.findPlayer(code, playerId, serverId));
    if (!checked.ok) return refuse(conversation, ctx, deps, checked);
    if (!checked.value.found) {
      prompt = `${ctx.t("bad-player-id")}\n${ctx.t("provider-note", { note: checked.value.note })}`;
      continue;
    }
    const playerName = checked.value.playerName;
    // The catalogue read now, with the exact prices to be charged.
    const fresh = await callCore(conversation, () => core.games.catalogue(caller, code));
    if (!fresh.ok) return refuse(conversation, ctx, deps, fresh);
    // Only what the balance covers is offered: a top-up picked that it does not would end the flow.
    const affordable = fresh.value.denominations.filter((d) => d.priceMicro <= canSpendMicro);
    await ensureAffordable(conversation, ctx, deps, canSpendMicro, micro(Math.min(...fresh.value.denominations.map((d) => d.priceMicro))));
    const chosen = await choose<PricedDenomination | null>(conversation, ctx, ctx.t("ask-denomination", { name: playerName, id: playerId }), [
      ...affordable.map((d) => ({ label: `${d.name} · ${usdt(d.priceMicro)} USDT`, value: d, aliases: [d.name] })),
      { label: ctx.t("btn-wrong-account"), value: null },
    ]);
    if (!chosen) {
      prompt = ctx.t("ask-player-id", { game: game.name });
      continue;
    }
    const request = { code, denomination: chosen.name, playerId, serverId };
    const serverLabel = server?.label;
    return confirmAndBuy(conversation, ctx, deps, caller, {
      price: () => core.games.price({ caller, item: request }),
      describe: ({ details }) => {
        const what = { denomination: details.denomination, game: game.name, name: details.player_name, id: details.player_id };
        return serverLabel ? ctx.t("what-game-server", { ...what, server: serverLabel }) : ctx.t("what-game", what);
      },
      buy: (options) => core.games.buy({ caller, item: request, ...options }),
      later: ctx.t("later-game"),
    });
  }
});
