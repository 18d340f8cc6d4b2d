import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { markReplay, purchaseOptions, REPLAYS } from "../requests.js";
import { asyncOrderStatus, errorBody, insufficientFundsBody, keyedErrors, orderIdParams } from "../../wire/common.js";
import {
  catalogueQuery,
  checkPlayerBody,
  checkPlayerResponse,
  checkPlayerView,
  gameCatalogueResponse,
  gameCatalogueView,
  gameCodeParams,
  gameOrderBody,
  gameOrderResponse,
  gamesRequestOf,
  gamesResponse,
  gamesView,
  gameView,
} from "../../wire/games.js";

const readErrors = { 400: errorBody, 503: errorBody, ...keyedErrors };

/** In-game credit, before an order: the dynamic game list, catalogues and player checks. */
export const gamesRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
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
    async (req) => gamesView(await core.games.list(callerOf(req))),
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
    async (req) => gameCatalogueView(await core.games.catalogue(callerOf(req), req.params.code), req.query.eta === "1"),
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
      const found = await core.games.checkPlayer(req.params.code, req.body.player_id, req.body.server_id ?? null);
      return checkPlayerView({ code: req.params.code, playerId: req.body.player_id }, found);
    },
  );
};

/** In-game credit orders (202 then poll) and their status. */
export const gameOrderRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.post(
    "/v1/games/:code/order",
    {
      schema: {
        summary: "Credit a player; answers 202 processing, then poll GET /v1/games/orders/{order_id}",
        operationId: "orderGameCredit",
        ...REPLAYS,
        tags: ["Games"],
        params: gameCodeParams,
        body: gameOrderBody,
        response: { 200: gameOrderResponse, 202: gameOrderResponse, 502: gameOrderResponse, 402: insufficientFundsBody, ...readErrors },
      },
    },
    async (req, reply) => {
      const caller = callerOf(req);
      const { order, replay, balanceAfterMicro } = await core.games.buy({
        caller,
        item: gamesRequestOf(req.params.code, req.body),
        ...purchaseOptions(req.body),
      });
      return markReplay(reply, replay).code(asyncOrderStatus(order, replay)).send(gameView(order, balanceAfterMicro));
    },
  );

  app.get(
    "/v1/games/orders/:order_id",
    {
      config: { readsFirst: "order" },
      schema: {
        summary: "A game order by the service's id, refreshed from the provider",
        operationId: "getGameOrder",
        tags: ["Games"],
        params: orderIdParams,
        response: { 200: gameOrderResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      const { order, availableMicro } = await core.orders.status(callerOf(req), req.params.order_id, ["game"] as const);
      return gameView(order, availableMicro);
    },
  );
};
