import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLIENT_API_TYPES, generatedClientApiTypes } from "../../scripts/client-api-types.js";

describe("the partner client's API types", () => {
  it("are committed as `npm run client:types` generates them from the OpenAPI document now", async () => {
    const committed = readFileSync(CLIENT_API_TYPES, "utf8");
    expect(committed, "client/src/api-types.ts is not what the OpenAPI document gives now: run npm run client:types").toBe(
      await generatedClientApiTypes(),
    );
  });
});
