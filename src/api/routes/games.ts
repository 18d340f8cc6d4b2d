import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { percentNumber } from "../../core/markup.js";
import { toUsdt } from "../../core/money.js";
import { etaOf, needsServer } from "../../core/products/games.js";
import { callerOf } from "../auth.js";
import { asyncOrderStatus, gameView } from "../present.js";
import { purchaseOptions } from "../requests.js";
import {
  catalogueQuery,
  checkPlayerBody,
  checkPlayerResponse,
  errorBody,
  gameCatalogueResponse,
  gameCodeParams,
  gameOrderBody,
  gameOrderResponse,
  gamesResponse,
  insufficientFundsBody,
  keyedErrors,
  orderIdParams,
} from "../schemas.js";

/** In-game credit: the dynamic game list, catalogues, player checks, orders (202 then poll) and their status. */
export const gameRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const readErrors = { 400: errorBody, 503: errorBody, ...keyedErrors };

  app.get(
    "/v1/games",
    {
      schema: {
        summary: "Games that can be topped up (dynamic)",
        operationId: "listGames",
        tags: ["Games"],
        response: { 200: gamesResponse, 503: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const { markupBp, games } = await core.games.list(callerOf(req));
      return {
        success: true as const,
        markup_percent: percentNumber(markupBp),
        games: games.map((g) => ({
          code: g.code,
          name: g.name,
          image_url: g.imageUrl,
          required_fields: g.requiredFields,
          needs_server: needsServer(g),
          notes: g.notes,
          ...(g.servers ? { servers: g.servers } : {}),
        })),
      };
    },
  );

  app.get(
    "/v1/games/:code/catalogue",
    {
      schema: {
        summary: "Denominations with the exact USDT price to be charged",
        operationId: "getGameCatalogue",
        tags: ["Games"],
        params: gameCodeParams,
        querystring: catalogueQuery,
        response: { 200: gameCatalogueResponse, ...readErrors },
      },
    },
    async (req) => {
      const { game, markupBp, denominations } = await core.games.catalogue(callerOf(req), req.params.code);
      const withEta = req.query.eta === "1";
      return {
        success: true as const,
        currency: "USDT",
        markup_percent: percentNumber(markupBp),
        game: { code: game.code, required_fields: game.requiredFields, needs_server: needsServer(game), notes: game.notes },
        denominations: denominations.map((d) => ({
          name: d.name,
          price_usdt: toUsdt(d.priceMicro),
          ...(withEta ? { eta: etaOf(d.etaSeconds) } : {}),
        })),
      };
    },
  );

  app.post(
    "/v1/games/:code/check-player",
    {
      schema: {
        summary: "Look up the in-game nickname (free)",
        operationId: "checkGamePlayer",
        tags: ["Games"],
        params: gameCodeParams,
        body: checkPlayerBody,
        response: { 200: checkPlayerResponse, ...readErrors },
      },
    },
    async (req) => {
      const { serverId, playerName } = await core.games.checkPlayer(req.params.code, req.body.player_id, req.body.server_id ?? null);
      return {
        success: true as const,
        valid: true,
        game_code: req.params.code,
        player_id: req.body.player_id,
        server_id: serverId,
        player_name: playerName,
      };
    },
  );

  app.post(
    "/v1/games/:code/order",
    {
      schema: {
        summary: "Credit a player; answers 202 processing, then poll GET /v1/games/orders/{order_id}",
        operationId: "orderGameCredit",
        tags: ["Games"],
        params: gameCodeParams,
        body: gameOrderBody,
        response: { 200: gameOrderResponse, 202: gameOrderResponse, 502: gameOrderResponse, 402: insufficientFundsBody, ...readErrors },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      const request = {
        code: req.params.code,
        denomination: req.body.denomination,
        playerId: req.body.player_id,
        serverId: req.body.server_id ?? null,
      };
      const { order, replay } = await core.games.buy(caller, request, purchaseOptions(req.body));
      const balance = await core.accounts.available(caller.account);
      return reply.code(asyncOrderStatus(order, replay)).send(gameView(order, balance));
    },
  );

  app.get(
    "/v1/games/orders/:order_id",
    {
      schema: {
        summary: "A game order by the service's id, refreshed from the provider",
        operationId: "getGameOrder",
        tags: ["Games"],
        params: orderIdParams,
        response: { 200: gameOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const order = await core.orders.current(caller.account.id, req.params.order_id, ["game"] as const);
      return gameView(order, await core.accounts.available(caller.account));
    },
  );
};
