// Writes docs/provider-protocol.openapi.json: the HTTP protocol the service speaks to its providers under
// UPSTREAM=external, for an operator writing a bridge to a supplier of their own. The bodies are the adapters' own
// zod schemas (src/upstream/*.ts: what each adapter sends, and what it accepts back), the timings the config's
// defaults, so the document cannot drift from the code. `npm run docs:protocol` writes it; test/upstream/protocol.test.ts
// fails when the file differs from what this makes, and checks the adapters' requests and the simulator's answers
// against it over HTTP.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import { z } from "zod";
import { configSchema } from "../src/config.js";
import { PROVIDER_NAMES, type ProviderName } from "../src/core/ports.js";
import { MAX_RECHECK_MS } from "../src/jobs/reconciler.js";
import * as games from "../src/upstream/games.js";
import * as gateway from "../src/upstream/gateway.js";
import * as giftcards from "../src/upstream/giftcards.js";
import * as gifts from "../src/upstream/gifts.js";
import { CONNECT_TIMEOUT_MS, READY_TIMEOUT_MS } from "../src/upstream/http.js";
import * as rates from "../src/upstream/rates.js";
import * as store from "../src/upstream/store.js";

export const PROTOCOL_DOC_PATH = fileURLToPath(new URL("../docs/provider-protocol.openapi.json", import.meta.url));

/** The protocol's own version: raised when a change would break a bridge written against an earlier one. */
const PROTOCOL_VERSION = "1.0.0";

const defaults = configSchema.parse({});
const TIMEOUT = defaults.upstream.timeoutMs;
const RECONCILE_AFTER = defaults.sales.reconcile.afterMs;
const RECHECK = defaults.sales.reconcile.intervalMs;
const PROBE = defaults.upstream.healthProbeMs;
const ms = (value: number) =>
  value >= 60_000 && value % 60_000 === 0 ? `${value / 60_000} min` : value % 1000 === 0 ? `${value / 1000} s` : `${value} ms`;

/** A provider's body no adapter reads: what the simulator sends with an error status, and what a bridge should. */
const providerError = z
  .object({ error: z.string().describe("What went wrong, for people reading the logs on your side") })
  .describe("An error body. The service acts on the status alone and does not read it; this shape is a recommendation.");

/** Every named body: the adapters' schemas, under the names the document gives them. */
const SCHEMAS = {
  ProviderError: providerError,
  GatewaySearchRequest: gateway.searchRequest,
  GatewayProfile: gateway.profileSchema,
  GatewayDeliveryRequest: gateway.deliveryRequest,
  GatewayDelivery: gateway.deliverySchema,
  RatesTon: rates.tonSchema,
  StoreLimits: store.limitsSchema,
  StoreOrderRequest: store.storeOrderRequest,
  StoreOrder: store.orderSchema,
  GamesList: games.gamesSchema,
  GamesCatalogue: games.catalogueSchema,
  GamesCheckPlayerRequest: games.checkPlayerRequest,
  GamesPlayerCheck: games.checkSchema,
  GamesOrderRequest: games.gameOrderRequest,
  GamesOrder: games.orderSchema,
  GiftcardsBrands: giftcards.brandsSchema,
  GiftcardsCatalogue: giftcards.catalogueSchema,
  GiftcardsOrderRequest: giftcards.giftcardOrderRequest,
  GiftcardsOrder: giftcards.orderSchema,
  GiftsCatalogue: gifts.catalogueSchema,
  GiftsRecipientRequest: gifts.recipientRequest,
  GiftsRecipient: gifts.recipientSchema,
  GiftsSendRequest: gifts.sendRequest,
  GiftsSend: gifts.sendSchema,
  GiftsSticker: gifts.stickerSchema,
} satisfies Record<string, z.ZodType>;
type SchemaName = keyof typeof SCHEMAS;

/** A schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as a provider's side sees it: what the adapter accepts. */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" });
  return rest;
}

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ "application/json": { schema } });
const errorBody = (description: string) => ({ description, content: json(ref("ProviderError")) });

type Responses = Record<string, { description: string; content?: ReturnType<typeof json> }>;

/** GET /<provider>/health: what readiness, /v1/health and the provider-down alert are made of. */
const healthResponses = (): Responses => ({
  "200": { description: "Ready: the provider's products can be sold. The body is not read." },
  "4XX": errorBody("Not ready, as is any status but 200."),
  "5XX": errorBody(`Not ready, as is no answer within ${ms(READY_TIMEOUT_MS)}.`),
});

/**
 * A read: its answer, the 404 it may mean something by, and everything else: the provider cannot answer, and
 * `down` says what the partner then sees.
 */
const readResponses = (answer: SchemaName, options: { notFound?: string; down?: string } = {}): Responses => {
  const down = options.down ?? "the partner's request gets a 503";
  return {
    "200": { description: "The answer. A body of another shape counts as the provider being down.", content: json(ref(answer)) },
    ...(options.notFound ? { "404": errorBody(options.notFound) } : {}),
    "4XX": errorBody(`The provider cannot answer: ${down}.`),
    default: errorBody(`The provider cannot answer: ${down}, as after ${ms(TIMEOUT)} without an answer.`),
  };
};

/** An order request: the one call that can charge the buyer for nothing, so every status has one meaning. */
const orderResponses = (answer: SchemaName, statuses: string): Responses => ({
  "200": { description: `The order's state now: ${statuses}.`, content: json(ref(answer)) },
  "202": { description: "Read like 200, as is any 2xx: the order's state now.", content: json(ref(answer)) },
  "408": errorBody("Outcome unknown: the order stays `processing` and is looked up by its reference."),
  "409": errorBody("Outcome unknown (the provider may hold the order): it stays `processing` and is looked up by its reference."),
  "429": errorBody("Not taken, and never will be: the order fails as `provider_unavailable` and is refunded at once."),
  "4XX": {
    description:
      "Refused: the order fails and is refunded at once. A body in the order's answer shape with `status: failed` gives its `error` (and reason); any other body fails it as `provider_error`.",
    content: json({ anyOf: [ref(answer), ref("ProviderError")] }),
  },
  "503": errorBody("Unavailable, the order not taken and never to be: it fails as `provider_unavailable` and is refunded at once."),
  "5XX": errorBody("Outcome unknown: the order stays `processing` and is looked up by its reference."),
});

/** The status lookup by our reference: what the reconciler and every partner read of a `processing` order ask. */
const lookupResponses = (answer: SchemaName): Responses => ({
  "200": { description: "The order's state now, in the order request's answer shape.", content: json(ref(answer)) },
  "404": errorBody(
    `Never received. The order fails (\`order_not_found\`) and is refunded, but only once it is older than ${ms(RECONCILE_AFTER)} (RECONCILE_AFTER_MS) and no answer ever gave a provider order id; before that, or after an id was given, a 404 changes nothing. Never answer 404 for an order you took.`,
  ),
  default: errorBody("Unknown for now (so is a timeout or a body of another shape): the order stays `processing` and is asked about again."),
});

interface Operation {
  provider: ProviderName;
  method: "get" | "post";
  path: string;
  operationId: string;
  summary: string;
  description: string;
  request?: SchemaName;
  responses: Responses;
}

const ORDER_RULES = `The buyer has been charged before this call. Our \`reference\` is stored first, so whatever becomes of this request, the order is settled by the status lookup. The service sends it once and never resends it; still, answer a repeated reference with the first order, never a second delivery. Answer within ${ms(TIMEOUT)} (UPSTREAM_TIMEOUT_MS): \`processing\` as soon as the order is safely taken is better than holding the request.`;

const health = (provider: ProviderName, what: string): Operation => ({
  provider,
  method: "get",
  path: `/${provider}/health`,
  operationId: `${provider}Health`,
  summary: `Is the ${what} ready?`,
  description: `Asked every ${ms(PROBE)} (HEALTH_PROBE_MS) by one instance, bounded by ${ms(READY_TIMEOUT_MS)}: answer from what you know, without a slow call to your supplier each time. Feeds /readyz, /v1/health, the provider-down alert (after two rounds agree) and the metrics.`,
  responses: healthResponses(),
});

const lookup = (provider: ProviderName, path: string, operationId: string, answer: SchemaName, what: string): Operation => ({
  provider,
  method: "get",
  path,
  operationId,
  summary: `${what} by our reference`,
  description: `Asked about every order still \`processing\`: by the reconciler (first ${ms(RECONCILE_AFTER)} after it was placed, RECONCILE_AFTER_MS; after a \`processing\` answer ${ms(RECHECK)} later, RECONCILE_INTERVAL_MS, then each time twice as late up to every ${ms(MAX_RECHECK_MS)}, for as long as it stays \`processing\`), and whenever the partner or the buyer reads the order. The order must be findable by the reference from the moment it is taken, and its final state (with a gift card's codes) must stay readable.`,
  responses: lookupResponses(answer),
});

const OPERATIONS: Operation[] = [
  health("gateway", "stars and Premium gateway"),
  {
    provider: "gateway",
    method: "post",
    path: "/gateway/search",
    operationId: "gatewaySearch",
    summary: "Find a recipient by username",
    description:
      "The recipient search (`POST /v1/search`, the bot and the Mini App): does this Telegram user exist, and who is it. A purchase does not ask it.",
    request: "GatewaySearchRequest",
    responses: readResponses("GatewayProfile", { notFound: "No such user: the partner gets a 404.", down: "the search gets a 502" }),
  },
  {
    provider: "gateway",
    method: "post",
    path: "/gateway/deliveries",
    operationId: "gatewayDeliver",
    summary: "Deliver stars or Premium",
    description: ORDER_RULES,
    request: "GatewayDeliveryRequest",
    responses: orderResponses("GatewayDelivery", "`completed`, `failed` (refunded) or `processing` (looked up later)"),
  },
  lookup("gateway", "/gateway/deliveries/{reference}", "gatewayDelivery", "GatewayDelivery", "A delivery"),

  health("rates", "exchange-rate source"),
  {
    provider: "rates",
    method: "get",
    path: "/rates/ton",
    operationId: "ratesTon",
    summary: "The TON rate in USD",
    description: "Read for the pricing the API shows, and cached by the service.",
    responses: readResponses("RatesTon", { down: "the rate is shown as unknown until it can be read again" }),
  },

  health("store", "game-store wallet provider"),
  {
    provider: "store",
    method: "get",
    path: "/store/limits",
    operationId: "storeLimits",
    summary: "The top-up limits and fee",
    description: "Read live for every store price and purchase: the amount must lie within the limits, and the fee is part of the price.",
    responses: readResponses("StoreLimits"),
  },
  {
    provider: "store",
    method: "post",
    path: "/store/orders",
    operationId: "storeOrder",
    summary: "Top up a store account",
    description: ORDER_RULES,
    request: "StoreOrderRequest",
    responses: orderResponses("StoreOrder", "`completed`, `failed` (refunded, with its `code`) or `processing` (looked up later)"),
  },
  lookup("store", "/store/orders/{reference}", "storeOrderStatus", "StoreOrder", "A store top-up"),

  health("games", "game top-up provider"),
  {
    provider: "games",
    method: "get",
    path: "/games",
    operationId: "gamesList",
    summary: "The games on sale",
    description: "The partner's game list and the Mini App's shop.",
    responses: readResponses("GamesList"),
  },
  {
    provider: "games",
    method: "get",
    path: "/games/{code}/catalogue",
    operationId: "gamesCatalogue",
    summary: "A game's denominations",
    description: "Read live for every game price and purchase: the denomination's cost is part of the price.",
    responses: readResponses("GamesCatalogue", { notFound: "No such game: the partner gets a 404." }),
  },
  {
    provider: "games",
    method: "post",
    path: "/games/{code}/check-player",
    operationId: "gamesCheckPlayer",
    summary: "Check a player ID",
    description: "Before a game purchase: an invalid player is refused with its reason, nothing charged.",
    request: "GamesCheckPlayerRequest",
    responses: readResponses("GamesPlayerCheck"),
  },
  {
    provider: "games",
    method: "post",
    path: "/games/orders",
    operationId: "gamesOrder",
    summary: "Credit a player",
    description: ORDER_RULES,
    request: "GamesOrderRequest",
    responses: orderResponses("GamesOrder", "`completed`, `failed` (refunded) or `processing` (looked up later)"),
  },
  lookup("games", "/games/orders/{reference}", "gamesOrderStatus", "GamesOrder", "A game top-up"),

  health("giftcards", "gift card provider"),
  {
    provider: "giftcards",
    method: "get",
    path: "/giftcards/brands",
    operationId: "giftcardsBrands",
    summary: "The gift card brands",
    description: "The partner's brand list and the Mini App's shop.",
    responses: readResponses("GiftcardsBrands"),
  },
  {
    provider: "giftcards",
    method: "get",
    path: "/giftcards/{category}/catalogue",
    operationId: "giftcardsCatalogue",
    summary: "A brand's cards",
    description: "Read live for every gift card price and purchase: cost, stock and the quantities allowed.",
    responses: readResponses("GiftcardsCatalogue", { notFound: "No such brand: the partner gets a 404." }),
  },
  {
    provider: "giftcards",
    method: "post",
    path: "/giftcards/orders",
    operationId: "giftcardsOrder",
    summary: "Buy gift card codes",
    description: `${ORDER_RULES} A completed order carries its codes, one per card.`,
    request: "GiftcardsOrderRequest",
    responses: orderResponses("GiftcardsOrder", "`completed` with its codes, `failed` (refunded) or `processing` (looked up later)"),
  },
  lookup("giftcards", "/giftcards/orders/{reference}", "giftcardsOrderStatus", "GiftcardsOrder", "A gift card order"),

  health("gifts", "gift service"),
  {
    provider: "gifts",
    method: "get",
    path: "/gifts/catalogue",
    operationId: "giftsCatalogue",
    summary: "The gifts on sale",
    description: "Read live for the gift list and every gift purchase: its star price and what is left of a limited one.",
    responses: readResponses("GiftsCatalogue"),
  },
  {
    provider: "gifts",
    method: "post",
    path: "/gifts/check-recipient",
    operationId: "giftsCheckRecipient",
    summary: "Check a gift's recipient",
    description: "Before a gift purchase: a recipient who does not exist or does not accept gifts is refused, nothing charged.",
    request: "GiftsRecipientRequest",
    responses: readResponses("GiftsRecipient"),
  },
  {
    provider: "gifts",
    method: "post",
    path: "/gifts/send",
    operationId: "giftsSend",
    summary: "Send a gift",
    description: `${ORDER_RULES} A send has no \`processing\` answer: answer \`completed\` or \`failed\` when it is done; an answer of another shape leaves the order \`processing\` until the lookup tells.`,
    request: "GiftsSendRequest",
    responses: orderResponses("GiftsSend", "`completed` or `failed` (refunded, with its `code`)"),
  },
  lookup("gifts", "/gifts/sends/{reference}", "giftsSendStatus", "GiftsSend", "A gift send"),
  {
    provider: "gifts",
    method: "get",
    path: "/gifts/{id}/sticker",
    operationId: "giftsSticker",
    summary: "A gift's sticker",
    description: "The animation the API and the Mini App show for the gift.",
    responses: readResponses("GiftsSticker", { notFound: "No sticker for this gift: the partner gets a 404." }),
  },
];

const TAGS: Record<ProviderName, { setting: string; description: string }> = {
  gateway: {
    setting: "GATEWAY_URL",
    description: "Stars and Telegram Premium, delivered to a Telegram username (`/v1/stars`, `/v1/premium`, the recipient search).",
  },
  rates: { setting: "RATES_URL", description: "The TON/USD rate shown with prices." },
  store: { setting: "STORE_URL", description: "Game-store wallet top-ups by account login, in USD (`/v1/store`)." },
  games: { setting: "GAMES_URL", description: "In-game currency credited to a player ID (`/v1/games`)." },
  giftcards: { setting: "GIFTCARDS_URL", description: "Gift card codes by brand and denomination (`/v1/giftcards`)." },
  gifts: { setting: "GIFTS_URL", description: "Telegram gifts sent to a username (`/v1/gifts`)." },
};

const INTRO = `The HTTP protocol the purchase service speaks to its providers under \`UPSTREAM=external\`: what a bridge between the service and a supplier of your own must answer. The embedded simulator (\`npm run simulator\`) speaks it; [provider-protocol.md](provider-protocol.md) says how to write and test a bridge.

Generated by \`npm run docs:protocol\` from the adapters' zod schemas (\`src/upstream/\`) and the configuration's defaults; \`test/upstream/protocol.test.ts\` checks it against the adapters' requests and the simulator's answers.

**Addresses.** Each provider has a base URL of its own (${PROVIDER_NAMES.map((name) => `\`${TAGS[name].setting}\``).join(", ")}): an origin (scheme, host and port) without a path, since the paths below are absolute. One server may play several providers. A provider without a URL is not configured: its products answer 503.

**Requests.** POST bodies are JSON (\`Content-Type: application/json\`). \`X-Request-Id\` names the work that made the call (the partner's request, a bot update, a background pass such as \`reconciler-12\`): log it. The service sends no credentials: keep the bridge where only the service reaches it. Ignore fields you do not know in a request; answers may carry fields the service does not read.

**Timing.** Every call is bounded by ${ms(TIMEOUT)} (\`UPSTREAM_TIMEOUT_MS\`), connecting by ${ms(CONNECT_TIMEOUT_MS)}; health checks by ${ms(READY_TIMEOUT_MS)}. Nothing is retried at once: a read that fails is answered to the partner as the provider being down, and an order whose answer was lost is looked up later.

**Orders.** An order request carries our \`reference\` (a UUID). The buyer is charged before the call, and what the provider answers settles the order: \`completed\`; \`failed\`, refunded at once; or \`processing\`, looked up by the reference until it is one of the two. A refusal (4xx) fails it and refunds it; 429 and 503 mean "not taken, never will be" and refund it too, as does a connection that could not be made. A timeout, a lost or malformed answer, 408, 409 and any other 5xx leave the outcome unknown: the order stays \`processing\` and the lookup decides it. So a provider must never carry out an order it answered with a 4xx other than 408 and 409, or with a 503, and must be able to say, by reference, what became of every order it may have taken.`;

/** The whole document. */
export function protocolDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const params = [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
      description: name === "reference" ? "Our reference, as the order request sent it (a UUID)" : `The ${name} as the provider's list gave it`,
    }));
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      operationId: op.operationId,
      tags: [op.provider],
      summary: op.summary,
      description: op.description,
      parameters: [...params, { $ref: "#/components/parameters/RequestId" }],
      ...(op.request ? { requestBody: { required: true, content: json(ref(op.request)) } } : {}),
      responses: op.responses,
      security: [],
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Provider protocol",
      version: PROTOCOL_VERSION,
      description: INTRO,
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [
      {
        url: "{origin}",
        description: "A provider's base URL",
        variables: { origin: { default: "http://127.0.0.1:9090", description: "The provider's *_URL; 9090 is `npm run simulator`'s port" } },
      },
    ],
    tags: PROVIDER_NAMES.map((name) => ({ name, description: `${TAGS[name].description} Base URL: \`${TAGS[name].setting}\`.` })),
    paths,
    components: {
      parameters: {
        RequestId: {
          name: "X-Request-Id",
          in: "header",
          required: false,
          schema: { type: "string" },
          description: "The id of the work that made the call, for matching both sides' logs; absent when no work is named",
        },
      },
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([name, schema]) => [name, jsonSchema(schema)])),
    },
  };
}

/** The document as the file holds it: formatted as prettier formats the repository. */
export async function protocolFile(): Promise<string> {
  const options = await resolveConfig(PROTOCOL_DOC_PATH);
  return format(JSON.stringify(protocolDocument()), { ...options, filepath: PROTOCOL_DOC_PATH });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(PROTOCOL_DOC_PATH, await protocolFile());
  console.log(`written ${PROTOCOL_DOC_PATH}`);
}
