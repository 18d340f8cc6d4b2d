import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as partner from "../src/index.js";
import { createClient, PartnerApiError } from "../src/index.js";

// The client alone, without the service: a fetch of the test's own, or a local socket that misbehaves on purpose.

type Seen = { url: string; init: RequestInit; body: Record<string, unknown> | null };

/** A fetch answering each request with `answer(seen)`, recording what was sent. */
function fakeFetch(answer: (seen: Seen, index: number) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = async (input, init = {}) => {
    const entry = { url: String(input), init, body: init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : null };
    seen.push(entry);
    return answer(entry, seen.length - 1);
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const starsOrder = (over: Record<string, unknown> = {}) => ({
  success: true,
  order_id: 7,
  idempotency_key: "k",
  product_type: "stars",
  username: "alice",
  amount: 100,
  stars: 100,
  months: null,
  usdt_charged: 1.5,
  status: "completed",
  transaction_id: "tx",
  error: null,
  balance_remaining_usdt: 8.5,
  created_at: "2026-11-29T00:00:00.000Z",
  completed_at: "2026-11-29T00:00:01.000Z",
  ...over,
});

const BASE = "https://api.example.com";
const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );

let server: Server;
let local: string;
/** A local server: /hang never answers, /redirect answers 307 to another origin. */
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith("/hang")) return;
    response.writeHead(307, { location: "https://elsewhere.example.net/v1/stars" }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("an idempotency key reused with other fields", () => {
  it("is refused with a typed error before any request", async () => {
    const { fetch, seen } = fakeFetch(() => json(200, starsOrder()));
    const client = createClient({ baseUrl: BASE, apiKey: "sj_x", fetch });
    await client.buyStars({ username: "alice", stars: 100, idempotency_key: "invoice-1" });
    const error = await caught(client.buyStars({ username: "alice", stars: 500, idempotency_key: "invoice-1" }));
    expect(error).toBeInstanceOf(partner.IdempotencyKeyReuseError);
    expect(error).toMatchObject({ idempotencyKey: "invoice-1" });
    const other = await caught(client.buyPremium({ username: "alice", months: 3, idempotency_key: "invoice-1" }));
    expect(other).toBeInstanceOf(partner.IdempotencyKeyReuseError);
    expect(seen).toHaveLength(1);
  });

  it("is a replay when only the spelling or the guards differ", async () => {
    const { fetch, seen } = fakeFetch(() => json(200, starsOrder()));
    const client = createClient({ baseUrl: BASE, apiKey: "sj_x", fetch });
    await client.buyStars({ username: "@Alice", stars: 100, idempotency_key: "invoice-2" });
    await client.buyStars({ username: "alice", stars: 100, idempotency_key: "invoice-2", max_usdt: 2 });
    expect(seen).toHaveLength(2);
  });

  it("is free again after a refusal that placed nothing (a 4xx)", async () => {
    const { fetch, seen } = fakeFetch((_, index) =>
      index === 0
        ? json(400, { success: false, error: "stars must be at least 50", error_code: "invalid_request", field: "stars" })
        : json(200, starsOrder()),
    );
    const client = createClient({ baseUrl: BASE, apiKey: "sj_x", fetch });
    const error = await caught(client.buyStars({ username: "alice", stars: 5, idempotency_key: "invoice-3" }));
    expect(error).toMatchObject({ status: 400, field: "stars", idempotencyKey: "invoice-3" });
    await client.buyStars({ username: "alice", stars: 100, idempotency_key: "invoice-3" });
    expect(seen).toHaveLength(2);
  });
});

describe("errors typed by cause", () => {
  it("a refused connection is a PartnerConnectionError with the key it made and the request id", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "sj_x", retries: 1, backoffMs: 1 });
    const error = await caught(client.buyStars({ username: "alice", stars: 100 }));
    expect(error).toBeInstanceOf(partner.PartnerConnectionError);
    expect(error).toBeInstanceOf(partner.PartnerClientError);
    expect((error as partner.PartnerConnectionError).code).toBe("ECONNREFUSED");
    expect((error as partner.PartnerConnectionError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect((error as partner.PartnerConnectionError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a timeout is a PartnerTimeoutError carrying the idempotency key, after the retries", async () => {
    const client = createClient({ baseUrl: `${local}/hang`, apiKey: "sj_x", timeoutMs: 50, retries: 1, backoffMs: 1 });
    const error = await caught(client.buyStars({ username: "alice", stars: 100, idempotency_key: "invoice-4" }));
    expect(error).toBeInstanceOf(partner.PartnerTimeoutError);
    expect(error).toMatchObject({ idempotencyKey: "invoice-4", timeoutMs: 50, requestId: expect.any(String) });
  });

  it("the request id sent as X-Request-Id is the one on the error", async () => {
    const { fetch, seen } = fakeFetch(() => json(401, { success: false, error: "Unknown API key", error_code: "unauthorized" }));
    const client = createClient({ baseUrl: BASE, apiKey: "sj_x", fetch });
    const error = (await caught(client.balance())) as PartnerApiError;
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.requestId).toBe(new Headers(seen[0]!.init.headers).get("x-request-id"));
    expect(error.errorCode).toBe("unauthorized");
  });

  it("a replay is marked from the Idempotent-Replayed header", async () => {
    const { fetch } = fakeFetch(() =>
      json(400, { success: false, error: "price changed", error_code: "price_changed" }, { "idempotent-replayed": "true" }),
    );
    const error = await caught(createClient({ baseUrl: BASE, apiKey: "sj_x", fetch }).buyStars({ username: "a_b_c", stars: 50 }));
    expect(error).toMatchObject({ replayed: true });
  });
});

describe("a purchase's 502", () => {
  it("is never retried and is thrown as a PurchaseFailedError carrying the order (stars: the body is the order)", async () => {
    const { fetch, seen } = fakeFetch(() => json(502, starsOrder({ success: false, status: "failed", error: "provider error" })));
    const error = await caught(createClient({ baseUrl: BASE, apiKey: "sj_x", fetch, backoffMs: 1 }).buyStars({ username: "alice", stars: 100 }));
    expect(error).toBeInstanceOf(partner.PurchaseFailedError);
    expect(error).toBeInstanceOf(PartnerApiError);
    expect(error).toMatchObject({ status: 502, orderId: 7, order: { order_id: 7, status: "failed" } });
    expect(seen).toHaveLength(1);
  });

  it("premium: never retried (a retry would answer the failed order as a success), the order looked up by reading", async () => {
    const premium = starsOrder({ order_id: 9, product_type: "premium", stars: null, months: 3, amount: 3, status: "failed", idempotency_key: "p-1" });
    const { fetch, seen } = fakeFetch(({ url, init }) => {
      if (init.method === "POST") return json(502, { success: false, error: "Premium delivery failed; order 9 was refunded 12 USDT" });
      if (url.includes("/v1/orders?")) return json(200, { success: true, orders: [{ ...premium, store_login: null, store_amount_usd: null }] });
      return json(200, premium);
    });
    const error = await caught(
      createClient({ baseUrl: BASE, apiKey: "sj_x", fetch, backoffMs: 1 }).buyPremium({ username: "alice", months: 3, idempotency_key: "p-1" }),
    );
    expect(error).toBeInstanceOf(partner.PurchaseFailedError);
    expect(error).toMatchObject({ status: 502, orderId: 9, idempotencyKey: "p-1", order: { order_id: 9, status: "failed" } });
    expect(seen.filter((entry) => entry.init.method === "POST")).toHaveLength(1);
  });
});

describe("where requests go", () => {
  it("never follows a redirect (the key and the purchase would go to another origin)", async () => {
    const client = createClient({ baseUrl: local, apiKey: "sj_secret", backoffMs: 1 });
    const error = await caught(client.buyStars({ username: "alice", stars: 100 }));
    expect(error).toBeInstanceOf(partner.PartnerConnectionError);
    expect(error).toMatchObject({ code: "redirect" });
  });

  it("asks fetch not to follow redirects", async () => {
    const { fetch, seen } = fakeFetch(() => json(200, { success: true }));
    await createClient({ baseUrl: BASE, apiKey: "sj_x", fetch }).balance();
    expect(seen[0]!.init.redirect).toBe("error");
  });

  it("refuses http:// off loopback, and takes it on loopback", () => {
    expect(() => createClient({ baseUrl: "http://api.example.com", apiKey: "sj_x" })).toThrow(/https/);
    expect(() => createClient({ baseUrl: "http://10.0.0.5:3000", apiKey: "sj_x" })).toThrow(/https/);
    expect(() => createClient({ baseUrl: "ftp://api.example.com", apiKey: "sj_x" })).toThrow(/https/);
    for (const baseUrl of ["http://localhost:3000", "http://127.0.0.1:3000", "http://127.1.2.3", "http://[::1]:3000", "https://api.example.com"])
      expect(() => createClient({ baseUrl, apiKey: "sj_x" }), baseUrl).not.toThrow();
  });
});

describe("the API version", () => {
  it("is exported and stated in package.json", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { apiVersion?: string };
    expect(partner.apiVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.apiVersion).toBe(partner.apiVersion);
  });
});
