import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  divideRounded,
  formatUsdt,
  fromUsdt,
  MAX_MICRO,
  MAX_USDT,
  micro,
  micro as asMicro,
  parseUsdt,
  percentOf,
  roundMicro,
  toUsdt,
} from "../../src/core/model/money.js";

describe("money", () => {
  it("rounds half away from zero", () => {
    expect(roundMicro(micro(1_005_000), 2)).toBe(1_010_000);
    expect(roundMicro(micro(1_004_999), 2)).toBe(1_000_000);
    expect(roundMicro(micro(-1_005_000), 2)).toBe(-1_010_000);
    expect(divideRounded(5, 2)).toBe(3);
    expect(divideRounded(-5, 2)).toBe(-3);
    expect(percentOf(micro(1_000_001), 250)).toBe(25_000);
  });

  it("parses decimal strings exactly and refuses anything else", () => {
    expect(parseUsdt("12.5")).toBe(12_500_000);
    expect(parseUsdt("0.000001")).toBe(1);
    for (const bad of ["-1", "1.1234567", "abc", "", "1e3", "0x10", "1,5"]) expect(parseUsdt(bad), bad).toBeNull();
  });

  it("converts to and from JSON numbers without drift", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 13 }), (micro) => {
        expect(fromUsdt(toUsdt(micro))).toBe(micro);
        expect(parseUsdt(formatUsdt(micro))).toBe(micro);
      }),
    );
    expect(() => fromUsdt(Number.MAX_VALUE)).toThrow(RangeError);
  });

  it("rounding moves an amount by at most half a unit", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), fc.integer({ min: 0, max: 6 }), (micro, decimals) => {
        const unit = 10 ** (6 - decimals);
        const rounded = roundMicro(asMicro(micro), decimals);
        expect(rounded % unit === 0).toBe(true);
        expect(Math.abs(rounded - micro) * 2).toBeLessThanOrEqual(unit);
      }),
    );
  });
});

// Moved from the API's edge tests: parsing needs no HTTP (test/api/edges.test.ts keeps the balances near the bound).
describe("bounds on money", () => {
  it("parses amounts up to the bound exactly and refuses anything past it", () => {
    expect(parseUsdt(String(MAX_USDT))).toBe(MAX_MICRO);
    expect(parseUsdt(`${MAX_USDT - 1}.999999`)).toBe(MAX_MICRO - 1);
    expect(parseUsdt(`${MAX_USDT}.000001`)).toBeNull();
    expect(parseUsdt("9000000000")).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MICRO }), (micro) => {
        const text = `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, "0")}`;
        expect(parseUsdt(text)).toBe(micro);
      }),
    );
  });
});
