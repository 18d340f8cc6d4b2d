import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api } from "grammy";
import { allProvidersAt } from "../../src/simulator/settings.js";
import { hashKey } from "../../src/core/keys.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { maskErrorInPlace } from "../../src/observability/log.js";
import { type BotHarness, eventually, startBotHarness, TEST_BOT_TOKEN } from "../support/harness.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/**
 * A whole run's log, from the real service (API, bot through the emulator, reconciler, webhooks), is read
 * line by line: every line is JSON, no secret is in any, and one request's lines (its own, its provider
 * calls) share its id, which the provider received as X-Request-Id.
 */

/** Between the service and the simulator: records which X-Request-Id each provider call carried. */
async function startRecordingProxy() {
  const seen: Array<{ method: string; path: string; requestId: string | undefined }> = [];
  let target = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      const requestId = req.headers["x-request-id"];
      seen.push({ method: req.method!, path: req.url!, requestId: typeof requestId === "string" ? requestId : undefined });
      try {
        const answer = await request(`${target}${req.url}`, {
          method: req.method as "GET" | "POST",
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          body: chunks.length ? Buffer.concat(chunks) : undefined,
        });
        const body = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "application/json") }).end(body);
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    forwardTo(url: string) {
      target = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

const ADMIN = 930_000_001;
const CODES_KEY = randomBytes(32).toString("base64");
let b: BotHarness;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let receiver: Receiver;

beforeAll(async () => {
  proxy = await startRecordingProxy();
  receiver = await startReceiver();
  b = await startBotHarness(
    930_000_100,
    { admins: [ADMIN] },
    { ...allProvidersAt(proxy.url), CODES_KEY, WEBHOOK_ALLOW_LOOPBACK: "true", WEBHOOK_POLL_MS: "50" },
  );
  proxy.forwardTo(b.h.simulatorUrl);
});
afterAll(async () => {
  await b.close();
  await proxy.close();
  await receiver.close();
});

const lines = () =>
  b.h.logs
    .join("")
    .split("\n")
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Line);
const requestLine = (id: string) => lines().find((l) => l.msg.startsWith("request ") && l.reqId === id);
const providerCalls = (id: string) => lines().filter((l) => l.msg === "provider call" && l.reqId === id);

describe("the log of a whole run", () => {
  it("follows each request by its id, never logs a secret, and ties bot updates and background passes to their work", async () => {
    const { h } = b;
    const secrets: string[] = [TEST_BOT_TOKEN, TEST_BOT_TOKEN.split(":")[1], CODES_KEY];
    const { key } = await h.newKey(200);
    const { key: other } = await h.newKey(50);
    secrets.push(key, other, hashKey(key), hashKey(other));

    // Purchases with and without the client's id: the answer carries the id, the provider received it.
    const stars = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 }, headers: { "x-request-id": "shop-42.7:a_b-c" } });
    expect(stars.status).toBe(200);
    expect(stars.headers["x-request-id"]).toBe("shop-42.7:a_b-c");
    const premium = await h.call("POST", "/v1/premium", { key: other, body: { username: "liam", months: 3 } });
    expect(premium.status).toBe(200);
    const generated = String(premium.headers["x-request-id"]);
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const store = await h.call("POST", "/v1/store", { key, body: { login: "gabe", amount_usd: 10 }, headers: { "x-request-id": "store-1" } });
    expect(store.status).toBeLessThan(300);
    const game = await h.call("POST", "/v1/games/genshin/order", {
      key,
      body: { denomination: "Blessing of the Welkin Moon", player_id: "700123456", server_id: "os_euro" },
      headers: { "x-request-id": "game-1" },
    });
    expect(game.status).toBeLessThan(300);

    // A gift card order whose codes are fetched: the codes are in the answer, never in the log.
    const card = await h.call("POST", "/v1/giftcards/psn-us/order", {
      key,
      body: { card_id: "psn-us-10", quantity: 2 },
      headers: { "x-request-id": "gc-1" },
    });
    expect(card.status).toBe(202);
    const done = await eventually(async () => {
      const res = await h.call("GET", `/v1/giftcards/orders/${card.body.order_id}`, { key });
      return res.body.status === "completed" ? res : undefined;
    });
    expect(done.body.codes).toHaveLength(2);
    secrets.push(...done.body.codes);

    // Ids that are not sane are replaced, never logged; errors and 404s carry an id too.
    const insane = ["has space", "x".repeat(65), "ünïcode", key, `req-${other}`, "whsec_abcdefghijklmnop"];
    for (const id of insane) {
      const res = await h.call("GET", "/v1/balance", { key, headers: { "x-request-id": id } });
      expect(res.status).toBe(200);
      expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    }
    for (const [method, url, options] of [
      ["GET", "/v1/no-such-thing", {}],
      ["GET", "/v1/balance", { key: "sj_wrong" }],
      ["POST", "/v1/stars", { key, body: { username: "alice", stars: -1 } }],
    ] as const) {
      const res = await h.call(method, url, options);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers["x-request-id"], url).toMatch(/^[0-9a-f-]{36}$/);
      expect(requestLine(String(res.headers["x-request-id"]))?.statusCode).toBe(res.status);
    }

    // A webhook endpoint set (its secret is shown once), then an order event delivered to it.
    const webhook = await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } });
    expect(webhook.body.secret).toMatch(/^whsec_/);
    secrets.push(webhook.body.secret);
    const hooked = await h.call("POST", "/v1/stars", { key, body: { username: "bob_b", stars: 50 } });
    await receiver.waitFor((r) => r.json.data?.order?.order_id === hooked.body.order_id);

    // An order whose answer never comes is settled by a reconciler pass, under that pass's own id.
    await h.fault("gateway", "hang_after_accept");
    const hung = await h.call("POST", "/v1/stars", { key, body: { username: "carol", stars: 60 }, headers: { "x-request-id": "hung-1" } });
    expect(hung.body.status).toBe("processing");
    await h.fault("gateway", "ok");
    const lookup = await eventually(async () =>
      lines().find(
        (l) =>
          l.msg === "provider call" &&
          l.method === "GET" &&
          String(l.path).startsWith("/gateway/deliveries/") &&
          /^reconciler-\d+$/.test(l.reqId ?? ""),
      ),
    );
    expect(proxy.seen).toContainEqual({ method: "GET", path: lookup.path, requestId: lookup.reqId });

    // Through the bot: an admin credit, and a purchase whose provider call carries the update's id.
    const admin = new EmulatedChat(b.emulatorUrl, { id: ADMIN, first_name: "Admin", username: "the_admin", language_code: "en" });
    await admin.reply("/start", (t) => t.includes("What would you like"));
    const buyer = await b.registered(0);
    secrets.push(buyer.key);
    expect(await admin.reply(`/credit ${buyer.telegramId} 10 welcome`, () => true).then((m) => m.text)).toContain("balance 10.00 USDT");
    await buyer.chat.tap("Stars");
    await buyer.chat.next((t) => t.includes("Who is it for?"));
    await buyer.chat.reply("@alice", (t) => t.includes("How many stars?"));
    await buyer.chat.reply("200", (t) => t.includes("Confirm?"));
    await buyer.chat.tap("Confirm");
    await buyer.chat.next((t) => t.includes("Done!"));

    // A Bot API network error names the token in its URL (node-fetch's message): the log masks it.
    const failure = await new Api(TEST_BOT_TOKEN, { apiRoot: "http://127.0.0.1:1" }).getMe().catch((error: unknown) => error);
    expect(inspect(failure, { depth: 5 })).toContain(TEST_BOT_TOKEN);
    h.service.api.log.error({ err: failure }, "test: a failed Bot API call");
    expect(inspect(maskErrorInPlace(failure), { depth: 5 })).not.toContain(TEST_BOT_TOKEN.split(":")[1]);

    await eventually(async () => (b.h.logs.join("").includes("test: a failed Bot API call") ? true : undefined));
    const all = lines();
    const text = b.h.logs.join("");

    // No secret in any line.
    for (const secret of [...secrets, ...insane]) expect(text, secret).not.toContain(secret);
    expect(text).not.toContain("whsec_");
    expect(text).not.toContain(TEST_BOT_TOKEN.split(":")[1]);
    expect(text).toContain("bot[redacted]");

    // Every request line has an id; each purchase's provider calls carry its id, as the provider received it.
    const requests = all.filter((l) => l.msg.startsWith("request "));
    expect(requests.length).toBeGreaterThan(15);
    for (const line of requests) expect(line.reqId, JSON.stringify(line)).toMatch(/^[A-Za-z0-9._:-]{1,64}$/);
    for (const [id, path] of [
      ["shop-42.7:a_b-c", "/gateway/deliveries"],
      [generated, "/gateway/deliveries"],
      ["store-1", "/store/orders"],
      ["game-1", "/games/orders"],
      ["gc-1", "/giftcards/orders"],
    ]) {
      expect(requestLine(id)?.statusCode, id).toBeLessThan(300);
      const calls = providerCalls(id);
      expect(
        calls.map((c) => `${c.method} ${c.path}`),
        id,
      ).toContain(`POST ${path}`);
      for (const call of calls) {
        expect(call).toMatchObject({ level: 30, provider: expect.any(String), statusCode: expect.any(Number), ms: expect.any(Number) });
        expect(proxy.seen, id).toContainEqual({ method: call.method, path: call.path, requestId: id });
      }
    }
    // The call that never answered is logged with its error, under its request's id.
    expect(providerCalls("hung-1")).toContainEqual(
      expect.objectContaining({ method: "POST", path: "/gateway/deliveries", statusCode: null, error: expect.any(String) }),
    );

    // The bot purchase: its delivery call ran under the Confirm tap's update, which has a line of its own.
    const botCall = all.find((l) => l.msg === "provider call" && l.path === "/gateway/deliveries" && l.reqId?.startsWith("tg-"))!;
    expect(botCall).toBeDefined();
    // Its line is written once the update's work is over, which goes on a little after the last reply.
    const update = await eventually(async () => lines().find((l) => l.msg === "bot update" && `tg-${l.update}` === botCall.reqId));
    expect(update).toMatchObject({ kind: "callback_query", chat: Number(buyer.telegramId), ms: expect.any(Number), reqId: botCall.reqId });
    expect(proxy.seen).toContainEqual({ method: "POST", path: "/gateway/deliveries", requestId: botCall.reqId });
    // Every update has its line (ids unique), and none holds message text.
    const updates = lines().filter((l) => l.msg === "bot update");
    expect(new Set(updates.map((l) => l.update)).size).toBe(updates.length);
    expect(updates.length).toBeGreaterThanOrEqual(7);
    expect(JSON.stringify(updates)).not.toContain("@alice");
  });
});
