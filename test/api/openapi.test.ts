import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import createClient from "openapi-fetch";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
let document: string;
useHarness({}, async (started) => {
  h = started;
  document = (await h.api.inject({ url: "/openapi.json" })).body;
});

type Operation = { operationId?: string; tags?: string[]; security?: unknown[]; requestBody?: unknown; responses: Record<string, any> };
const operations = () =>
  Object.entries(JSON.parse(document).paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  );

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules with no errors; the only warnings are what the contract fixes", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: document, absoluteRef: join(process.cwd(), "openapi.json"), config });
    expect(problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    // The contract's own paths (/v1/games/{code}/catalogue beside /v1/games/orders/{order_id}) and a health check
    // that answers nothing but 200.
    const warnings = problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ""}`);
    const answersOnly200or503 = ["#/paths/~1v1~1health", "#/paths/~1livez", "#/paths/~1readyz"];
    expect(
      warnings.filter(
        (w) => !w.startsWith("no-ambiguous-paths") && !answersOnly200or503.some((path) => w.startsWith(`operation-4xx-response ${path}`)),
      ),
    ).toEqual([]);
  });

  it("names and tags every operation, describes every answer, and lists the statuses every route can give", () => {
    const doc = JSON.parse(document);
    expect(doc.servers).toHaveLength(1);
    expect(Object.keys(doc.components.schemas).filter((name) => name.endsWith("Input"))).toEqual([]);
    const ids = new Set<string>();
    for (const { name, operation } of operations()) {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      ids.add(operation.operationId!);
      expect(operation.tags?.length, name).toBe(1);
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${name} ${status}`).not.toBe("Default Response");
        expect(response.headers?.["x-request-id"], `${name} ${status}`).toBeDefined();
      }
      expect(operation.responses["500"], name).toBeDefined();
      // Health and Crypto Pay's webhook take no key and no per-key rate limit; the webhook bounds wrong signatures
      // per address (429 with Retry-After, not the key limit's headers).
      const probe = ["GET /v1/health", "GET /livez", "GET /readyz"].includes(name);
      if (probe || name === "POST /cryptopay/webhook") {
        expect(operation.security).toEqual([]);
        if (probe) expect(operation.responses["429"]).toBeUndefined();
        else expect(operation.responses["429"].headers["x-ratelimit-limit"]).toBeUndefined();
        continue;
      }
      expect(Object.keys(operation.responses["429"].headers), name).toEqual(
        expect.arrayContaining(["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining"]),
      );
      if (operation.requestBody) expect(Object.keys(operation.responses), name).toEqual(expect.arrayContaining(["413", "415"]));
    }
    expect(ids.size).toBe(operations().length);
    const amount = doc.paths["/v1/store"].post.requestBody.content["application/json"].schema.properties.amount_usd;
    expect(amount).toMatchObject({ exclusiveMinimum: 0, multipleOf: 0.01 });
  });

  it("describes the webhook events partners receive, each referring to schemas the document has", () => {
    const doc = JSON.parse(document);
    expect(Object.keys(doc.webhooks).sort()).toEqual(["balance.changed", "order.completed", "order.failed", "ping"]);
    const completed = doc.webhooks["order.completed"].post;
    expect(completed.operationId).toBe("onOrderCompleted");
    expect(completed.parameters.map((p: { name: string }) => p.name)).toContain("X-Webhook-Signature");
    const refs = JSON.stringify(doc.webhooks).match(/#\/components\/schemas\/\w+/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(doc.components.schemas[ref.split("/").pop()!], ref).toBeDefined();
  });

  it("generates a typed client that type-checks a purchase and refuses a wrong one, and the call works against the service", async () => {
    const dir = mkdtempSync(join(process.cwd(), "node_modules", ".openapi-client-"));
    try {
      writeFileSync(join(dir, "api.d.ts"), astToString(await openapiTS(JSON.parse(document))));
      writeFileSync(
        join(dir, "client.ts"),
        `import createClient from "openapi-fetch";
import type { paths } from "./api.js";
const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8080" });
export async function buy(key: string): Promise<number | undefined> {
  const { data } = await client.POST("/v1/stars", { headers: { "X-API-Key": key }, body: { username: "alice", stars: 100, max_usdt: 1.5 } });
  const status: "processing" | "completed" | "failed" | undefined = data?.status;
  void status;
  // @ts-expect-error stars is a number, never a string
  await client.POST("/v1/stars", { body: { username: "alice", stars: "100" } });
  // @ts-expect-error there is no such path
  await client.GET("/v1/nothing");
  return data?.usdt_charged;
}
`,
      );
      const program = ts.createProgram([join(dir, "client.ts")], {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        skipLibCheck: true,
        types: [],
      });
      const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(diagnostics).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The same kind of client at run time, its requests answered by the real app.
    const { key } = await h.newKey(5);
    const client = createClient<any>({
      baseUrl: "http://service.test",
      fetch: async (request: Request) => {
        const answer = await h.api.inject({
          method: request.method as "POST",
          url: new URL(request.url).pathname,
          headers: Object.fromEntries(request.headers),
          payload: await request.text(),
        });
        return new Response(answer.body, { status: answer.statusCode, headers: { "content-type": "application/json" } });
      },
    });
    const { data, response } = await client.POST("/v1/stars", { headers: { "X-API-Key": key }, body: { username: "alice", stars: 100 } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ status: "completed", usdt_charged: 1.5 });
  });
});
