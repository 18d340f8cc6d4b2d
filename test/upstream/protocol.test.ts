import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_DOC_PATH, protocolDocument, protocolFile } from "../../scripts/provider-protocol.js";
import { microUsd } from "../../src/core/model/money.js";
import { PROVIDER_NAMES, type ProviderName, type UpstreamStatus } from "../../src/core/ports.js";
import { withRequestId } from "../../src/observability/context.js";
import { createGamesAdapter } from "../../src/upstream/games.js";
import { createGatewayAdapter } from "../../src/upstream/gateway.js";
import { createGiftcardsAdapter } from "../../src/upstream/giftcards.js";
import { createGiftsAdapter } from "../../src/upstream/gifts.js";
import { createHttpClient } from "../../src/upstream/http.js";
import { createRatesAdapter } from "../../src/upstream/rates.js";
import { createStoreAdapter } from "../../src/upstream/store.js";
import type { Fault } from "../../src/simulator/context.js";
import { startSimulator } from "../../src/simulator/server.js";

// The published provider protocol (docs/provider-protocol.openapi.json) against the code on both sides of it: the
// real adapters call the real simulator over HTTP through a recording proxy, and every request they sent and every
// answer the simulator gave is validated against the document's schemas for its operation and status. An adapter
// that calls a path, or sends a body, the document does not have fails here; so does a simulator answer the
// document does not allow, and an operation nothing exercised.

interface Exchange {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  requestBody: unknown;
  status: number;
  body: unknown;
}

type Document = ReturnType<typeof protocolDocument>;
type Operation = { tags: string[]; requestBody?: unknown; responses: Record<string, { content?: unknown }> };

let simulator: Awaited<ReturnType<typeof startSimulator>>;
let proxyUrl: string;
let closeProxy: () => Promise<void>;
const exchanges: Exchange[] = [];

/** A proxy in front of the simulator that keeps every exchange: what the adapter sent, what came back. */
async function recordingProxy(target: string) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString();
    const forwarded = await request(`${target}${req.url}`, {
      method: req.method as "GET" | "POST",
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => ["content-type", "x-request-id"].includes(name)) as [string, string][],
      ),
      body: text || undefined,
    });
    const answer = await forwarded.body.text();
    exchanges.push({
      method: req.method!,
      path: req.url!,
      headers: req.headers,
      requestBody: text ? JSON.parse(text) : undefined,
      status: forwarded.statusCode,
      body: answer ? JSON.parse(answer) : undefined,
    });
    res.writeHead(forwarded.statusCode, { "content-type": "application/json" }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const clients: Array<ReturnType<typeof createHttpClient>> = [];
const client = (provider: ProviderName) => {
  const http = createHttpClient(proxyUrl, 5_000, { provider });
  clients.push(http);
  return http;
};

async function fault(provider: ProviderName, mode: Fault) {
  const answer = await request(`${simulator.url}/control/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ provider, mode }),
  });
  expect(answer.statusCode).toBe(200);
  await answer.body.dump();
}

/** A gift of the simulator's catalogue, unlimited. */
const GIFT = "5170145012310081615";

/** Asks until the lookup says something other than pending. */
async function settled(status: () => Promise<UpstreamStatus>): Promise<UpstreamStatus> {
  for (let i = 0; i < 200; i++) {
    const now = await status();
    if (now.kind !== "pending") return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("still pending");
}

beforeAll(async () => {
  simulator = await startSimulator(0, { timeScale: 0.01 });
  const proxy = await recordingProxy(simulator.url);
  proxyUrl = proxy.url;
  closeProxy = proxy.close;
});

afterAll(async () => {
  await Promise.all(clients.map((http) => http.close()));
  await closeProxy();
  await simulator.app.close();
});

describe("the provider protocol document", () => {
  it("is exactly what npm run docs:protocol writes from the adapters' schemas", async () => {
    expect(readFileSync(PROTOCOL_DOC_PATH, "utf8"), "run npm run docs:protocol and commit docs/provider-protocol.openapi.json").toBe(
      await protocolFile(),
    );
  });

  it("passes Redocly's recommended rules; the only warnings are the protocol's own ambiguous paths", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: readFileSync(PROTOCOL_DOC_PATH, "utf8"), absoluteRef: PROTOCOL_DOC_PATH, config });
    expect(problems.filter((p) => p.ruleId !== "no-ambiguous-paths").map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).toEqual([]);
  });

  it("tags every operation with one provider, and has every provider", () => {
    const document = protocolDocument() as Document;
    const tags = Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, Operation>).map((op) => op.tags));
    for (const tag of tags) expect(PROVIDER_NAMES).toContain(tag[0]);
    expect(new Set(tags.map((tag) => tag[0]))).toEqual(new Set(PROVIDER_NAMES));
  });
});

describe("the adapters and the simulator, over HTTP", () => {
  it("speak the document: every request and answer of every operation, errors included, validates", async () => {
    const gateway = createGatewayAdapter(client("gateway"));
    const rates = createRatesAdapter(client("rates"));
    const store = createStoreAdapter(client("store"));
    const games = createGamesAdapter(client("games"));
    const giftcards = createGiftcardsAdapter(client("giftcards"));
    const gifts = createGiftsAdapter(client("gifts"));
    const ref = () => randomUUID();
    // Soft, and a read that throws is a value: a drifted adapter or simulator still gets as far as the checks
    // below, which name the exchange and the rule it breaks.
    const ask = <T>(call: Promise<T>): Promise<T | Error> => call.catch((error: Error) => error);

    // The gateway: stars and Premium.
    expect.soft(await withRequestId("protocol-test-1", () => gateway.ready())).toBe(true);
    expect.soft(exchanges.at(-1)?.headers["x-request-id"]).toBe("protocol-test-1");
    expect.soft(await ask(gateway.search("alice", "stars"))).toMatchObject({ username: "alice" });
    expect.soft(await ask(gateway.search("missing_bob", "premium"))).toBeNull();
    const delivered = ref();
    const delivery = { reference: delivered, product: "stars", username: "alice", amount: 50, recipientId: null } as const;
    const first = await gateway.deliver(delivery);
    expect.soft(first).toMatchObject({ kind: "completed" });
    // The same reference again is the same order, as the document asks of a provider: not a second delivery.
    expect.soft(await gateway.deliver(delivery)).toEqual(first);
    expect
      .soft(await gateway.deliver({ reference: ref(), product: "premium", username: "fail_carol", amount: 3, recipientId: null }))
      .toMatchObject({ kind: "failed" });
    expect.soft(await gateway.status(delivered)).toMatchObject({ kind: "completed" });
    expect.soft(await gateway.status(ref())).toEqual({ kind: "not_found" });

    // The rates.
    expect.soft(await rates.ready()).toBe(true);
    expect.soft(await ask(rates.tonUsd())).toBeTypeOf("number");

    // The store: at once, later, and refused.
    expect.soft(await store.ready()).toBe(true);
    expect.soft(await ask(store.limits())).toMatchObject({ feePpm: 30_000 });
    expect.soft(await store.order({ reference: ref(), login: "alice", amountMicro: microUsd(10_000_000) })).toMatchObject({ kind: "completed" });
    const storeLater = ref();
    expect
      .soft(await store.order({ reference: storeLater, login: "pending_alice", amountMicro: microUsd(5_000_000) }))
      .toMatchObject({ kind: "pending" });
    expect.soft(await store.status(storeLater)).toMatchObject({ kind: "pending" });
    expect.soft(await settled(() => store.status(storeLater))).toMatchObject({ kind: "completed" });
    expect.soft(await store.order({ reference: ref(), login: "nofunds_bob", amountMicro: microUsd(5_000_000) })).toMatchObject({
      kind: "failed",
      reason: "provider_balance",
    });
    expect.soft(await store.status(ref())).toEqual({ kind: "not_found" });

    // The games: catalogue, player check, an order and a refusal.
    expect.soft(await games.ready()).toBe(true);
    expect.soft(await ask(games.list())).toContainEqual(expect.objectContaining({ code: "pubgm" }));
    expect.soft(await ask(games.catalogue("pubgm"))).toBeInstanceOf(Array);
    expect.soft(await ask(games.catalogue("no-such-game"))).toBeNull();
    expect.soft(await ask(games.checkPlayer("pubgm", "123456", null))).toMatchObject({ valid: true });
    expect.soft(await ask(games.checkPlayer("pubgm", "12", null))).toMatchObject({ valid: false });
    const game = ref();
    expect.soft(await games.order({ reference: game, gameCode: "pubgm", denomination: "60", playerId: "123456", serverId: null })).toMatchObject({
      kind: "pending",
    });
    expect.soft(await games.status(game)).toMatchObject({ kind: "pending" });
    expect.soft(await settled(() => games.status(game))).toMatchObject({ kind: "completed" });
    expect.soft(await games.order({ reference: ref(), gameCode: "pubgm", denomination: "61", playerId: "123456", serverId: null })).toMatchObject({
      kind: "failed",
    });
    expect.soft(await games.status(ref())).toEqual({ kind: "not_found" });

    // The gift cards: codes later, a refusal, a failure later.
    expect.soft(await giftcards.ready()).toBe(true);
    expect.soft(await ask(giftcards.brands())).toContainEqual(expect.objectContaining({ categoryId: "psn-us" }));
    expect.soft(await ask(giftcards.catalogue("psn-us"))).toBeInstanceOf(Array);
    expect.soft(await ask(giftcards.catalogue("no-such-brand"))).toBeNull();
    const cards = ref();
    expect
      .soft(await giftcards.order({ reference: cards, categoryId: "psn-us", cardId: "psn-us-10", quantity: 2 }))
      .toMatchObject({ kind: "pending" });
    const done = await settled(() => giftcards.status(cards));
    expect.soft(done).toMatchObject({ kind: "completed" });
    expect.soft(done.kind === "completed" && done.codes).toHaveLength(2);
    expect
      .soft(await giftcards.order({ reference: ref(), categoryId: "psn-us", cardId: "psn-us-50", quantity: 1 }))
      .toMatchObject({ kind: "failed" });
    const declined = ref();
    await giftcards.order({ reference: declined, categoryId: "apple-us", cardId: "apple-us-fail", quantity: 1 });
    expect.soft(await settled(() => giftcards.status(declined))).toMatchObject({ kind: "failed" });
    expect.soft(await giftcards.status(ref())).toEqual({ kind: "not_found" });

    // The gifts.
    expect.soft(await gifts.ready()).toBe(true);
    expect.soft(await ask(gifts.catalogue())).toContainEqual(expect.objectContaining({ giftId: GIFT }));
    expect.soft(await ask(gifts.checkRecipient("alice"))).toEqual({ exists: true, acceptsGifts: true });
    const sent = ref();
    const send = { recipient: "alice", recipientId: null, giftId: GIFT, hideName: false, message: "" };
    expect.soft(await gifts.send({ reference: sent, ...send })).toMatchObject({ kind: "completed" });
    expect
      .soft(await gifts.send({ reference: ref(), ...send, recipient: "refuse_dan" }))
      .toMatchObject({ kind: "failed", reason: "recipient_refuses" });
    expect.soft(await gifts.status(sent)).toMatchObject({ kind: "completed" });
    expect.soft(await gifts.status(ref())).toEqual({ kind: "not_found" });
    expect.soft(await ask(gifts.sticker(GIFT))).toHaveProperty("layers");
    expect.soft(await ask(gifts.sticker("1"))).toBeNull();

    // Every provider down: its health, a read and an order each get the simulator's 503.
    for (const provider of PROVIDER_NAMES) await fault(provider, "down");
    try {
      expect
        .soft(await Promise.all([gateway, rates, store, games, giftcards, gifts].map((p) => p.ready())))
        .toEqual([false, false, false, false, false, false]);
      await expect.soft(gateway.search("alice", "stars")).rejects.toThrow("HTTP 503");
      await expect.soft(rates.tonUsd()).rejects.toThrow("HTTP 503");
      await expect.soft(store.limits()).rejects.toThrow("HTTP 503");
      await expect.soft(games.list()).rejects.toThrow("HTTP 503");
      await expect.soft(giftcards.brands()).rejects.toThrow("HTTP 503");
      await expect.soft(gifts.catalogue()).rejects.toThrow("HTTP 503");
      const unavailable = { kind: "failed", reason: "provider_unavailable" };
      expect
        .soft(await gateway.deliver({ reference: ref(), product: "stars", username: "alice", amount: 50, recipientId: null }))
        .toMatchObject(unavailable);
      expect.soft(await store.order({ reference: ref(), login: "alice", amountMicro: microUsd(10_000_000) })).toMatchObject(unavailable);
      expect
        .soft(await games.order({ reference: ref(), gameCode: "pubgm", denomination: "60", playerId: "123456", serverId: null }))
        .toMatchObject(unavailable);
      expect.soft(await giftcards.order({ reference: ref(), categoryId: "psn-us", cardId: "psn-us-10", quantity: 1 })).toMatchObject(unavailable);
      expect.soft(await gifts.send({ reference: ref(), ...send })).toMatchObject(unavailable);
      expect.soft(await gateway.status(delivered)).toMatchObject({ kind: "unknown" });
    } finally {
      for (const provider of PROVIDER_NAMES) await fault(provider, "ok");
    }

    // Now every exchange against the document.
    const document = JSON.parse(readFileSync(PROTOCOL_DOC_PATH, "utf8")) as Document;
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    ajv.addSchema(document, "protocol");
    const pointer = (...parts: string[]) => `protocol#/${parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`;
    const templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`),
    }));

    const problems: string[] = [];
    const exercised = new Set<string>();
    const errorsValidated = new Set<string>();
    for (const exchange of exchanges) {
      const name = `${exchange.method} ${exchange.path} → ${exchange.status}`;
      const method = exchange.method.toLowerCase();
      const paths = document.paths as Record<string, Record<string, Operation>>;
      const matches = templates.filter((t) => t.pattern.test(exchange.path.split("?")[0]) && paths[t.template][method]);
      if (matches.length !== 1) {
        problems.push(`${name}: ${matches.length} operations in the document`);
        continue;
      }
      const { template } = matches[0];
      const operation = paths[template][method];
      exercised.add(`${method} ${template}`);
      if (operation.requestBody) {
        const validate = ajv.getSchema(pointer("paths", template, method, "requestBody", "content", "application/json", "schema"))!;
        if (!validate(exchange.requestBody)) problems.push(`${name}: the adapter's request ${ajv.errorsText(validate.errors)}`);
      } else if (exchange.requestBody !== undefined) {
        problems.push(`${name}: a body the document does not have`);
      }
      const status = String(exchange.status);
      const key = [status, `${status[0]}XX`, "default"].find((k) => operation.responses[k]);
      if (!key) {
        problems.push(`${name}: a status the document does not list`);
        continue;
      }
      if (!operation.responses[key].content) continue;
      const validate = ajv.getSchema(pointer("paths", template, method, "responses", key, "content", "application/json", "schema"))!;
      if (!validate(exchange.body)) problems.push(`${name}: the simulator's answer ${ajv.errorsText(validate.errors)}`);
      else if (exchange.status >= 400) errorsValidated.add(operation.tags[0]);
    }
    expect(problems).toEqual([]);
    const operations = Object.entries(document.paths).flatMap(([template, item]) => Object.keys(item).map((method) => `${method} ${template}`));
    expect(operations.filter((operation) => !exercised.has(operation))).toEqual([]);
    expect([...errorsValidated].sort()).toEqual([...PROVIDER_NAMES].sort());
  });
});
