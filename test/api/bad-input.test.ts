import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
let key: string;
useHarness({}, async (started) => {
  h = started;
  ({ key } = await h.newKey(1000));
});

/** Values that are wrong for a field of the given kind. */
const badNumber = fc.oneof(
  fc.integer({ max: 49 }),
  fc.integer({ min: 10_001 }),
  fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
  fc.constantFrom(1e308, -0.5, 1e21, 2 ** 53 + 2),
  fc.string(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);
/** Anything but the tariffs' 3, 6 and 12 months (badNumber, made for stars, can draw a small integer such as 3). */
const badMonths = fc
  .oneof(badNumber, fc.integer(), fc.constantFrom("3", 3.0001))
  .filter((months) => !(typeof months === "number" && [3, 6, 12].includes(months)));
const badUsername = fc.oneof(
  fc.string({ maxLength: 2 }),
  fc.string({ minLength: 33, maxLength: 300 }),
  fc.constantFrom("has space", "semi;colon", "@@double", "émile", "a".repeat(33), "", "@ab"),
  fc.integer(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 2 }),
);
const badIdempotencyKey = fc.oneof(
  fc.string({ minLength: 129, maxLength: 400 }),
  fc.constant(""),
  fc.integer(),
  fc.boolean(),
  fc.object({ maxDepth: 1 }),
);

/** A valid body with exactly one field broken, or one of its required fields (those in `valid`) removed. */
function broken(valid: Record<string, unknown>, fields: Record<string, fc.Arbitrary<unknown>>) {
  const names = Object.keys(fields);
  return fc.oneof(
    fc.constantFrom(...names).chain((name) => fields[name].map((value) => ({ ...valid, [name]: value }))),
    fc.constantFrom(...Object.keys(valid)).map((name) => {
      const copy = { ...valid };
      delete copy[name];
      return copy;
    }),
  );
}

const bodies: Record<string, fc.Arbitrary<unknown>> = {
  "/v1/stars": broken({ username: "alice", stars: 100 }, { username: badUsername, stars: badNumber, idempotency_key: badIdempotencyKey }),
  "/test/v1/stars": broken({ username: "alice", stars: 100 }, { username: badUsername, stars: badNumber, idempotency_key: badIdempotencyKey }),
  "/v1/premium": broken({ username: "alice", months: 3 }, { username: badUsername, months: badMonths, idempotency_key: badIdempotencyKey }),
  "/test/v1/premium": broken({ username: "alice", months: 3 }, { username: badUsername, months: badMonths, idempotency_key: badIdempotencyKey }),
  "/v1/store": broken(
    { login: "gabe", amount_usd: 10 },
    {
      login: fc.oneof(
        fc.string({ maxLength: 2 }),
        fc.string({ minLength: 201, maxLength: 300 }),
        fc.string().map((s) => `${s}@${s}`),
        fc.string().map((s) => `a b${s}`),
        fc.constantFrom("a@b.c", "https://x.test/profiles/123", "x", "https://x.test/id/a"),
        fc.integer(),
        fc.constant(null),
      ),
      amount_usd: fc.oneof(fc.constantFrom(0, -1, 0.5, 400.01, 10.001, 1e300), fc.string(), fc.constant(null), fc.boolean()),
      idempotency_key: badIdempotencyKey,
    },
  ),
  "/test/v1/store": broken(
    { login: "gabe", amount_usd: 10 },
    { login: fc.constantFrom("a@b.c", "", "x"), amount_usd: fc.constantFrom(0, 500, 1.234, "5") },
  ),
  "/v1/games/pubgm/order": broken(
    { denomination: "60", player_id: "512345678" },
    {
      denomination: fc.oneof(
        fc.constantFrom("6", "60 ", "600", "", "60 + royale pass"),
        fc.integer(),
        fc.constant(null),
        fc.string({ minLength: 201, maxLength: 300 }),
      ),
      player_id: fc.oneof(fc.constantFrom("", "000000", "abc", "   "), fc.integer(), fc.string({ minLength: 65, maxLength: 100 })),
      server_id: fc.oneof(fc.constantFrom("os_euro", "x"), fc.integer(), fc.boolean()),
      idempotency_key: badIdempotencyKey,
    },
  ),
  "/v1/games/genshin/check-player": broken(
    { player_id: "512345678", server_id: "os_euro" },
    {
      player_id: fc.oneof(fc.constantFrom("", "000000", "12ab"), fc.integer(), fc.constant(null)),
      server_id: fc.oneof(fc.constantFrom("OS_EURO", "Europe", "", "os_mars"), fc.integer(), fc.constant(null)),
    },
  ),
  "/v1/giftcards/psn-us/order": broken(
    { card_id: "psn-us-10" },
    {
      card_id: fc.oneof(fc.constantFrom("", "psn-us-50", "PSN-US-10", "apple-us-5"), fc.integer(), fc.constant(null)),
      quantity: fc.oneof(
        fc.integer({ max: 0 }),
        fc.integer({ min: 11 }),
        fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
        fc.string(),
        fc.constant(null),
      ),
      idempotency_key: badIdempotencyKey,
    },
  ),
  "/v1/gifts": broken(
    { recipient: "alice", gift_id: "5170145012310081615" },
    {
      recipient: fc.oneof(badUsername, fc.constant("refuse_bob")),
      gift_id: fc.oneof(
        fc.constantFrom("", "abc", "1.5", "-1", "123", "5999277561060787166"),
        fc.integer(),
        fc.constant(5170145012310081615),
        fc.constant(null),
      ),
      hide_name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      message: fc.oneof(fc.string({ minLength: 256, maxLength: 400 }), fc.integer(), fc.constant(null)),
      idempotency_key: badIdempotencyKey,
    },
  ),
  "/v1/search": broken(
    { product_type: "stars", query: "alice" },
    {
      product_type: fc.oneof(
        fc.string().filter((s) => !["stars", "premium", "ads"].includes(s)),
        fc.integer(),
        fc.constant(null),
      ),
      query: fc.oneof(
        fc.constant(""),
        fc.constant("   "),
        fc.string({ minLength: 65, maxLength: 200 }).filter((s) => s.trim().length > 64),
        fc.integer(),
        fc.constant(null),
      ),
      quantity: fc.oneof(
        fc.constantFrom("-1", "1.5", "abc", "1e3"),
        fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
      ),
    },
  ),
};

/** Payloads that are not a JSON object at all. */
const rawPayloads = fc.oneof(
  fc.record({ type: fc.constant("application/json"), payload: fc.constantFrom("{", '{"stars":', "nul", "[1,2", "{'a':1}", "\u0000", "") }),
  fc.record({
    type: fc.constant("application/json"),
    payload: fc
      .jsonValue()
      .filter((v) => typeof v !== "object" || v === null || Array.isArray(v))
      .map((v) => JSON.stringify(v)),
  }),
  fc.record({
    type: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml"),
    payload: fc.constant('{"username":"alice","stars":100}'),
  }),
  fc.record({
    type: fc.constant("application/json"),
    payload: fc.constant(JSON.stringify({ username: "alice", stars: 100, pad: "x".repeat(40_000) })),
  }),
);

async function snapshot() {
  const orders = await h.service.db
    .selectFrom("orders")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return { balance: await h.balance(key), orders: Number(orders.n) };
}

function expectClientError(status: number, body: unknown, context: unknown) {
  expect(status, JSON.stringify(context)).toBeGreaterThanOrEqual(400);
  expect(status, JSON.stringify(context)).toBeLessThan(500);
  // Every refusal has its error_code; bad input names its field when it is one.
  const { field, ...rest } = body as Record<string, unknown>;
  expect(rest).toEqual({ success: false, error: expect.any(String), error_code: expect.any(String) });
  if (field !== undefined) expect(field).toEqual(expect.any(String));
  expect((body as { error: string }).error.length).toBeGreaterThan(0);
}

describe("bad input never charges and never answers 5xx", () => {
  for (const [url, arbitrary] of Object.entries(bodies)) {
    it(`POST ${url}: a broken field or a missing one is a 400 that says what is wrong`, async () => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(arbitrary, async (body) => {
          const res = await h.call("POST", url, { key, body });
          // A sold-out gift is 503 (retry later), not the caller's mistake; nothing is charged either way.
          const soldOut = url === "/v1/gifts" && res.status === 503;
          if (!soldOut) expectClientError(res.status, res.body, body);
          expect(res.status === 400 || soldOut, `${res.status} ${JSON.stringify(body)}`).toBe(true);
        }),
        { numRuns: 60 },
      );
      expect(await snapshot()).toEqual(before);
    });

    it(`POST ${url}: malformed JSON, wrong content types and oversized bodies get a 4xx error body`, async () => {
      const before = await snapshot();
      await fc.assert(
        fc.asyncProperty(rawPayloads, async ({ type, payload }) => {
          const res = await h.api.inject({ method: "POST", url, headers: { "x-api-key": key, "content-type": type }, payload });
          expectClientError(res.statusCode, res.json(), { type, payload: payload.slice(0, 80) });
        }),
        { numRuns: 40 },
      );
      expect(await snapshot()).toEqual(before);
    });
  }

  it("names the offending field in the message", async () => {
    const res = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 49 } });
    expect(res.body.error).toBe("stars must be at least 50");
    const missing = await h.call("POST", "/v1/stars", { key, body: { stars: 100 } });
    expect(missing.body.error).toBe("username is required");
    const wrongType = await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: "100" } });
    expect(wrongType.body.error).toBe("stars must be a whole number");
    const noBody = await h.api.inject({ method: "POST", url: "/v1/stars", headers: { "x-api-key": key } });
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().error).toContain("JSON object");
    const plain = await h.api.inject({
      method: "POST",
      url: "/v1/stars",
      headers: { "x-api-key": key, "content-type": "text/plain" },
      payload: '{"username":"alice","stars":100}',
    });
    expect(plain.statusCode).toBe(415);
    expect(plain.json()).toEqual({ success: false, error: "Content-Type must be application/json", error_code: "unsupported_media_type" });
  });

  it("GET /v1/orders and /v1/orders/{id}: generated bad limits and ids are 400", async () => {
    const bad = fc.oneof(
      fc.integer({ max: 0 }).map(String),
      fc.integer({ min: 101 }).map(String),
      fc
        .double({ noNaN: true })
        .filter((n) => !Number.isInteger(n))
        .map(String),
      fc.string({ minLength: 1 }).filter((s) => !/^\d+$/.test(s)),
    );
    await fc.assert(
      fc.asyncProperty(bad, async (value) => {
        const list = await h.call("GET", `/v1/orders?limit=${encodeURIComponent(value)}`, { key });
        expectClientError(list.status, list.body, value);
        if (value.includes("/") || value.includes("?") || value.includes("#")) return;
        const one = await h.call("GET", `/v1/orders/${encodeURIComponent(value)}`, { key });
        expect([400, 404]).toContain(one.status);
        expect(one.body.success).toBe(false);
      }),
      { numRuns: 80 },
    );
  });
});
