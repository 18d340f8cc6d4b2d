import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { API_TYPES, generatedApiTypes } from "../../web/generate-api-types.js";

describe("the Mini App's API types", () => {
  it("are committed as `npm run web:types` generates them from the OpenAPI document now", async () => {
    const committed = readFileSync(API_TYPES, "utf8");
    expect(committed, "web/src/api-types.ts is not what the OpenAPI document gives now: run npm run web:types").toBe(await generatedApiTypes());
  });
});
