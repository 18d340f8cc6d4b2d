import { InlineKeyboard } from "grammy";
import { PLAYER_ID_PATTERN } from "../../core/limits.js";
import type { GameInfo } from "../../core/ports.js";
import { needsServer } from "../../core/products/games.js";
import { usdt } from "../format.js";
import { ask, attempt, callerOf, defineFlow, purchase, refuse } from "./kit.js";

const PAGE = 6;

export const gamesFlow = defineFlow("games", "menu-games", ({ core }) => async (conversation, ctx) => {
  const caller = await callerOf(conversation, ctx, core);
  const list = await attempt(conversation, () => core.games.list(caller));
  if (!list.ok) return refuse(conversation, ctx, list);
  const all = list.value.games;

  // The game, from the live list, a page of buttons at a time.
  let page = 0;
  let game: GameInfo | undefined;
  while (!game) {
    const keyboard = new InlineKeyboard();
    all.slice(page * PAGE, page * PAGE + PAGE).forEach((g, i) => keyboard.text(g.name, `g:${page * PAGE + i}`).row());
    if (page > 0) keyboard.text("◀", `p:${page - 1}`);
    if ((page + 1) * PAGE < all.length) keyboard.text("▶", `p:${page + 1}`);
    const reply = await ask(conversation, ctx, ctx.t("ask-game"), keyboard);
    if (reply.kind === "button" && reply.data.startsWith("p:")) page = Number(reply.data.slice(2));
    else if (reply.kind === "button" && reply.data.startsWith("g:")) game = all[Number(reply.data.slice(2))];
    else if (reply.kind === "text") game = all.find((g) => g.code === reply.text.toLowerCase() || g.name.toLowerCase() === reply.text.toLowerCase());
  }
  if (game.notes) await ctx.reply(ctx.t("game-notes", { notes: game.notes }));

  // The server: buttons carrying the exact listed values, or typed where the game lists none.
  let serverId: string | null = null;
  if (needsServer(game)) {
    const servers = Object.entries(game.servers ?? {});
    const keyboard = new InlineKeyboard();
    servers.forEach(([label], i) => keyboard.text(label, `s:${i}`).row());
    let prompt = ctx.t(servers.length ? "ask-server" : "ask-server-id");
    while (serverId === null) {
      const reply = await ask(conversation, ctx, prompt, servers.length ? keyboard : undefined);
      if (servers.length && reply.kind === "button" && reply.data.startsWith("s:")) serverId = servers[Number(reply.data.slice(2))]?.[1] ?? null;
      else if (!servers.length && reply.kind === "text" && /^\d{1,6}$/.test(reply.text)) serverId = reply.text;
      prompt = ctx.t(servers.length ? "ask-server" : "ask-server-id");
    }
  }

  // The player, checked with the provider and confirmed by name: credit sent to a wrong player cannot be reversed.
  let playerId = "";
  let prompt = ctx.t("ask-player-id", { game: game.name });
  for (;;) {
    const reply = await ask(conversation, ctx, prompt);
    if (reply.kind !== "text" || !PLAYER_ID_PATTERN.test(reply.text)) {
      prompt = ctx.t("bad-player-id");
      continue;
    }
    const code = game.code;
    const checked = await attempt(conversation, () => core.games.checkPlayer(code, reply.text, serverId));
    if (!checked.ok) {
      if (checked.code !== "invalid_input") return refuse(conversation, ctx, checked);
      prompt = ctx.t("bad-player-id");
      continue;
    }
    const sure = await ask(
      conversation,
      ctx,
      ctx.t("is-this-player", { name: checked.value.playerName, id: reply.text }),
      new InlineKeyboard().text(ctx.t("btn-yes"), "y").text(ctx.t("btn-no"), "n"),
    );
    if (sure.kind === "button" && sure.data === "y") {
      playerId = reply.text;
      break;
    }
    prompt = ctx.t("ask-player-id", { game: game.name });
  }

  // The denomination from the catalogue read now, with the exact price to be charged.
  const code = game.code;
  const catalogue = await attempt(conversation, () => core.games.catalogue(caller, code));
  if (!catalogue.ok) return refuse(conversation, ctx, catalogue);
  const denominations = catalogue.value.denominations;
  const keyboard = new InlineKeyboard();
  denominations.forEach((d, i) => keyboard.text(`${d.name} · ${usdt(d.priceMicro)} USDT`, `d:${i}`).row());
  let chosen: (typeof denominations)[number] | undefined;
  while (!chosen) {
    const reply = await ask(conversation, ctx, ctx.t("ask-denomination"), keyboard);
    if (reply.kind === "button" && reply.data.startsWith("d:")) chosen = denominations[Number(reply.data.slice(2))];
  }

  const request = { code, denomination: chosen.name, playerId, serverId };
  const name = game.name;
  return purchase(conversation, ctx, core, caller, {
    quote: () => core.games.quote(caller, request),
    describe: ({ details }) =>
      ctx.t("what-game", {
        denomination: details.denomination,
        game: name,
        name: details.player_name,
        id: details.player_id,
        server: details.server_id ?? "-",
      }),
    buy: (options) => core.games.buy(caller, request, options),
    later: ctx.t("later-game"),
  });
});
