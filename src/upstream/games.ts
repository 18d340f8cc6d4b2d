import { z } from "zod";
import { fromUsd } from "../core/model/money.js";
import type { GamesPort, UpstreamOutcome } from "../core/ports.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import {
  lookup,
  missing,
  notConfigured,
  orderReference,
  orderStatus,
  PROVIDER_ORDER_ID_MEANING,
  providerUsd,
  read,
  readAlways,
  submit,
} from "./provider.js";

// What this adapter sends and accepts: the games' part of docs/provider-protocol.openapi.json.
export const gamesSchema = z.object({
  games: z.array(
    z.object({
      code: z.string().min(1).describe("The game's code, used in the paths below and by partners"),
      name: z.string(),
      image_url: z.string().nullable(),
      required_fields: z.array(z.string()).describe("The player fields the game needs: `userid`, and `serverid` when it has servers"),
      notes: z.string().nullable(),
      servers: z.record(z.string(), z.string()).optional().describe("Server names to the values `server_id` takes, when the game lists them"),
    }),
  ),
});
export const catalogueSchema = z.object({
  denominations: z.array(
    z.object({
      name: z.string().min(1).describe("The denomination's name, exactly as an order names it"),
      cost_usd: providerUsd.describe("What the provider charges us, in USD"),
      eta_seconds: z.number().int().min(0).describe("How long delivery usually takes"),
    }),
  ),
});
export const checkPlayerRequest = z.object({
  player_id: z.string(),
  server_id: z.string().nullable().describe("Null for a game without servers"),
});
export const checkSchema = z.union([
  z.object({ valid: z.literal(true), player_name: z.string() }),
  z.object({ valid: z.literal(false), reason: z.string().describe("Why, shown to the buyer") }),
]);
export const gameOrderRequest = z.object({
  reference: orderReference,
  game_code: z.string(),
  denomination: z.string().describe("A denomination's `name` from the catalogue"),
  player_id: z.string(),
  server_id: z.string().nullable(),
});
export const orderSchema = z.object({
  status: orderStatus,
  provider_order_id: z.number().int().optional().describe(PROVIDER_ORDER_ID_MEANING),
  provider_status: z.string().optional().describe("The provider's own status word, kept on the order"),
  error: z.string().optional().describe("A failure's message, kept as the order's `error`"),
});

/** The game top-up provider over HTTP. */
export function createGamesAdapter(http: HttpClient | null): GamesPort {
  if (!http) return { ...notConfigured, list: missing, catalogue: missing, checkPlayer: missing, order: missing, status: missing };
  const map = (response: UpstreamResponse): UpstreamOutcome => {
    const answer = http.parse(orderSchema, response);
    const provider = {
      providerOrderId: answer.provider_order_id === undefined ? undefined : String(answer.provider_order_id),
      providerStatus: answer.provider_status,
    };
    if (answer.status === "completed") return { kind: "completed", ...provider };
    if (answer.status === "failed") return { kind: "failed", error: answer.error ?? "The provider rejected the order", ...provider };
    return { kind: "pending", ...provider };
  };
  const path = (code: string) => `/games/${encodeURIComponent(code)}`;
  return {
    configured: true,
    ready: () => http.ready("/games/health"),
    async list() {
      const { games } = await readAlways(http, "/games", gamesSchema);
      return games.map((g) => ({
        code: g.code,
        name: g.name,
        imageUrl: g.image_url,
        requiredFields: g.required_fields,
        notes: g.notes,
        servers: g.servers ?? null,
      }));
    },
    async catalogue(code) {
      const catalogue = await read(http, `${path(code)}/catalogue`, catalogueSchema);
      return catalogue && catalogue.denominations.map((d) => ({ name: d.name, costMicro: fromUsd(d.cost_usd), etaSeconds: d.eta_seconds }));
    },
    async checkPlayer(code, playerId, serverId) {
      const answer = await readAlways(http, `${path(code)}/check-player`, checkSchema, {
        player_id: playerId,
        server_id: serverId,
      } satisfies z.input<typeof checkPlayerRequest>);
      return answer.valid ? { valid: true, playerName: answer.player_name } : { valid: false, reason: answer.reason };
    },
    order: (order) =>
      submit(
        http,
        "/games/orders",
        {
          reference: order.reference,
          game_code: order.gameCode,
          denomination: order.denomination,
          player_id: order.playerId,
          server_id: order.serverId,
        } satisfies z.input<typeof gameOrderRequest>,
        map,
      ),
    status: (reference) => lookup(http, `/games/orders/${encodeURIComponent(reference)}`, map),
  };
}
