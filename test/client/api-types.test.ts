import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { apiVersion, createClient, type PartnerClient } from "../../client/src/index.js";
import { API_VERSION } from "../../src/wire/account.js";
import { openApiDocument } from "../../src/api/document.js";
import { CLIENT_API_TYPES, generatedClientApiTypes } from "../../scripts/client-api-types.js";

describe("the partner client's API types", () => {
  it("are committed as `npm run client:types` generates them from the OpenAPI document now", async () => {
    const committed = readFileSync(CLIENT_API_TYPES, "utf8");
    expect(committed, "client/src/api-types.ts is not what the OpenAPI document gives now: run npm run client:types").toBe(
      await generatedClientApiTypes(),
    );
  });
});

/** Each partner operation of the document, and the client's method for it. */
const METHODS: Record<string, keyof PartnerClient | "not a partner's"> = {
  getLiveness: "not a partner's",
  getReadiness: "not a partner's",
  cryptoPayWebhook: "not a partner's",
  getHealth: "health",
  getBalance: "balance",
  getKeys: "keys",
  endKeyGrace: "endKeyGrace",
  getPricing: "pricing",
  getRates: "rates",
  searchRecipient: "search",
  buyStars: "buyStars",
  buyPremium: "buyPremium",
  sandboxStars: "sandboxStars",
  sandboxPremium: "sandboxPremium",
  listOrders: "orders",
  getOrder: "order",
  getLedger: "ledger",
  exportLedger: "exportLedger",
  getStorePricing: "storePricing",
  topUpStore: "buyStore",
  getStoreOrder: "storeOrder",
  sandboxStore: "sandboxStore",
  listGames: "games",
  getGameCatalogue: "gameCatalogue",
  checkGamePlayer: "checkPlayer",
  orderGameCredit: "buyGame",
  getGameOrder: "gameOrder",
  listGiftcardBrands: "giftcardBrands",
  getGiftcardCatalogue: "giftcardCatalogue",
  orderGiftcards: "buyGiftcards",
  getGiftcardOrder: "giftcardOrder",
  listGifts: "gifts",
  sendGift: "sendGift",
  getGiftSticker: "giftSticker",
  getWebhook: "webhook",
  setWebhook: "setWebhook",
  removeWebhook: "removeWebhook",
  rotateWebhookSecret: "rotateWebhookSecret",
  revokePreviousWebhookSecret: "revokePreviousWebhookSecret",
  pingWebhook: "pingWebhook",
  listWebhookAttempts: "webhookAttempts",
  createQuote: "quote",
  createTopup: "createTopup",
  listTopups: "topups",
  getTopup: "topup",
  cancelTopup: "cancelTopup",
};

describe("the partner client", () => {
  it("is versioned as the API is", async () => {
    const document = (await openApiDocument()) as { info: { version: string } };
    expect(JSON.parse(readFileSync("client/package.json", "utf8")).version).toBe(document.info.version);
  });

  it("states the API version it matches: the service's", () => {
    expect(apiVersion).toBe(API_VERSION);
    expect(JSON.parse(readFileSync("client/package.json", "utf8")).apiVersion).toBe(API_VERSION);
  });

  it("has a method for every operation of the document but the Mini App's and the providers' webhooks", async () => {
    const document = (await openApiDocument()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const client = createClient({ baseUrl: "http://127.0.0.1:1", apiKey: "sj_" });
    const operations = Object.entries(document.paths)
      .filter(([path]) => !path.startsWith("/miniapp/"))
      .flatMap(([, methods]) => Object.values(methods).map((operation) => operation.operationId));
    expect(operations.filter((id) => !(id in METHODS))).toEqual([]);
    for (const id of operations) if (METHODS[id] !== "not a partner's") expect(client[METHODS[id] as keyof PartnerClient], id).toBeTypeOf("function");
  });
});
