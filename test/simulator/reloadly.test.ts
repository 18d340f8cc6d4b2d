import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMULATOR_RELOADLY_CREDENTIALS as CREDENTIALS } from "../../src/config/simulated-credentials.js";
import { startSimulator } from "../../src/simulator/server.js";
import { RELOADLY_SCHEMAS, reloadlyProblems } from "../support/reloadly-schema.js";

// The simulated Reloadly, called over HTTP as a client of Reloadly's Gift Cards API calls it, every answer checked
// against the published shapes (test/support/reloadly-schema.ts, from docs/providers/reloadly-giftcards.md).

const V1 = "application/com.reloadly.giftcards-v1+json";
const AUDIENCE = { sandbox: "https://giftcards-sandbox.reloadly.com", production: "https://giftcards.reloadly.com" };
type Shape = keyof typeof RELOADLY_SCHEMAS;

let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const sim = await startSimulator(0, { timeScale: 0.01 });
  url = sim.url;
  close = () => sim.app.close();
});
afterAll(async () => close());

interface Call {
  body?: unknown;
  token?: string;
  accept?: string | null;
  on?: string;
}

/** One call; its answer is checked against `shape` (a published one) before anything else looks at it. */
async function call(method: "GET" | "POST", path: string, shape: Shape, options: Call = {}) {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.accept !== null) headers.accept = options.accept ?? V1;
  const response = await request(`${options.on ?? url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const body = (await response.body.json()) as any;
  expect(reloadlyProblems(shape, body), `${method} ${path} as ${shape}: ${JSON.stringify(body)}`).toEqual([]);
  return { status: response.statusCode, type: String(response.headers["content-type"]), body };
}

const tokenRequest = (environment: "sandbox" | "production", change: object = {}) => ({
  client_id: CREDENTIALS[environment].clientId,
  client_secret: CREDENTIALS[environment].clientSecret,
  grant_type: "client_credentials",
  audience: AUDIENCE[environment],
  ...change,
});

async function tokenFor(environment: "sandbox" | "production", on = url): Promise<string> {
  const answer = await call("POST", "/reloadly/auth/oauth/token", "token", { body: tokenRequest(environment), on });
  expect(answer.status).toBe(200);
  return answer.body.access_token;
}

const SANDBOX = "/reloadly/giftcards-sandbox";
const PRODUCTION = "/reloadly/giftcards";
let token: string;
beforeAll(async () => {
  token = await tokenFor("sandbox");
});

const sandbox = (method: "GET" | "POST", path: string, shape: Shape, body?: unknown) => call(method, `${SANDBOX}${path}`, shape, { token, body });
const balance = async () => (await sandbox("GET", "/accounts/balance", "balance")).body.balance as number;
const control = async (path: string, body: object = {}) => {
  const response = await request(`${url}/reloadly/control${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.statusCode).toBe(200);
  return (await response.body.json()) as any;
};
let ids = 0;
const order = (change: object = {}) => ({
  productId: 120,
  countryCode: "US",
  quantity: 1,
  unitPrice: 25,
  customIdentifier: `test-order-${++ids}-${Date.now()}`,
  senderName: "Partner Shop",
  recipientEmail: "buyer@example.com",
  ...change,
});
const cents = (n: number) => Math.round(n * 100);

/** The transaction once it has left PENDING/PROCESSING, read from the report as a reconciling client would. */
async function settled(id: number) {
  for (let i = 0; i < 100; i++) {
    const answer = await sandbox("GET", `/reports/transactions/${id}`, "transaction");
    if (answer.body.status !== "PROCESSING" && answer.body.status !== "PENDING") return answer.body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`transaction ${id} never settled`);
}

describe("Reloadly's token endpoint", () => {
  it("gives a bearer token for the audience of the credentials' environment, with the published lifetime", async () => {
    for (const environment of ["sandbox", "production"] as const) {
      const answer = await call("POST", "/reloadly/auth/oauth/token", "token", { body: tokenRequest(environment) });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ expires_in: 5_184_000, token_type: "Bearer", scope: "developer" });
      const claims = JSON.parse(Buffer.from(answer.body.access_token.split(".")[1], "base64url").toString());
      expect(claims).toMatchObject({ aud: AUDIENCE[environment], "https://reloadly.com/sandbox": environment === "sandbox" });
      expect(claims.exp - claims.iat).toBe(5_184_000);
    }
  });

  it("refuses a wrong secret or grant with INVALID_CREDENTIALS, and another environment's audience with INVALID_AUDIENCE", async () => {
    for (const change of [{ client_secret: "wrong" }, { client_id: "nobody" }, { grant_type: "password" }]) {
      const refused = await call("POST", "/reloadly/auth/oauth/token", "error", { body: tokenRequest("sandbox", change) });
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ errorCode: "INVALID_CREDENTIALS", message: "Access Denied", path: "/oauth/token" });
    }
    for (const audience of [AUDIENCE.production, "https://topups.reloadly.com"]) {
      const refused = await call("POST", "/reloadly/auth/oauth/token", "error", { body: tokenRequest("sandbox", { audience }) });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ errorCode: "INVALID_AUDIENCE", message: "The provided audience is not valid" });
    }
  });
});

describe("a gift-card host", () => {
  it("asks for a token of its own environment and the versioned Accept header, answering in that media type", async () => {
    const none = await call("GET", `${SANDBOX}/accounts/balance`, "error");
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({
      errorCode: "INVALID_TOKEN",
      message: "Full authentication is required to access this resource",
      path: "/accounts/balance",
    });
    const otherHost = await call("GET", `${PRODUCTION}/accounts/balance`, "error", { token });
    expect(otherHost.status).toBe(401);
    expect(otherHost.body).toMatchObject({
      errorCode: "INVALID_TOKEN",
      message: "Invalid token, make sure token is valid for the given environment",
    });
    const plainJson = await call("GET", `${SANDBOX}/accounts/balance`, "frameworkError", { token, accept: "application/json" });
    expect(plainJson.status).toBe(406);
    const ok = await call("GET", `${SANDBOX}/accounts/balance`, "balance", { token });
    expect(ok.status).toBe(200);
    expect(ok.type).toContain(V1);
    expect(ok.body).toMatchObject({ currencyCode: "USD", currencyName: "US Dollar" });
  });

  it("answers an unknown URL with the framework's 404", async () => {
    const missing = await call("GET", `${SANDBOX}/no-such-thing`, "frameworkError", { token });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ status: 404, error: "Not Found", message: "No message available", path: "/no-such-thing" });
  });

  it("refuses an expired token with TOKEN_EXPIRED until a new one is fetched", async () => {
    const own = await startSimulator(0, { timeScale: 0.01 });
    try {
      const old = await tokenFor("sandbox", own.url);
      await request(`${own.url}/reloadly/control/tokens/expire`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      const expired = await call("GET", `${SANDBOX}/accounts/balance`, "error", { token: old, on: own.url });
      expect(expired.status).toBe(401);
      expect(expired.body.errorCode).toBe("TOKEN_EXPIRED");
      const fresh = await call("GET", `${SANDBOX}/accounts/balance`, "balance", { token: await tokenFor("sandbox", own.url), on: own.url });
      expect(fresh.status).toBe(200);
    } finally {
      await own.app.close();
    }
  });
});

describe("the catalogue", () => {
  it("lists a page of products: FIXED and RANGE, in two countries", async () => {
    const all = await sandbox("GET", "/products", "productPage");
    expect(all.body).toMatchObject({ totalElements: 4, number: 0, first: true, last: true });
    const products = all.body.content as any[];
    expect(new Set(products.map((p) => p.denominationType))).toEqual(new Set(["FIXED", "RANGE"]));
    expect(new Set(products.map((p) => p.country.isoName))).toEqual(new Set(["US", "GB"]));
    const second = await sandbox("GET", "/products?page=2&size=3", "productPage");
    expect(second.body).toMatchObject({ number: 1, size: 3, numberOfElements: 1, totalPages: 2, first: false, last: true });
    const fixedOnly = await sandbox("GET", "/products?includeRange=false", "productPage");
    expect((fixedOnly.body.content as any[]).every((p) => p.denominationType === "FIXED")).toBe(true);
  });

  it("gives one product by id, and Reloadly's 400 for an unknown one", async () => {
    const fixed = await sandbox("GET", "/products/2", "product");
    expect(fixed.body).toMatchObject({
      productName: "Amazon UK",
      denominationType: "FIXED",
      recipientCurrencyCode: "GBP",
      senderCurrencyCode: "USD",
    });
    expect(fixed.body.fixedRecipientToSenderDenominationsMap["25.00"]).toBe(33.75);
    const range = await sandbox("GET", "/products/18597", "product");
    expect(range.body).toMatchObject({
      denominationType: "RANGE",
      minRecipientDenomination: 5,
      maxRecipientDenomination: 1000,
      fixedRecipientDenominations: [],
    });
    const unknown = await sandbox("GET", "/products/999999", "error");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ errorCode: "PRODUCT_NOT_FOUND", path: "/products/999999" });
  });

  it("lists a country's products as a bare array; a country without products or an invalid code is a 404", async () => {
    const gb = await sandbox("GET", "/countries/GB/products", "productList");
    expect((gb.body as any[]).map((p) => p.productName).sort()).toEqual(["Amazon UK", "Steam UK"]);
    const none = await sandbox("GET", "/countries/KR/products", "error");
    expect(none.status).toBe(404);
    expect(none.body.message).toMatch(/^No products were found for the given country code/);
    const invalid = await sandbox("GET", "/countries/XYZ/products", "error");
    expect(invalid.status).toBe(404);
    expect(invalid.body.errorCode).toBe("COUNTRY_NOT_SUPPORTED");
  });
});

describe("orders", () => {
  it("orders a FIXED card: a SUCCESSFUL transaction, the wallet debited by its amount, one code per card", async () => {
    const before = await balance();
    const placed = await sandbox("POST", "/orders", "transaction", order({ quantity: 2 }));
    expect(placed.status).toBe(200);
    const t = placed.body;
    // 2 × 25 USD, a 0.50 fee and a 0.9 % discount per card.
    expect(t).toMatchObject({ status: "SUCCESSFUL", amount: 50.55, fee: 1, discount: 0.45, currencyCode: "USD" });
    expect(t.product).toMatchObject({
      productId: 120,
      quantity: 2,
      unitPrice: 25,
      totalPrice: 50,
      currencyCode: "USD",
      brand: { brandName: "Amazon" },
    });
    expect(t.balanceInfo).toMatchObject({ oldBalance: before, cost: 50.55 });
    expect(cents(await balance())).toBe(cents(before - 50.55));
    expect(cents(t.balanceInfo.newBalance)).toBe(cents(before - 50.55));
    const codes = await sandbox("GET", `/orders/transactions/${t.transactionId}/cards`, "cards");
    expect(codes.body).toHaveLength(2);
    const found = await sandbox("GET", `/reports/transactions?customIdentifier=${t.customIdentifier}`, "transactionPage");
    expect(found.body.content).toEqual([t]);
  });

  it("orders a RANGE card at any price between its bounds, converted to the account currency", async () => {
    const placed = await sandbox("POST", "/orders", "transaction", order({ productId: 3501, countryCode: "GB", unitPrice: 12.34 }));
    // 12.34 GBP at 1.27 = 15.67 USD, a 0.30 fee and 1 % of it.
    expect(placed.body).toMatchObject({ status: "SUCCESSFUL", amount: 16.1267, product: { unitPrice: 12.34, currencyCode: "GBP" } });
    for (const [productId, unitPrice] of [
      [3501, 4.99],
      [3501, 200.01],
      [120, 30],
    ]) {
      const refused = await sandbox("POST", "/orders", "error", order({ productId, unitPrice }));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ message: "Invalid price, please ensure you selected the right price.", path: "/orders" });
    }
  });

  it("refuses a customIdentifier already used, charging nothing", async () => {
    const first = order();
    expect((await sandbox("POST", "/orders", "transaction", first)).status).toBe(200);
    const before = await balance();
    const again = await sandbox("POST", "/orders", "error", { ...first, quantity: 3 });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ errorCode: "CUSTOM_IDENTIFIER_ALREADY_USED", path: "/orders" });
    expect(await balance()).toBe(before);
  });

  it("answers PROCESSING for a slow_ recipient, without codes until it turns SUCCESSFUL", async () => {
    const before = await balance();
    const placed = await sandbox("POST", "/orders", "transaction", order({ recipientEmail: "slow_buyer@example.com" }));
    expect(placed.body.status).toBe("PROCESSING");
    expect(cents(await balance())).toBe(cents(before - placed.body.amount));
    expect((await sandbox("GET", `/orders/transactions/${placed.body.transactionId}/cards`, "cards")).body).toEqual([]);
    expect((await settled(placed.body.transactionId)).status).toBe("SUCCESSFUL");
    expect((await sandbox("GET", `/orders/transactions/${placed.body.transactionId}/cards`, "cards")).body).toHaveLength(1);
  });

  it("ends a slowfail_ order REFUNDED with its amount back, and a fail_ order FAILED at once with nothing charged", async () => {
    const before = await balance();
    const slow = await sandbox("POST", "/orders", "transaction", order({ recipientEmail: "slowfail_buyer@example.com" }));
    expect(slow.body.status).toBe("PROCESSING");
    expect((await settled(slow.body.transactionId)).status).toBe("REFUNDED");
    expect(await balance()).toBe(before);
    expect((await sandbox("GET", `/orders/transactions/${slow.body.transactionId}/cards`, "cards")).body).toEqual([]);
    const failed = await sandbox("POST", "/orders", "transaction", order({ recipientEmail: "fail_buyer@example.com" }));
    expect(failed.body).toMatchObject({ status: "FAILED", balanceInfo: { oldBalance: before, newBalance: before, cost: 0 } });
    expect(await balance()).toBe(before);
  });

  it("keeps a pending_ order PENDING until the control route ends it", async () => {
    const placed = await sandbox("POST", "/orders", "transaction", order({ recipientEmail: "pending_buyer@example.com" }));
    expect(placed.body.status).toBe("PENDING");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await sandbox("GET", `/reports/transactions/${placed.body.transactionId}`, "transaction")).body.status).toBe("PENDING");
    await control(`/transactions/${placed.body.transactionId}/settle`, { status: "SUCCESSFUL" });
    expect((await settled(placed.body.transactionId)).status).toBe("SUCCESSFUL");
    expect((await sandbox("GET", `/orders/transactions/${placed.body.transactionId}/cards`, "cards")).body).toHaveLength(1);
  });

  it("refuses what the wallet cannot cover, an unknown product and a malformed order, each with Reloadly's body", async () => {
    const before = await balance();
    await control("/balance", { environment: "sandbox", balance: 10 });
    const short = await sandbox("POST", "/orders", "error", order());
    expect(short.status).toBe(400);
    expect(short.body).toMatchObject({ errorCode: "INSUFFICIENT_BALANCE", message: "Insufficient funds in the wallet to complete this transaction" });
    await control("/balance", { environment: "sandbox", balance: before });
    const unknown = await sandbox("POST", "/orders", "error", order({ productId: 999999 }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errorCode).toBe("PRODUCT_NOT_FOUND");
    const { senderName: _, ...unnamed } = order();
    const malformed = await sandbox("POST", "/orders", "error", unnamed);
    expect(malformed.status).toBe(400);
    expect(malformed.body.errorCode).toBe("INVALID_INPUT_PROVIDED");
    expect(await balance()).toBe(before);
  });

  it("answers an unknown transaction with Reloadly's 404s", async () => {
    const cards = await sandbox("GET", "/orders/transactions/1/cards", "error");
    expect(cards.status).toBe(404);
    expect(cards.body).toMatchObject({ message: "Invalid transaction id", path: "/orders/transactions/1/cards" });
    const report = await sandbox("GET", "/reports/transactions/1", "error");
    expect(report.status).toBe(404);
    expect(report.body.message).toBe("Gift Card transaction not found");
  });

  it("keeps the production wallet apart from the sandbox one, and takes the simulator's faults", async () => {
    const live = await tokenFor("production");
    const production = await call("GET", `${PRODUCTION}/accounts/balance`, "balance", { token: live });
    expect(production.body.balance).toBe(1000);
    const faults = async (mode: string) =>
      request(`${url}/control/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider: "reloadly", mode }),
      });
    await faults("fail_next");
    expect((await call("POST", `${PRODUCTION}/orders`, "transaction", { token: live, body: order() })).body.status).toBe("FAILED");
    expect((await call("POST", `${PRODUCTION}/orders`, "transaction", { token: live, body: order() })).body.status).toBe("SUCCESSFUL");
    await faults("down");
    const down = await request(`${url}${PRODUCTION}/accounts/balance`, { headers: { authorization: `Bearer ${live}`, accept: V1 } });
    expect(down.statusCode).toBe(503);
    await down.body.dump();
    await faults("ok");
  });
});

describe("an order whose answer is lost", () => {
  it("is taken and charged under hang_after_accept, and found by its customIdentifier", async () => {
    const own = await startSimulator(0, { timeScale: 0.01 });
    let hanging: Promise<unknown> = Promise.resolve();
    try {
      const live = await tokenFor("sandbox", own.url);
      await request(`${own.url}/control/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider: "reloadly", mode: "hang_after_accept" }),
      });
      const lost = order();
      const headers = { authorization: `Bearer ${live}`, accept: V1, "content-type": "application/json" };
      hanging = request(`${own.url}${SANDBOX}/orders`, { method: "POST", headers, body: JSON.stringify(lost) }).catch(() => undefined);
      let found: any[] = [];
      for (let i = 0; i < 50 && !found.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const page = await call("GET", `${SANDBOX}/reports/transactions?customIdentifier=${lost.customIdentifier}`, "transactionPage", {
          token: live,
          on: own.url,
        });
        found = page.body.content;
      }
      expect(found).toMatchObject([{ status: "SUCCESSFUL", customIdentifier: lost.customIdentifier }]);
      const wallet = await call("GET", `${SANDBOX}/accounts/balance`, "balance", { token: live, on: own.url });
      expect(cents(wallet.body.balance)).toBe(cents(1000 - found[0].amount));
      const retry = await call("POST", `${SANDBOX}/orders`, "error", { token: live, on: own.url, body: lost });
      expect(retry.body.errorCode).toBe("CUSTOM_IDENTIFIER_ALREADY_USED");
    } finally {
      // Closing ends the hang; the lost answer is then whatever comes, or none.
      await own.app.close();
      await hanging;
    }
  });
});

describe("the published schemas themselves", () => {
  // A real production answer recorded in R7 (ubiquity/pay.ubq.fi, tests/fixtures/post-order/order-card-18597.json).
  const recorded = {
    transactionId: 39018,
    amount: 50,
    discount: 0,
    currencyCode: "USD",
    fee: 6,
    smsFee: 0,
    totalFee: 6,
    preOrdered: false,
    recipientEmail: null,
    recipientPhone: null,
    customIdentifier: "0xd670e1f4f47a0104217f30a8804f7e13803da1dbfd9270dcb6d8d3a5ba72a52e",
    status: "SUCCESSFUL",
    transactionCreatedTime: "2024-11-03 03:25:42",
    product: {
      productId: 18597,
      productName: "Virtual MasterCard International USD US",
      countryCode: "US",
      quantity: 1,
      unitPrice: 44,
      totalPrice: 44,
      currencyCode: "USD",
      brand: { brandId: 378, brandName: "Mastercard" },
    },
    balanceInfo: {
      oldBalance: 212439823.44865,
      newBalance: 212439773.44865,
      cost: 50,
      currencyCode: "USD",
      currencyName: "US Dollar",
      updatedAt: "2024-11-02 13:46:17",
    },
  };

  it("accept a recorded real answer and refuse a field no source shows, a missing one or a wrong type", () => {
    expect(reloadlyProblems("transaction", recorded)).toEqual([]);
    expect(reloadlyProblems("transaction", { ...recorded, smiles: 1 })).not.toEqual([]);
    const { customIdentifier: _, ...missing } = recorded;
    expect(reloadlyProblems("transaction", missing)).not.toEqual([]);
    expect(reloadlyProblems("transaction", { ...recorded, status: "DONE" })).not.toEqual([]);
    expect(reloadlyProblems("transaction", { ...recorded, transactionCreatedTime: "2024-11-03T03:25:42Z" })).not.toEqual([]);
    expect(
      reloadlyProblems("error", {
        timeStamp: "2024-11-03 03:25:42",
        message: "Access Denied",
        path: "/oauth/token",
        errorCode: null,
        infoLink: null,
        details: [],
      }),
    ).toEqual([]);
    expect(reloadlyProblems("cards", [{ cardNumber: 1234, pinCode: "1" }])).not.toEqual([]);
  });
});
