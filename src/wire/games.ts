import { z } from "zod";
import { PLAYER_ID_PATTERN, PLAYER_ID_RULE, SERVER_ID_MAX } from "../core/formats.js";
import { percentNumber } from "../core/markup.js";
import { type Micro, toUsdt } from "../core/model/money.js";
import type { OrderOfType } from "../core/model/products.js";
import { type GamesRequest, needsServer, type PricedDenomination } from "../core/products/games.js";
import type { GameInfo } from "../core/ports.js";
import { asyncFlags, envelopeHead, envelopeTail, expect, orderEnvelope, orderStatus, purchaseBody } from "./common.js";

// In-game credit: the dynamic game list, catalogues, player checks, and the order (GameOrderResponse).

export const gameCodeParams = z.object({ code: z.string().min(1).max(64) });

const gameSchema = z
  .object({
    code: z.string(),
    name: z.string(),
    image_url: z.string().nullable(),
    required_fields: z.array(z.string()),
    needs_server: z.boolean(),
    notes: z.string().nullable(),
    servers: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: "Game" });

export const gamesResponse = z.object({ success: z.literal(true), markup_percent: z.number(), games: z.array(gameSchema) });

export const catalogueQuery = z.object({ eta: z.literal("1", { error: "eta takes only the value 1" }).optional() });

export const gameCatalogueResponse = z.object({
  success: z.literal(true),
  currency: z.string(),
  markup_percent: z.number(),
  game: z.object({ code: z.string(), required_fields: z.array(z.string()), needs_server: z.boolean(), notes: z.string().nullable() }),
  denominations: z.array(
    z
      .object({
        name: z.string(),
        price_usdt: z.number(),
        eta: z.object({ label: z.string(), display: z.string(), median_seconds: z.number().int() }).nullable().optional(),
      })
      .meta({ id: "GameDenomination" }),
  ),
});

const playerIdField = z
  .string(expect("player_id", "a string"))
  .trim()
  .min(1, "player_id must not be empty")
  .regex(PLAYER_ID_PATTERN, `player_id must be ${PLAYER_ID_RULE}`);
const serverIdField = z.string(expect("server_id", "a string")).max(SERVER_ID_MAX, `server_id must be at most ${SERVER_ID_MAX} characters`).nullish();

export const checkPlayerBody = z.object({ player_id: playerIdField, server_id: serverIdField });

export const checkPlayerResponse = z.object({
  success: z.literal(true),
  valid: z.boolean(),
  game_code: z.string(),
  player_id: z.string(),
  server_id: z.string().nullable(),
  player_name: z.string(),
});

export const gameOrderBody = purchaseBody({
  denomination: z
    .string(expect("denomination", "a string"))
    .min(1, "denomination must not be empty")
    .max(200, "denomination must be at most 200 characters"),
  player_id: playerIdField,
  server_id: serverIdField,
});

export const gameOrderResponse = orderEnvelope(z.literal("game"), {
  game_code: z.string(),
  game_name: z.string().nullable().describe("The game's name as GET /v1/games lists it; null for orders placed before names were kept"),
  denomination: z.string(),
  player_id: z.string(),
  server_id: z.string().nullable(),
  player_name: z.string().nullable(),
  usdt_charged: z.number(),
  balance_after: z.number().nullable(),
  status: orderStatus,
  provider_order_id: z.number().int().nullable(),
  provider_status: z.string().nullable(),
  refunded: z.boolean().optional().describe("Only on failed"),
  error: z.string().nullable(),
  poll: z.boolean().optional().describe("Only on processing: true"),
}).meta({ id: "GameOrderResponse" });

/** The catalogue's delivery estimate (eta=1): a label `fast` (≤ 60 s), `normal` (≤ 3 min) or `slow`, and a text. */
function etaView(seconds: number) {
  const label = seconds <= 60 ? "fast" : seconds <= 180 ? "normal" : "slow";
  const display = seconds < 60 ? `about ${Math.max(1, Math.round(seconds))} s` : `about ${Math.round(seconds / 60)} min`;
  return { label, display, median_seconds: seconds };
}

/** The core's request of an order body for the game in the path. */
export const gamesRequestOf = (code: string, body: { denomination: string; player_id: string; server_id?: string | null }): GamesRequest => ({
  code,
  denomination: body.denomination,
  playerId: body.player_id,
  serverId: body.server_id ?? null,
});

export const gamesView = (list: { markupBp: number; games: GameInfo[] }): z.infer<typeof gamesResponse> => ({
  success: true as const,
  markup_percent: percentNumber(list.markupBp),
  games: list.games.map((g) => ({
    code: g.code,
    name: g.name,
    image_url: g.imageUrl,
    required_fields: g.requiredFields,
    needs_server: needsServer(g),
    notes: g.notes,
    ...(g.servers ? { servers: g.servers } : {}),
  })),
});

export const gameCatalogueView = (
  catalogue: { game: GameInfo; markupBp: number; denominations: PricedDenomination[] },
  withEta: boolean,
): z.infer<typeof gameCatalogueResponse> => ({
  success: true as const,
  currency: "USDT",
  markup_percent: percentNumber(catalogue.markupBp),
  game: {
    code: catalogue.game.code,
    required_fields: catalogue.game.requiredFields,
    needs_server: needsServer(catalogue.game),
    notes: catalogue.game.notes,
  },
  denominations: catalogue.denominations.map((d) => ({
    name: d.name,
    price_usdt: toUsdt(d.priceMicro),
    ...(withEta ? { eta: etaView(d.etaSeconds) } : {}),
  })),
});

export const checkPlayerView = (
  asked: { code: string; playerId: string },
  found: { serverId: string | null; playerName: string },
): z.infer<typeof checkPlayerResponse> => ({
  success: true as const,
  valid: true,
  game_code: asked.code,
  player_id: asked.playerId,
  server_id: found.serverId,
  player_name: found.playerName,
});

export function gameView(order: OrderOfType<"game">, balanceMicro: Micro): z.infer<typeof gameOrderResponse> {
  const { details } = order;
  return {
    success: order.status !== "failed",
    ...envelopeHead(order),
    game_code: details.game_code,
    game_name: details.game_name ?? null,
    denomination: details.denomination,
    player_id: details.player_id,
    server_id: details.server_id,
    player_name: details.player_name,
    usdt_charged: toUsdt(order.chargeMicro),
    balance_after: toUsdt(balanceMicro),
    status: order.status,
    provider_order_id: order.providerOrderId === null ? null : Number(order.providerOrderId),
    provider_status: order.providerStatus,
    ...asyncFlags(order),
    error: order.error,
    ...envelopeTail(order),
  };
}
