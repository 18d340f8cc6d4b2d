import type { Caller } from "../accounts.js";
import { invalid } from "../model/errors.js";
import { providerReader, type GameDenomination, type GameInfo, type GamesPort } from "../ports.js";
import { PLAYER_ID_PATTERN, PLAYER_ID_RULE } from "../formats.js";
import { catalogPrice, type MarkupDefaults, markupOf } from "../markup.js";
import type { Micro } from "../model/money.js";
import { gamesProduct, type GamesDetails } from "../model/products.js";
import type { Purchasable, PurchasePipeline } from "../purchase.js";

export interface GamesRequest {
  code: string;
  denomination: string;
  playerId: string;
  serverId: string | null;
}

export interface PricedDenomination extends GameDenomination {
  priceMicro: Micro;
}

export type PlayerLookup = { found: true; playerName: string } | { found: false; note: string };

export const needsServer = (game: GameInfo) => game.requiredFields.includes("serverid");

/** An empty server_id counts as none. */
const givenServer = (serverId: string | null) => (serverId === null || serverId === "" ? null : serverId);

/** The server rules, before anything is charged: credit sent to a wrong account cannot be reversed. */
function server(info: GameInfo, serverId: string | null): string | null {
  const given = givenServer(serverId);
  if (!needsServer(info)) {
    if (given !== null) throw invalid(`${info.name} takes no server_id`);
    return null;
  }
  if (given === null) throw invalid(`server_id is required for ${info.name}`);
  if (info.servers && !Object.values(info.servers).includes(given)) {
    throw invalid(`server_id must be exactly one of: ${Object.values(info.servers).join(", ")} (case-sensitive)`);
  }
  return given;
}

/** What the games provider tells live: a game, its catalogue at the caller's price, and whether a player exists. */
function gameReads(games: GamesPort, markups: MarkupDefaults) {
  const live = providerReader(games, { missing: "Game top-ups are not configured", down: "The game top-up provider is unavailable: retry later" });

  async function game(code: string): Promise<GameInfo> {
    const found = (await live(() => games.list())).find((g) => g.code === code);
    if (!found) throw invalid(`Game ${code} is not supported: read GET /v1/games`);
    return found;
  }

  async function priced(caller: Caller, info: GameInfo): Promise<{ markupBp: number; denominations: PricedDenomination[] }> {
    const markupBp = markupOf(caller.account, "games", markups);
    const denominations = await live(() => games.catalogue(info.code));
    if (!denominations) throw invalid(`Game ${info.code} is not supported: read GET /v1/games`);
    return { markupBp, denominations: denominations.map((d) => ({ priceMicro: catalogPrice(d.costMicro, markupBp), ...d })) };
  }

  /** The provider's verdict on a player, as data: the bot re-asks with the provider's own note. */
  async function lookPlayer(info: GameInfo, playerId: string, serverId: string | null): Promise<PlayerLookup> {
    if (!PLAYER_ID_PATTERN.test(playerId)) throw invalid(`player_id must be ${PLAYER_ID_RULE}`);
    const result = await live(() => games.checkPlayer(info.code, playerId, serverId));
    return result.valid ? { found: true, playerName: result.playerName } : { found: false, note: result.reason };
  }

  async function checkPlayer(info: GameInfo, playerId: string, serverId: string | null): Promise<string> {
    const result = await lookPlayer(info, playerId, serverId);
    if (!result.found) {
      const account = serverId === null ? `player_id ${playerId}` : `player_id ${playerId} on server_id ${serverId}`;
      throw invalid(`${info.name} does not accept ${account}: ${result.note}`);
    }
    return result.playerName;
  }

  return { live, game, priced, lookPlayer, checkPlayer };
}

export function createGames({ games, pipeline, markups }: { games: GamesPort; pipeline: PurchasePipeline; markups: MarkupDefaults }) {
  const { live, game, priced, lookPlayer, checkPlayer } = gameReads(games, markups);

  const product: Purchasable<"game", GamesRequest, GamesDetails> = {
    ...gamesProduct,
    identify: (r) => [r.code, r.denomination, r.playerId, givenServer(r.serverId)],
    /** Everything the provider can tell before the charge (game, server, exact denomination, player), at the fresh catalogue price. */
    async prepare(caller, request) {
      const info = await game(request.code);
      const serverId = server(info, request.serverId);
      const { markupBp, denominations } = await priced(caller, info);
      // Exact match only: names such as "60" and "60 + Royale Pass" sit side by side.
      const denomination = denominations.find((d) => d.name === request.denomination);
      if (!denomination) throw invalid(`denomination must be exactly one of the catalogue names of ${info.code}`);
      const playerName = await checkPlayer(info, request.playerId, serverId);
      return {
        recipient: request.playerId,
        chargeMicro: denomination.priceMicro,
        details: {
          game_code: info.code,
          denomination: denomination.name,
          player_id: request.playerId,
          server_id: serverId,
          player_name: playerName,
          cost_micro: denomination.costMicro,
          markup_bp: markupBp,
          game_name: info.name,
        },
        send: (reference) => games.order({ reference, gameCode: info.code, denomination: denomination.name, playerId: request.playerId, serverId }),
      };
    },
  };

  return {
    ...pipeline.offer(product),

    async list(caller: Caller) {
      return { markupBp: markupOf(caller.account, "games", markups), games: await live(() => games.list()) };
    },

    async catalogue(caller: Caller, code: string) {
      const info = await game(code);
      return { game: info, ...(await priced(caller, info)) };
    },

    async checkPlayer(code: string, playerId: string, serverId: string | null) {
      const info = await game(code);
      const checkedServer = server(info, serverId);
      return { serverId: checkedServer, playerName: await checkPlayer(info, playerId, checkedServer) };
    },

    /** Like checkPlayer, but an unknown player is an answer (with the provider's note), not a refusal. */
    async findPlayer(code: string, playerId: string, serverId: string | null): Promise<PlayerLookup> {
      const info = await game(code);
      return lookPlayer(info, playerId, server(info, serverId));
    },
  };
}
