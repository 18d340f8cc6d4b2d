import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { SimContext } from "./context.js";

/**
 * In-game credit by player ID. Player IDs starting with 999 are in a restricted region (the order is taken,
 * then fails); 000000 is not a valid ID. Delivery takes about a minute (two for eafc), times the scale.
 */
interface GameData {
  code: string;
  name: string;
  image_url: string | null;
  required_fields: string[];
  notes: string | null;
  servers?: Record<string, string>;
  delivery_ms: number;
  denominations: Array<{ name: string; cost_usd: number; eta_seconds: number }>;
}

const GAMES: GameData[] = [
  {
    code: "pubgm",
    name: "PUBG Mobile",
    image_url: "https://cdn.simulator.invalid/games/pubgm.png",
    required_fields: ["userid"],
    notes: "Players registered in restricted regions cannot be credited",
    delivery_ms: 60_000,
    // Names that are prefixes of others sit side by side: only an exact match is a match.
    denominations: [
      { name: "60", cost_usd: 0.99, eta_seconds: 60 },
      { name: "60 + Royale Pass", cost_usd: 10.49, eta_seconds: 75 },
      { name: "325", cost_usd: 4.99, eta_seconds: 60 },
      { name: "3250", cost_usd: 49.99, eta_seconds: 90 },
      { name: "660", cost_usd: 9.99, eta_seconds: 60 },
    ],
  },
  {
    code: "genshin",
    name: "Genshin Impact",
    image_url: "https://cdn.simulator.invalid/games/genshin.png",
    required_fields: ["userid", "serverid"],
    notes: null,
    servers: { America: "os_usa", Europe: "os_euro", Asia: "os_asia", "TW, HK, MO": "os_cht" },
    delivery_ms: 60_000,
    denominations: [
      { name: "60 Genesis Crystals", cost_usd: 0.99, eta_seconds: 60 },
      { name: "300+30 Genesis Crystals", cost_usd: 4.99, eta_seconds: 60 },
      { name: "Blessing of the Welkin Moon", cost_usd: 4.99, eta_seconds: 70 },
    ],
  },
  {
    code: "eafc",
    name: "EA SPORTS FC Mobile",
    image_url: null,
    required_fields: ["userid", "serverid"],
    notes: "Server is the platform; the value is case-sensitive",
    servers: { Android: "android", iOS: "ios" },
    delivery_ms: 120_000,
    denominations: [
      { name: "100 FC Points", cost_usd: 0.99, eta_seconds: 120 },
      { name: "1070 FC Points", cost_usd: 9.99, eta_seconds: 130 },
    ],
  },
  {
    code: "mlbb",
    name: "Mobile Legends",
    image_url: "https://cdn.simulator.invalid/games/mlbb.png",
    required_fields: ["userid", "serverid"],
    notes: null,
    delivery_ms: 60_000,
    denominations: [
      { name: "86 Diamonds", cost_usd: 1.49, eta_seconds: 60 },
      { name: "172 Diamonds", cost_usd: 2.99, eta_seconds: 60 },
      { name: "Weekly Diamond Pass", cost_usd: 1.99, eta_seconds: 60 },
    ],
  },
];

const checkSchema = z.object({ player_id: z.string(), server_id: z.string().nullish() });
const orderSchema = z.object({
  reference: z.string().min(1).max(200),
  game_code: z.string(),
  denomination: z.string(),
  player_id: z.string(),
  server_id: z.string().nullish(),
});

/** The provider's own check: digits only, 000000 refused, the server exactly one of the listed values. */
function checkPlayer(
  game: GameData,
  playerId: string,
  serverId: string | null | undefined,
): { valid: true; name: string } | { valid: false; reason: string } {
  if (!/^\d{5,12}$/.test(playerId)) return { valid: false, reason: "a player ID is digits only, 5 to 12 of them" };
  if (playerId === "000000") return { valid: false, reason: "player ID not found" };
  if (game.required_fields.includes("serverid")) {
    if (!serverId) return { valid: false, reason: "server ID required" };
    if (game.servers && !Object.values(game.servers).includes(serverId)) return { valid: false, reason: "unknown server" };
    if (!game.servers && !/^\d{1,6}$/.test(serverId)) return { valid: false, reason: "unknown server" };
  }
  return { valid: true, name: `Player${playerId.slice(-4)}` };
}

interface GameOrder {
  provider_order_id: number;
  player_name: string;
  ready_at: number;
  outcome: { status: "completed" } | { status: "failed"; error: string };
}

const find = (code: string) => GAMES.find((g) => g.code === code);

/** An order as the provider shows it: processing until it is ready, then its outcome. */
function view(order: GameOrder) {
  const base = { provider_order_id: order.provider_order_id, player_name: order.player_name };
  if (Date.now() < order.ready_at) return { ...base, status: "processing", provider_status: "in_queue" };
  if (order.outcome.status === "failed") return { ...base, status: "failed", provider_status: "rejected", error: order.outcome.error };
  return { ...base, status: "completed", provider_status: "delivered" };
}

/** The games provider: its catalogue and player check, then its orders. */
export function gameRoutes(app: FastifyInstance, sim: SimContext) {
  app.get("/games/health", async (_request, reply) => ((await sim.blocked("games", reply)) ? reply : { ok: true }));

  app.get("/games", async (_request, reply) => {
    if (await sim.blocked("games", reply)) return reply;
    return { games: GAMES.map(({ delivery_ms: _d, denominations: _n, ...game }) => game) };
  });

  app.get<{ Params: { code: string } }>("/games/:code/catalogue", async (request, reply) => {
    if (await sim.blocked("games", reply)) return reply;
    const game = find(request.params.code);
    if (!game) return reply.code(404).send({ error: "unknown game" });
    return {
      denominations: game.denominations.map((d) => ({ name: d.name, cost_usd: d.cost_usd, eta_seconds: Math.round(d.eta_seconds * sim.scale) })),
    };
  });

  app.post<{ Params: { code: string } }>("/games/:code/check-player", async (request, reply) => {
    if (await sim.blocked("games", reply)) return reply;
    const game = find(request.params.code);
    if (!game) return reply.code(404).send({ error: "unknown game" });
    const parsed = checkSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const result = checkPlayer(game, parsed.data.player_id, parsed.data.server_id);
    return result.valid ? { valid: true, player_name: result.name } : { valid: false, reason: result.reason };
  });

  orderRoutes(app, sim);
}

/** Orders placed by reference (the same reference answers the first order), delivered after the game's delay. */
function orderRoutes(app: FastifyInstance, sim: SimContext) {
  const orders = new Map<string, GameOrder>();
  let nextId = 700_000;

  app.post("/games/orders", async (request, reply) => {
    if (await sim.blocked("games", reply)) return reply;
    const parsed = orderSchema.safeParse(request.body);
    if (!parsed.success) return sim.invalid(reply, parsed.error);
    const body = parsed.data;
    const known = orders.get(body.reference);
    if (known) return reply.code(202).send(view(known));
    const game = find(body.game_code);
    const checked = game ? checkPlayer(game, body.player_id, body.server_id) : { valid: false as const, reason: "unknown game" };
    if (!game || !checked.valid || !game.denominations.some((d) => d.name === body.denomination)) {
      return reply.code(422).send({ status: "failed", error: checked.valid ? "unknown denomination" : checked.reason });
    }
    const fault = await sim.orderFault("games", reply);
    if (fault === "dropped") return reply;
    const order: GameOrder = {
      provider_order_id: nextId++,
      player_name: checked.name,
      ready_at: Date.now() + game.delivery_ms * sim.scale,
      outcome:
        fault === "fail_next"
          ? { status: "failed", error: "The provider rejected the order" }
          : body.player_id.startsWith("999")
            ? { status: "failed", error: "The player's region is restricted for this product" }
            : { status: "completed" },
    };
    orders.set(body.reference, order);
    if (fault === "hang_after_accept") await sim.hang();
    return reply.code(202).send(view(order));
  });

  app.get<{ Params: { reference: string } }>("/games/orders/:reference", async (request, reply) => {
    if (await sim.blocked("games", reply)) return reply;
    const order = orders.get(request.params.reference);
    if (!order) return reply.code(404).send({ error: "no such order" });
    return view(order);
  });
}
