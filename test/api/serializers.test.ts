import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkedSerializerCompiler, fastSerializerCompiler } from "../../src/api/serializers.js";
import { balanceResponse } from "../../src/wire/account.js";
import { errorBody } from "../../src/wire/common.js";

// Answers in production are written by fast-json-stringify from the routes' zod schemas (issue 22); the tests'
// serializer checks each answer with zod and demands the same JSON from the fast one.

const route = (schema: z.ZodType) => ({ schema, method: "GET", url: "/test", httpStatus: "200" }) as never;

describe("the answer serializers", () => {
  it("write what zod's check would, leaving out what the schema does not name", () => {
    const fast = fastSerializerCompiler(route(balanceResponse));
    expect(JSON.parse(fast({ success: true, balance_usdt: 12.5, currency: "USDT", internal: "secret" }))).toEqual({
      success: true,
      balance_usdt: 12.5,
      currency: "USDT",
    });
    const error = fastSerializerCompiler(route(errorBody));
    expect(JSON.parse(error({ success: false, error: "API key is not valid", error_code: "expired" }))).toEqual({
      success: false,
      error: "API key is not valid",
      error_code: "expired",
    });
  });

  it("write fields named like schema keywords, and date-times or null, as zod's check does", () => {
    const shape = z.object({ format: z.string(), pattern: z.string().nullable(), at: z.iso.datetime().nullable(), when: z.iso.datetime() });
    const checked = checkedSerializerCompiler(route(shape));
    const fast = fastSerializerCompiler(route(shape));
    for (const value of [
      { format: "csv", pattern: "a+", at: "2026-11-25T23:05:05.122Z", when: "2026-11-25T23:05:05.114Z" },
      { format: "csv", pattern: null, at: null, when: "2026-11-25T23:05:05.114Z" },
    ]) {
      expect(JSON.parse(checked(value))).toEqual(value);
      expect(JSON.parse(fast({ ...value, extra: 1 }))).toEqual(value);
    }
  });

  it("refuse, in tests, an answer outside its schema, and one the fast serializer would write differently", () => {
    const checked = checkedSerializerCompiler(route(balanceResponse));
    expect(checked({ success: true, balance_usdt: 1, currency: "USDT" })).toBe('{"success":true,"balance_usdt":1,"currency":"USDT"}');
    expect(() => checked({ success: true, balance_usdt: "1", currency: "USDT" })).toThrow();
    // zod's union takes the first branch that parses (and strips b); JSON Schema's anyOf the first that matches whole.
    const union = z.union([z.object({ a: z.number() }), z.object({ a: z.number(), b: z.string() })]);
    expect(() => checkedSerializerCompiler(route(union))({ a: 1, b: "x" })).toThrow("the fast serializer of GET /test (200)");
  });
});
